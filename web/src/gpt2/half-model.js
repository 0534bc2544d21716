// GPT-2 kept resident in float16: for a checkpoint whose float32 weights and packed copy would not fit in the
// WASM heap (gpt2-medium's shape; memory.js checkGpt2Memory decides). The matrices stay float16 in JS
// memory; the WASM heap holds the packed unembedding and one block at a time: before each block its four
// matrices are widened to float32 and packed (cpp/kernels/gpt2_shard.h with the whole model as its one share),
// after it they are freed. The products are the fast path's packed GEMM on float32, so the logits are the
// float16 weights' own, exactly widened: what PyTorch computes from the same float16 checkpoint in float32.
import { gpt2MemoryBytes } from './memory.js';
import { halfToFloatTable } from './safetensors-read.js';
import { shareParameters } from './worker-plan.js';

const MIB = 2 ** 20;

function unwrap(result) {
  if (result instanceof Error) throw result;
  return result;
}

/** The engine (model.js's {forward, dispose}) on a loaded WASM backend, for float16-resident parameters. */
export function createHalfGpt2(backend, config, parameters) {
  const { layers, vocabSize: V, dModel: C, heads: H, dMlp: M } = config;
  const { unembedding, staging, block } = gpt2MemoryBytes(config).float16;
  const { bytesAvailable } = backend.heapStats();
  if (unembedding + staging + block > bytesAvailable) {
    throw new Error(`createGpt2: the float16-resident model needs ${Math.ceil((unembedding + staging + block) / MIB)} MiB in the WASM heap (the packed unembedding, the buffer it is unpacked into, one block's packed matrices) before its activations; it has ${Math.floor(bytesAvailable / MIB)} MiB left`);
  }
  const share = { headBegin: 0, headEnd: H, mlpBegin: 0, mlpEnd: M, vocabBegin: 0, vocabEnd: V };
  let shard = backend.createGpt2Shard({ ...config, ...share, parts: 1 });
  const table = halfToFloatTable();
  const widenAndPack = (i, bits) => {
    const staged = unwrap(shard.stage(i)); // a fresh view: staging may grow the memory
    for (let j = 0; j < bits.length; j++) staged[j] = table[bits[j]];
    unwrap(shard.packStaged(i));
  };
  try {
    shard.parameters().set(shareParameters(config, parameters, share).vectors);
    widenAndPack(4 * layers, parameters['wte.weight'].data);
    shard.releaseStaging();
  } catch (error) {
    shard.delete();
    throw error;
  }
  const blockMatrices = (l) => ['attn.c_attn', 'attn.c_proj', 'mlp.c_fc', 'mlp.c_proj'].map((name) => parameters[`h.${l}.${name}.weight`].data);
  const wte = parameters['wte.weight'].data;
  const wpe = parameters['wpe.weight'].data;

  return {
    /** {logits (T·V floats), attention: [layer] (H·T·T floats) or null}, copied out of the heap. */
    forward(tokens, headsOff, attention) {
      if (!shard) throw new Error('gpt2.forward: the model was disposed');
      const T = tokens.length;
      unwrap(shard.begin(T, attention, headsOff));
      const x = shard.residual();
      for (let t = 0; t < T; t++) for (let c = 0; c < C; c++) x[t * C + c] = table[wte[tokens[t] * C + c]] + wpe[t * C + c];
      for (let l = 0; l < layers; l++) {
        blockMatrices(l).forEach((bits, j) => widenAndPack(4 * l + j, bits));
        shard.attention(l, 0);
        shard.addParts(l, 0);
        shard.mlp(l, 0);
        shard.addParts(l, 1);
        for (let j = 0; j < 4; j++) shard.release(4 * l + j);
      }
      const logits = shard.logits().slice();
      return { logits, attention: attention ? Array.from({ length: layers }, (_, l) => shard.attentionWeights(l).slice()) : null };
    },
    dispose() {
      shard?.delete();
      shard = null;
    },
  };
}
