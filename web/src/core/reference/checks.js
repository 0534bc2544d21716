// The semantic checks of docs/api.md "Errors", one per API function, in JS: shapes that must agree,
// sizes of 0, option ranges, non-finite values, the memory limit. Each throws an Error whose message names
// the function, the argument, the value and what was expected, in the same words as the C++ core's
// check_* functions, and returns the sizes the computation needs. The reference backend calls them
// before it computes; the WebGPU backend reuses them so its messages match; the API layer reuses the
// option checks (re-exported here from check-helpers.js).
//
// The tensor arguments' axes, the weights' keys and shapes and the heads | d_out rule are the registry's
// (AxisSizes, checkDivides: registry.js). Written here, because the table does not say them (as in the C++
// core, cpp/attention/checks_attention.cpp): the order of the checks; nextTokenPairs' tokens (int32, L ≥ 2);
// softmax's, attentionDropout's and compare's tensors of any rank; softmax's finite scale·x; selfAttention's
// 'linear' layout; the stacked form's list of heads (an array, options.heads its length, d_out = H·d_head);
// the fused form's inProjection, whose width must be a multiple of 3; matmul's a of rank 2 or 3; how a
// memory message names the sizes; and the backwards' gradOutput.
import { checkTensorStructure, formatShape, sizeOf } from '../tensor.js';
import { fusedKernelApplies } from '../planner.js';
import { ApiError } from '../registry-errors.js';
import {
  AxisSizes, NORMALIZATIONS, checkDivides, checkAnyTensor, checkAttentionOptions, checkBoolean, checkChoice,
  checkFinite, checkKnownKeys, checkMemory, checkSoftmaxScale, checkTolerance, fail, isPresent,
} from './check-helpers.js';
import { withoutMemoryCheck } from '../registry-checks.js';
import { checkMasks, hasMasks } from './masks.js';
import { checkAttentionDropout } from './dropout.js';
import { checkGelu } from './gelu.js';
import { checkLayerNorm } from './layer-norm.js';
import { checkScaledDotProductAttention } from './scaled-dot-product-attention.js';

export * from './check-helpers.js';

// ---- One check per API function: validates everything, returns the sizes the computation needs ----

export function checkNextTokenPairs(tokens) {
  const fn = 'nextTokenPairs';
  checkTensorStructure(fn, 'tokens', tokens, 'int32');
  const { shape } = tokens;
  if (shape.length !== 2) {
    fail(fn, 'shape', 'tokens', shape, 'rank 2 (B, L)');
  }
  if (shape[0] < 1) fail(fn, 'shape', 'tokens', shape, `every size ≥ 1 (B=${shape[0]})`);
  if (shape[1] < 2) fail(fn, 'shape', 'tokens', shape, 'L ≥ 2 tokens per sequence (a context and a target)');
  const sizes = { B: shape[0], L: shape[1] };
  checkMemory(fn, 'teaching', sizes, `B=${sizes.B}, L=${sizes.L}`);
  return sizes;
}

/** Steps 2–4 (causalAverageLoop, causalAverageMatmul, causalAverageSoftmax) take only x. */
export function checkCausalAverage(fn, x) {
  const [B, T, C] = new AxisSizes(fn).sequence('x', x);
  checkMemory(fn, 'teaching', { B, T, C }, `B=${B}, T=${T}`);
  return { B, T, C };
}

export function checkSoftmax(x, options) {
  const fn = 'softmax';
  const shape = checkAnyTensor(fn, 'x', x, { allowNegativeInfinity: true });
  checkChoice(fn, 'normalization', options.normalization, NORMALIZATIONS);
  checkSoftmaxScale(fn, options.scale);
  checkMemory(fn, 'teaching', { size: sizeOf(shape) }, `x of shape ${formatShape(shape)}`);
  checkScaledInRange(fn, x, options.scale);
  return { rows: sizeOf(shape) / shape[shape.length - 1], N: shape[shape.length - 1] };
}

/**
 * softmax's scale·x, formed in float32, must stay finite: a finite x taken to −∞ would read as a mask (its
 * row silently all zeros) and one taken to +∞ makes the row NaN. Only |scale| > 1 can leave the range.
 */
function checkScaledInRange(fn, x, scale) {
  const factor = Math.fround(scale);
  if (!(Math.abs(factor) > 1)) return;
  for (const value of x.data) {
    const scaled = Math.fround(value * factor);
    if (value !== -Infinity && !Number.isFinite(scaled)) {
      throw new ApiError({ fn, kind: 'overflow', expected: 'finite results', stage: 'scaled scores', plural: true,
        reached: String(scaled), argument: 'scale', value: scale, option: true, expression: 'scale·x' });
    }
  }
}

export function checkAttentionWithoutWeights(x, options) {
  const fn = 'attentionWithoutWeights';
  const [B, T, C] = new AxisSizes(fn).sequence('x', x);
  checkChoice(fn, 'normalization', options.normalization, NORMALIZATIONS);
  checkMemory(fn, 'teaching', { B, T, C }, `B=${B}, T=${T}`);
  return { B, T, C };
}

/** How many (…, Tq, Tk) tensors an attention call returns: scores, scaled, weights, masked?, dropped? */
// scores, scaled, weights; masked when causal or a mask is given (hasMasks); dropped when dropout > 0
const squareResultCount = (options) => 3 + (options.causal || hasMasks(options) ? 1 : 0) + (options.dropout > 0 ? 1 : 0);

export function checkSelfAttention(x, weights, options) {
  const fn = 'selfAttention';
  // the axes of x and the weights are the registry's (AxisSizes); the 'linear' layout is written here, as in
  // the C++ core: the table does not say it
  const { axes, B, T, dIn } = attentionAxes(fn, x, weights, options);
  const linear = options.layout === 'linear';
  // The math layout is (d_in, d_out) used as X·W; the Linear layout (d_out, d_in) used as X·Wᵀ.
  for (const key of ['query', 'key', 'value']) {
    try {
      axes.weight(key, weights[key], { transposed: linear });
    } catch (error) {
      // The layout explains an unexpected expectation: [d_out, d_in] instead of the usual [d_in, d_out].
      if (linear && error instanceof ApiError && error.kind === 'shape') {
        throw new ApiError({ ...error, expected: `${error.expected} (layout 'linear')` });
      }
      throw error;
    }
  }
  for (const bias of ['queryBias', 'keyBias', 'valueBias']) {
    if (isPresent(weights[bias])) axes.weight(bias, weights[bias]);
  }
  const dOut = axes.get('d_out');
  checkMemory(fn, 'teaching', attentionSizes(x, { B, H: 1, Tq: T, Tk: T, dIn, dOut }, options), sizesText(B, 1, T, T, false));
  return { B, T, dIn, dOut };
}

export function checkCompare(actual, expected, options) {
  const fn = 'compare';
  checkAnyTensor(fn, 'actual', actual);
  checkAnyTensor(fn, 'expected', expected);
  if (formatShape(actual.shape) !== formatShape(expected.shape)) {
    fail(fn, 'shape', 'expected', expected.shape, `${formatShape(actual.shape)} like actual`);
  }
  checkTolerance(fn, 'atol', options.atol);
  checkTolerance(fn, 'rtol', options.rtol);
  return { size: actual.data.length };
}

/** "B=2, H=4, T=16" or, for cross-attention, "B=2, Tq=3, Tk=5": the sizes that drive the estimate. */
function sizesText(B, H, Tq, Tk, cross) {
  const heads = H > 1 ? `, H=${H}` : '';
  return cross ? `B=${B}${heads}, Tq=${Tq}, Tk=${Tk}` : `B=${B}${heads}, T=${Tq}`;
}

/**
 * The sizes a multi-head call's memory terms read (registry.js): those of the call, the stages it keeps
 * and the floats of its inputs. Its path is the planner's: the fused kernel holds O(T·d), the teaching
 * code the (B, H, Tq, Tk) stages.
 */
function attentionSizes(x, { B, H, Tq, Tk, dIn, dOut }, options, context = x) {
  return {
    B, H, Tq, Tk, dIn, dOut, dHead: dOut / H, stages: squareResultCount(options),
    xFloats: x.data.length, contextFloats: context.data.length,
  };
}

function checkMultiheadMemory(fn, x, sizes, options, context = x) {
  const { B, H, Tq, Tk } = sizes;
  const fused = fusedKernelApplies(options);
  const what = fused ? (Tq === Tk ? `B=${B}, T=${Tq}` : `B=${B}, Tq=${Tq}, Tk=${Tk}`) : sizesText(B, H, Tq, Tk, context !== x);
  checkMemory(fn, fused ? 'fused' : 'teaching', attentionSizes(x, sizes, options, context), what);
}

const PROJECTION_BIASES = ['queryBias', 'keyBias', 'valueBias'];

/** Every attention check's start: x (B, T, d_in), then the weights object's keys, then the options. */
function attentionAxes(fn, x, weights, options) {
  const axes = new AxisSizes(fn);
  const [B, T, dIn] = axes.sequence('x', x);
  axes.weightsObject(weights);
  checkAttentionOptions(fn, options);
  return { axes, B, T, dIn };
}

/** The optional output projection (d_out, d_out) and its bias (d_out), once d_out is named. */
function checkOutProjection(axes, weights) {
  for (const key of ['outWeight', 'outBias']) {
    if (isPresent(weights[key])) axes.weight(key, weights[key]);
  }
}

/**
 * weights.query, .key, .value and their optional biases, by the registry's rules `${prefix}query`, …; a
 * message names them as `${shown}.query`, …; the value's d_in is said as xValue's when it has its own input.
 */
function checkProjections(axes, weights, { prefix = '', shown = 'weights', valueWhen = null } = {}) {
  for (const key of ['query', 'key', 'value']) {
    axes.weight(`${prefix}${key}`, weights[key], { shown: `${shown}.${key}`, when: key === 'value' ? valueWhen : null });
  }
  for (const key of PROJECTION_BIASES) {
    if (isPresent(weights[key])) axes.weight(`${prefix}${key}`, weights[key], { shown: `${shown}.${key}` });
  }
}

/** options.heads divides d_out; then the masks (B, H, Tq, Tk) and the memory estimate: H. */
function checkHeads(fn, x, sizes, options, context = x) {
  const { B, Tq, Tk, dOut } = sizes;
  const H = options.heads;
  checkDivides(fn, 'heads', H, { d_out: dOut });
  checkMasks(fn, options, { B, H, Tq, Tk });
  checkMultiheadMemory(fn, x, { ...sizes, H }, options, context);
  return H;
}

export function checkMultiheadAttentionStacked(x, weights, options) {
  const fn = 'multiheadAttentionStacked';
  const { axes, B, T, dIn } = attentionAxes(fn, x, weights, options);
  const { heads } = weights;
  if (!Array.isArray(heads) || heads.length === 0) {
    fail(fn, 'type', 'weights.heads', heads, 'an array of H ≥ 1 heads {query, key, value, …}');
  }
  const H = heads.length;
  if (options.heads !== H) fail(fn, 'option', 'options.heads', options.heads, `${H}, the length of weights.heads`);
  heads.forEach((head, h) => {
    const name = `weights.heads[${h}]`;
    if (head === null || typeof head !== 'object' || Array.isArray(head)) {
      fail(fn, 'type', name, head, 'an object {query, key, value, …}');
    }
    checkKnownKeys(fn, name, head, ['query', 'key', 'value', ...PROJECTION_BIASES]);
    // every head's d_head is the first head's: the registry's weights.heads[].query, .key, .value
    checkProjections(axes, head, { prefix: 'heads[].', shown: name });
  });
  const dHead = axes.get('d_head');
  const dOut = H * dHead;
  axes.bind('d_out', dOut); // the heads side by side
  checkOutProjection(axes, weights);
  checkMasks(fn, options, { B, H, Tq: T, Tk: T });
  checkMultiheadMemory(fn, x, { B, Tq: T, Tk: T, dIn, dOut, H }, options);
  return { B, T, dIn, dOut, H, dHead };
}

export function checkMultiheadAttentionSplit(x, weights, options) {
  const fn = 'multiheadAttentionSplit';
  const { axes, B, T, dIn } = attentionAxes(fn, x, weights, options);
  checkProjections(axes, weights);
  checkOutProjection(axes, weights);
  const dOut = axes.get('d_out');
  const H = checkHeads(fn, x, { B, Tq: T, Tk: T, dIn, dOut }, options);
  return { B, T, dIn, dOut, H, dHead: dOut / H };
}

export function checkMultiheadAttentionFused(x, weights, options) {
  const fn = 'multiheadAttentionFused';
  const { axes, B, T, dIn } = attentionAxes(fn, x, weights, options);
  // inProjection (d_in, 3·d_out) by the registry; its width a multiple of 3, which no axis rule says
  const [, width] = axes.weight('inProjection', weights.inProjection);
  if (width % 3 !== 0) {
    fail(fn, 'shape', 'weights.inProjection', weights.inProjection.shape, `[d_in=${dIn}, 3·d_out] ([Wq | Wk | Wv] side by side)`);
  }
  const dOut = width / 3;
  axes.bind('d_out', dOut);
  if (isPresent(weights.inBias)) axes.weight('inBias', weights.inBias);
  checkOutProjection(axes, weights);
  const H = checkHeads(fn, x, { B, Tq: T, Tk: T, dIn, dOut }, options);
  return { B, T, dIn, dOut, H, dHead: dOut / H };
}

export function checkCrossAttention(xQuery, xContext, weights, options) {
  const fn = 'crossAttention';
  const axes = new AxisSizes(fn);
  const [B, Tq, dQuery] = axes.sequence('xQuery', xQuery);
  const [, Tk, dContext] = axes.sequence('xContext', xContext);
  axes.weightsObject(weights);
  checkAttentionOptions(fn, options);
  // options.xValue (B, Tk, d_xv): the values' own input, with the batch and Tk of xContext, projected by
  // weights.value (d_xv, d_out)
  const ownValues = isPresent(options.xValue);
  const dValue = ownValues ? axes.option('xValue', options.xValue)[2] : dContext;
  checkProjections(axes, weights, { valueWhen: ownValues ? 'xValue' : null });
  checkOutProjection(axes, weights);
  const dOut = axes.get('d_out');
  const H = checkHeads(fn, xQuery, { B, Tq, Tk, dIn: dQuery, dOut }, options, xContext);
  return { B, Tq, Tk, dQuery, dContext, dValue, dOut, H, dHead: dOut / H };
}

/** matmul: a (M, K) or (B, M, K); b (K, N), or (N, K) with transposeB. */
export function checkMatmul(a, b, options) {
  const fn = 'matmul';
  const axes = new AxisSizes(fn);
  checkTensorStructure(fn, 'a', a);
  if (a.shape.length !== 2 && a.shape.length !== 3) fail(fn, 'shape', 'a', a.shape, '(M, K) or (B, M, K)');
  axes.sequence('a', a, { unbatched: a.shape.length === 2 });
  checkBoolean(fn, 'transposeB', options.transposeB);
  axes.tensor('b', b, { transposed: options.transposeB });
  const [M, K, N] = [axes.get('M'), axes.get('K'), axes.get('N')];
  const batch = axes.get('B') ?? 1;
  checkMemory(fn, 'teaching', { batch, M, N }, `M=${M}, N=${N}`);
  return { batch, M, K, N };
}

/** The floats of every tensor in `value` (a tensor, or objects and arrays of them): a backward's inputs. */
function floatsOf(value) {
  if (value === null || typeof value !== 'object') return 0;
  if (ArrayBuffer.isView(value.data) && Array.isArray(value.shape)) return value.data.length;
  return Object.values(value).reduce((sum, item) => sum + floatsOf(item), 0);
}

/**
 * The check of a backward (<forward>Backward, registry.js): the forward's check under the backward's name
 * (without the forward's memory estimate), then gradOutput, which must have the forward output's shape
 * (B, Tq, d_out), then the backward's own estimate: its registry terms (BACKWARD_MEMORY) over the forward's
 * sizes and its inputs' and weights' floats — the words and sums of the C++ core's check_*_backward
 * (cpp/attention/checks_backward.cpp).
 */
function backwardCheck(forward, check) {
  const fn = `${forward}Backward`;
  return (...args) => {
    const gradOutput = args[args.length - 2];
    const options = args[args.length - 1];
    const forwardArgs = [...args.slice(0, -2), options];
    let sizes;
    try {
      sizes = withoutMemoryCheck(() => check(...forwardArgs));
    } catch (error) {
      if (error instanceof ApiError) throw new ApiError({ ...error, fn });
      throw error;
    }
    const B = sizes.B;
    const H = sizes.H ?? 1;
    const Tq = sizes.Tq ?? sizes.T;
    const Tk = sizes.Tk ?? sizes.T;
    const dOut = sizes.dOut ?? sizes.H * sizes.dHead;
    const expected = [B, Tq, dOut];
    const shape = gradOutput?.shape;
    if (!Array.isArray(shape) || shape.length !== 3 || shape.some((size, i) => size !== expected[i])) {
      const got = Array.isArray(shape) ? `has shape ${formatShape(shape)}` : 'is absent';
      throw new Error(`${fn}: gradOutput ${got}; expected ${formatShape(expected)}, the shape of the forward's output`);
    }
    checkFinite(fn, 'gradOutput', gradOutput);
    // the backward's stages: scores, scaled, weights; masked when causal; dropped when dropout > 0
    const stages = 3 + (options.causal ? 1 : 0) + (options.dropout > 0 ? 1 : 0);
    const inputFloats = floatsOf(args.slice(0, -2));
    checkMemory(fn, fusedKernelApplies(options) ? 'fused' : 'teaching', { B, H, Tq, Tk, dOut, stages, inputFloats },
      sizesText(B, H, Tq, Tk, sizes.Tq !== undefined));
    return sizes;
  };
}

/**
 * The one check of each API function, by name (registry.js): the API runs it before any backend; the reference
 * and WebGPU run the same function for a call made to them directly (api-checked.js checkedOnce).
 */
export const CHECKS = Object.freeze({
  nextTokenPairs: checkNextTokenPairs,
  causalAverageLoop: (x) => checkCausalAverage('causalAverageLoop', x),
  causalAverageMatmul: (x) => checkCausalAverage('causalAverageMatmul', x),
  causalAverageSoftmax: (x) => checkCausalAverage('causalAverageSoftmax', x),
  softmax: checkSoftmax,
  attentionWithoutWeights: checkAttentionWithoutWeights,
  selfAttention: checkSelfAttention,
  attentionDropout: checkAttentionDropout,
  compare: checkCompare,
  multiheadAttentionStacked: checkMultiheadAttentionStacked,
  multiheadAttentionSplit: checkMultiheadAttentionSplit,
  multiheadAttentionFused: checkMultiheadAttentionFused,
  crossAttention: checkCrossAttention,
  scaledDotProductAttention: checkScaledDotProductAttention,
  layerNorm: checkLayerNorm,
  gelu: checkGelu,
  matmul: checkMatmul,
  selfAttentionBackward: backwardCheck('selfAttention', checkSelfAttention),
  multiheadAttentionStackedBackward: backwardCheck('multiheadAttentionStacked', checkMultiheadAttentionStacked),
  multiheadAttentionSplitBackward: backwardCheck('multiheadAttentionSplit', checkMultiheadAttentionSplit),
  multiheadAttentionFusedBackward: backwardCheck('multiheadAttentionFused', checkMultiheadAttentionFused),
  crossAttentionBackward: backwardCheck('crossAttention', checkCrossAttention),
});
