// The pure-JS reference backend: every function of docs/api.md, clear rather than fast, with the same
// checks and messages as the C++ core. It is the fallback when WebAssembly cannot load, the second
// opinion on the page's "check our work" step, and the source of the WebGPU backend's non-matrix steps.
// It takes arguments already normalised by web/src/core/api.js (rank-3 x, complete options); on a call the API
// has checked, each function computes with the sizes the API's check returned (api-checked.js
// checkedOnce) and checks nothing again; called directly, it runs its check.
import { attentionDropout } from './dropout.js';
import { causalAverageLoop, causalAverageMatmul, causalAverageSoftmax } from './causal-average.js';
import { compare } from './compare.js';
import { crossAttention } from './cross-attention.js';
import { gelu } from './gelu.js';
import { layerNorm } from './layer-norm.js';
import { matmul } from './linalg.js';
import { multiheadAttentionFused, multiheadAttentionSplit, multiheadAttentionStacked } from './multihead.js';
import { nextTokenPairs } from './next-token.js';
import { scaledDotProductAttention } from './scaled-dot-product-attention.js';
import { attentionWithoutWeights, selfAttention } from './self-attention.js';
import { softmax } from './softmax.js';
import {
  crossAttentionBackward, multiheadAttentionFusedBackward, multiheadAttentionSplitBackward,
  multiheadAttentionStackedBackward, selfAttentionBackward,
} from './backward/attention.js';
import { FUNCTION_NAMES } from '../registry.js';

// Each registry function's implementation, by its JS name: the one list a new function joins.
const IMPLEMENTATIONS = {
  nextTokenPairs, causalAverageLoop, causalAverageMatmul, causalAverageSoftmax, softmax, attentionWithoutWeights,
  selfAttention, attentionDropout, compare, multiheadAttentionStacked, multiheadAttentionSplit, multiheadAttentionFused,
  crossAttention, scaledDotProductAttention, layerNorm, gelu, matmul, selfAttentionBackward,
  multiheadAttentionStackedBackward, multiheadAttentionSplitBackward, multiheadAttentionFusedBackward, crossAttentionBackward,
};

/** Creates the reference backend object ({ name: 'js', build: null, <one method per registry function> }). */
export function createReferenceBackend() {
  const backend = { name: 'js', build: null };
  for (const fn of FUNCTION_NAMES) backend[fn] = IMPLEMENTATIONS[fn];
  return backend;
}
