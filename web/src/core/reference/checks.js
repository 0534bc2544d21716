// The semantic checks of docs/api.md "Errors", in JS: shapes that must agree, sizes of 0, option ranges,
// non-finite values, the memory limit. Each check throws an Error whose message names the function, the
// argument, the value and what was expected, in the same words as the C++ core's check_* functions.
// The reference backend calls the per-function checks (checkSelfAttention, …) before it computes; the
// WebGPU backend reuses them so its messages match; the API layer reuses the option checks.
import { checkTensorStructure, describeValue, formatShape, sizeOf } from '../tensor.js';

/** Results beyond this many bytes are refused, as the WASM module (2 GiB of memory) must refuse them. */
export const MEMORY_LIMIT_BYTES = 2 ** 31;

export const NORMALIZATIONS = ['stable', 'naive', 'sum'];
export const MASK_MODES = ['neg_inf', 'renormalize', 'zero'];
export const LAYOUTS = ['matrix', 'linear'];

export function fail(fn, message) {
  throw new Error(`${fn}: ${message}`);
}

// 'a', 'b' or 'c'
function listOf(items) {
  const quoted = items.map((item) => `'${item}'`);
  return quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

// ---- Options -------------------------------------------------------------------------------------

/** `object` may only hold the keys in `allowed` (a typo must not be silently ignored). */
export function checkKnownKeys(fn, name, object, allowed) {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) {
      const what = name === 'options' ? `unknown option '${key}'` : `${name} has an unknown key '${key}'`;
      fail(fn, `${what}; expected one of ${allowed.join(', ')}`);
    }
  }
}

export function checkChoice(fn, name, value, choices) {
  if (!choices.includes(value)) fail(fn, `options.${name}=${describeValue(value)}; expected ${listOf(choices)}`);
}

export function checkBoolean(fn, name, value) {
  if (typeof value !== 'boolean') fail(fn, `options.${name}=${describeValue(value)}; expected true or false`);
}

export function checkDropout(fn, p) {
  if (typeof p !== 'number' || !(p >= 0 && p < 1)) fail(fn, `options.dropout=${describeValue(p)}; expected a number in [0, 1)`);
}

export function checkSeed(fn, seed) {
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    fail(fn, `options.seed=${describeValue(seed)}; expected an integer in [0, 2^32)`);
  }
}

export function checkTemperature(fn, temperature) {
  if (typeof temperature !== 'number' || !Number.isFinite(temperature) || temperature <= 0) {
    fail(fn, `options.temperature=${describeValue(temperature)}; expected a finite number > 0`);
  }
}

export function checkHeads(fn, heads) {
  if (!Number.isInteger(heads) || heads < 1) fail(fn, `options.heads=${describeValue(heads)}; expected an integer ≥ 1`);
}

/** softmax's `scale` is a number multiplying its input (a −∞ entry stays masked whatever the scale). */
export function checkSoftmaxScale(fn, scale) {
  if (typeof scale !== 'number' || !Number.isFinite(scale)) {
    fail(fn, `options.scale=${describeValue(scale)}; expected a finite number`);
  }
}

export function checkTolerance(fn, name, value) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(fn, `options.${name}=${describeValue(value)}; expected a finite number ≥ 0`);
  }
}

/** The options every attention function shares (steps 6–11). */
export function checkAttentionOptions(fn, options) {
  checkBoolean(fn, 'scale', options.scale);
  checkTemperature(fn, options.temperature);
  checkBoolean(fn, 'causal', options.causal);
  checkChoice(fn, 'mask', options.mask, MASK_MODES);
  checkDropout(fn, options.dropout);
  checkSeed(fn, options.seed);
  if ('layout' in options) checkChoice(fn, 'layout', options.layout, LAYOUTS);
  if ('heads' in options) checkHeads(fn, options.heads);
  if ('intermediates' in options) checkBoolean(fn, 'intermediates', options.intermediates);
}

// ---- Tensors -------------------------------------------------------------------------------------

function checkSizes(fn, name, tensor, dimNames) {
  const zeroAxis = tensor.shape.indexOf(0);
  if (zeroAxis >= 0) {
    fail(fn, `${name} has shape ${formatShape(tensor.shape)}; expected every size ≥ 1 (${dimNames[zeroAxis]}=0)`);
  }
}

/** NaN and ±∞ are refused everywhere; −∞ only where a mask may already be in the input (softmax). */
export function checkFinite(fn, name, tensor, allowNegativeInfinity = false) {
  const { data } = tensor;
  for (let i = 0; i < data.length; i++) {
    const value = data[i];
    if (Number.isFinite(value) || (allowNegativeInfinity && value === -Infinity)) continue;
    fail(fn, `${name}[${i}] is ${value}; expected ${allowNegativeInfinity ? 'finite numbers or -Infinity' : 'finite numbers'}`);
  }
}

/** A tensor of any rank ≥ 1 with sizes ≥ 1; returns its shape. */
export function checkAnyTensor(fn, name, tensor, { allowNegativeInfinity = false } = {}) {
  checkTensorStructure(fn, name, tensor);
  if (tensor.shape.length < 1) fail(fn, `${name} has shape ${formatShape(tensor.shape)}; expected a tensor of rank ≥ 1`);
  checkSizes(fn, name, tensor, tensor.shape.map((_, axis) => `axis ${axis}`));
  checkFinite(fn, name, tensor, allowNegativeInfinity);
  return tensor.shape;
}

/** A batch of sequences (B, T, C) (the API has already added B for unbatched input); returns [B, T, C]. */
export function checkSequence(fn, name, x, dimNames = ['B', 'T', 'C']) {
  checkTensorStructure(fn, name, x);
  if (x.shape.length !== 3) fail(fn, `${name} has shape ${formatShape(x.shape)}; expected rank 3 (${dimNames.join(', ')})`);
  checkSizes(fn, name, x, dimNames);
  checkFinite(fn, name, x);
  return x.shape;
}

/**
 * A weight matrix or vector of a given shape. `expected` lists each axis as [label, size], size null
 * when it is free (it is then read from this tensor): [['d_in', 3], ['d_out', null]] reads
 * "expected [d_in=3, d_out]". Returns the shape.
 */
export function checkWeight(fn, name, tensor, expected) {
  checkTensorStructure(fn, name, tensor);
  const { shape } = tensor;
  const wanted = `[${expected.map(([label, size]) => (size === null ? label : `${label}=${size}`)).join(', ')}]`;
  if (shape.length !== expected.length) fail(fn, `${name} has shape ${formatShape(shape)}; expected ${wanted}`);
  checkSizes(fn, name, tensor, expected.map(([label]) => label));
  if (!expected.every(([, size], axis) => size === null || shape[axis] === size)) {
    fail(fn, `${name} has shape ${formatShape(shape)}; expected ${wanted}`);
  }
  checkFinite(fn, name, tensor);
  return shape;
}

/** `weights` is an object holding `required` tensors and possibly `optional` ones, nothing else. */
export function checkWeightsObject(fn, weights, required, optional) {
  if (weights === null || typeof weights !== 'object' || Array.isArray(weights) || ArrayBuffer.isView(weights)) {
    fail(fn, `weights is ${describeValue(weights)}; expected an object {${required.join(', ')}, …}`);
  }
  checkKnownKeys(fn, 'weights', weights, [...required, ...optional]);
}

/** An optional tensor is absent when undefined or null. */
export const isPresent = (tensor) => tensor !== undefined && tensor !== null;

/** The output projection (d_out, d_out) and its bias (d_out) of the multi-head functions; each optional. */
export function checkOutProjection(fn, weights, dOut) {
  if (isPresent(weights.outWeight)) checkWeight(fn, 'weights.outWeight', weights.outWeight, [['d_out', dOut], ['d_out', dOut]]);
  if (isPresent(weights.outBias)) checkWeight(fn, 'weights.outBias', weights.outBias, [['d_out', dOut]]);
}

/** 57.6 GB: decimal units, one decimal, as the C++ core's format_bytes writes estimates. */
function formatBytes(bytes) {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let unit = 0;
  while (bytes >= 1000 && unit < units.length - 1) {
    bytes /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes.toFixed(0)} bytes` : `${bytes.toFixed(1)} ${units[unit]}`;
}

/** Refuses results of more than MEMORY_LIMIT_BYTES; `what` says which sizes ask for them. */
export function checkMemory(fn, floats, what) {
  const bytes = floats * 4;
  if (bytes > MEMORY_LIMIT_BYTES) {
    fail(fn, `${what} needs ${formatBytes(bytes)} for its results and workspace; the memory limit is 2 GiB`);
  }
}

// ---- One check per API function: validates everything, returns the sizes the computation needs ----

export function checkNextTokenPairs(tokens) {
  const fn = 'nextTokenPairs';
  checkTensorStructure(fn, 'tokens', tokens, 'int32');
  const { shape } = tokens;
  if (shape.length !== 2) {
    fail(fn, `tokens has shape ${formatShape(shape)}; expected rank 2 (B, L)`);
  }
  if (shape[0] < 1) fail(fn, `tokens has shape ${formatShape(shape)}; expected every size ≥ 1 (B=${shape[0]})`);
  if (shape[1] < 2) fail(fn, `tokens has shape ${formatShape(shape)}; expected L ≥ 2 tokens per sequence (a context and a target)`);
  return { B: shape[0], L: shape[1] };
}

/** Steps 2–4 (causalAverageLoop, causalAverageMatmul, causalAverageSoftmax) take only x. */
export function checkCausalAverage(fn, x) {
  const [B, T, C] = checkSequence(fn, 'x', x);
  checkMemory(fn, 2 * B * T * C + 3 * T * T, `B=${B}, T=${T}`);
  return { B, T, C };
}

export function checkSoftmax(x, options) {
  const fn = 'softmax';
  const shape = checkAnyTensor(fn, 'x', x, { allowNegativeInfinity: true });
  checkChoice(fn, 'normalization', options.normalization, NORMALIZATIONS);
  checkSoftmaxScale(fn, options.scale);
  checkMemory(fn, sizeOf(shape), `x of shape ${formatShape(shape)}`);
  return { rows: sizeOf(shape) / shape[shape.length - 1], N: shape[shape.length - 1] };
}

export function checkAttentionWithoutWeights(x, options) {
  const fn = 'attentionWithoutWeights';
  const [B, T, C] = checkSequence(fn, 'x', x);
  checkChoice(fn, 'normalization', options.normalization, NORMALIZATIONS);
  checkMemory(fn, 2 * B * T * T + B * T * C, `B=${B}, T=${T}`);
  return { B, T, C };
}

/** How many (…, Tq, Tk) tensors an attention call returns: scores, scaled, weights, masked?, dropped? */
const squareResultCount = (options) => 3 + (options.causal ? 1 : 0) + (options.dropout > 0 ? 1 : 0);

export function checkSelfAttention(x, weights, options) {
  const fn = 'selfAttention';
  const [B, T, dIn] = checkSequence(fn, 'x', x, ['B', 'T', 'd_in']);
  checkWeightsObject(fn, weights, ['query', 'key', 'value'], ['queryBias', 'keyBias', 'valueBias']);
  checkAttentionOptions(fn, options);
  const linear = options.layout === 'linear';
  // The math layout is (d_in, d_out) used as X·W; the Linear layout (d_out, d_in) used as X·Wᵀ.
  const axes = (dOut) => (linear ? [['d_out', dOut], ['d_in', dIn]] : [['d_in', dIn], ['d_out', dOut]]);
  const checkProjection = (name, dOut) => {
    try {
      return checkWeight(fn, name, weights[name.slice('weights.'.length)], axes(dOut));
    } catch (error) {
      // The layout explains an unexpected expectation: [d_out, d_in] instead of the usual [d_in, d_out].
      if (linear && error.message.includes('; expected [')) error.message += " (layout 'linear')";
      throw error;
    }
  };
  const queryShape = checkProjection('weights.query', null);
  const dOut = linear ? queryShape[0] : queryShape[1];
  checkProjection('weights.key', dOut);
  checkProjection('weights.value', dOut);
  for (const bias of ['queryBias', 'keyBias', 'valueBias']) {
    if (isPresent(weights[bias])) checkWeight(fn, `weights.${bias}`, weights[bias], [['d_out', dOut]]);
  }
  checkMemory(fn, 4 * B * T * dOut + squareResultCount(options) * B * T * T, sizesText(B, 1, T, T, false));
  return { B, T, dIn, dOut };
}

export function checkAttentionDropout(weights, options) {
  const fn = 'attentionDropout';
  const shape = checkAnyTensor(fn, 'weights', weights);
  checkDropout(fn, options.dropout);
  checkSeed(fn, options.seed);
  checkMemory(fn, 3 * sizeOf(shape), `weights of shape ${formatShape(shape)}`);
  return { size: sizeOf(shape) };
}

export function checkCompare(actual, expected, options) {
  const fn = 'compare';
  checkAnyTensor(fn, 'actual', actual);
  checkAnyTensor(fn, 'expected', expected);
  if (formatShape(actual.shape) !== formatShape(expected.shape)) {
    fail(fn, `expected has shape ${formatShape(expected.shape)}; expected ${formatShape(actual.shape)} like actual`);
  }
  checkTolerance(fn, 'atol', options.atol);
  checkTolerance(fn, 'rtol', options.rtol);
  return { size: actual.data.length };
}

/** d_out must split evenly into heads of d_head = d_out / H. */
function checkDivisible(fn, dOut, heads) {
  if (dOut % heads !== 0) fail(fn, `d_out=${dOut} is not divisible by heads=${heads}`);
}

/** "B=2, H=4, T=16" or, for cross-attention, "B=2, Tq=3, Tk=5": the sizes that drive the estimate. */
function sizesText(B, H, Tq, Tk, cross) {
  const heads = H > 1 ? `, H=${H}` : '';
  return cross ? `B=${B}${heads}, Tq=${Tq}, Tk=${Tk}` : `B=${B}${heads}, T=${Tq}`;
}

function checkMultiheadMemory(fn, { B, Tq, Tk, dOut, H }, options, cross = false) {
  const floats = B * Tq * dOut * 3 + 2 * B * Tk * dOut + squareResultCount(options) * B * H * Tq * Tk;
  checkMemory(fn, floats, sizesText(B, H, Tq, Tk, cross));
}

const PROJECTION_BIASES = ['queryBias', 'keyBias', 'valueBias'];

export function checkMultiheadAttentionStacked(x, weights, options) {
  const fn = 'multiheadAttentionStacked';
  const [B, T, dIn] = checkSequence(fn, 'x', x, ['B', 'T', 'd_in']);
  checkWeightsObject(fn, weights, ['heads'], ['outWeight', 'outBias']);
  checkAttentionOptions(fn, options);
  const { heads } = weights;
  if (!Array.isArray(heads) || heads.length === 0) {
    fail(fn, `weights.heads is ${describeValue(heads)}; expected an array of H ≥ 1 heads {query, key, value, …}`);
  }
  const H = heads.length;
  if (options.heads !== H) fail(fn, `options.heads=${describeValue(options.heads)}; expected ${H}, the length of weights.heads`);
  let dHead = null;
  heads.forEach((head, h) => {
    const name = `weights.heads[${h}]`;
    if (head === null || typeof head !== 'object' || Array.isArray(head)) {
      fail(fn, `${name} is ${describeValue(head)}; expected an object {query, key, value, …}`);
    }
    checkKnownKeys(fn, name, head, ['query', 'key', 'value', ...PROJECTION_BIASES]);
    dHead = checkWeight(fn, `${name}.query`, head.query, [['d_in', dIn], ['d_head', dHead]])[1];
    checkWeight(fn, `${name}.key`, head.key, [['d_in', dIn], ['d_head', dHead]]);
    checkWeight(fn, `${name}.value`, head.value, [['d_in', dIn], ['d_head', dHead]]);
    for (const bias of PROJECTION_BIASES) {
      if (isPresent(head[bias])) checkWeight(fn, `${name}.${bias}`, head[bias], [['d_head', dHead]]);
    }
  });
  const dOut = H * dHead;
  checkOutProjection(fn, weights, dOut);
  checkMultiheadMemory(fn, { B, Tq: T, Tk: T, dOut, H }, options);
  return { B, T, dIn, dOut, H, dHead };
}

export function checkMultiheadAttentionSplit(x, weights, options) {
  const fn = 'multiheadAttentionSplit';
  const [B, T, dIn] = checkSequence(fn, 'x', x, ['B', 'T', 'd_in']);
  checkWeightsObject(fn, weights, ['query', 'key', 'value'], [...PROJECTION_BIASES, 'outWeight', 'outBias']);
  checkAttentionOptions(fn, options);
  const dOut = checkWeight(fn, 'weights.query', weights.query, [['d_in', dIn], ['d_out', null]])[1];
  checkWeight(fn, 'weights.key', weights.key, [['d_in', dIn], ['d_out', dOut]]);
  checkWeight(fn, 'weights.value', weights.value, [['d_in', dIn], ['d_out', dOut]]);
  for (const bias of PROJECTION_BIASES) {
    if (isPresent(weights[bias])) checkWeight(fn, `weights.${bias}`, weights[bias], [['d_out', dOut]]);
  }
  checkOutProjection(fn, weights, dOut);
  const H = options.heads;
  checkDivisible(fn, dOut, H);
  checkMultiheadMemory(fn, { B, Tq: T, Tk: T, dOut, H }, options);
  return { B, T, dIn, dOut, H, dHead: dOut / H };
}

export function checkMultiheadAttentionFused(x, weights, options) {
  const fn = 'multiheadAttentionFused';
  const [B, T, dIn] = checkSequence(fn, 'x', x, ['B', 'T', 'd_in']);
  checkWeightsObject(fn, weights, ['inProjection'], ['inBias', 'outWeight', 'outBias']);
  checkAttentionOptions(fn, options);
  checkTensorStructure(fn, 'weights.inProjection', weights.inProjection);
  const { shape: inShape } = weights.inProjection;
  const width = inShape.length === 2 && inShape[0] === dIn && inShape[1] % 3 === 0 ? inShape[1] : -1;
  checkWeight(fn, 'weights.inProjection', weights.inProjection, [['d_in', dIn], ['3·d_out', width < 0 ? null : width]]);
  if (width < 0) {
    fail(fn, `weights.inProjection has shape ${formatShape(weights.inProjection.shape)}; expected [d_in=${dIn}, 3·d_out] ([Wq | Wk | Wv] side by side)`);
  }
  const dOut = width / 3;
  if (isPresent(weights.inBias)) checkWeight(fn, 'weights.inBias', weights.inBias, [['3·d_out', width]]);
  checkOutProjection(fn, weights, dOut);
  const H = options.heads;
  checkDivisible(fn, dOut, H);
  checkMultiheadMemory(fn, { B, Tq: T, Tk: T, dOut, H }, options);
  return { B, T, dIn, dOut, H, dHead: dOut / H };
}

export function checkCrossAttention(xQuery, xContext, weights, options) {
  const fn = 'crossAttention';
  const [B, Tq, dQuery] = checkSequence(fn, 'xQuery', xQuery, ['B', 'Tq', 'd_q']);
  const [, Tk, dContext] = checkSequence(fn, 'xContext', xContext, ['B', 'Tk', 'd_kv']);
  if (xContext.shape[0] !== B) {
    fail(fn, `xContext has shape ${formatShape(xContext.shape)}; expected [B=${B}, Tk, d_kv] (the batch size of xQuery)`);
  }
  checkWeightsObject(fn, weights, ['query', 'key', 'value'], [...PROJECTION_BIASES, 'outWeight', 'outBias']);
  checkAttentionOptions(fn, options);
  const dOut = checkWeight(fn, 'weights.query', weights.query, [['d_q', dQuery], ['d_out', null]])[1];
  checkWeight(fn, 'weights.key', weights.key, [['d_kv', dContext], ['d_out', dOut]]);
  checkWeight(fn, 'weights.value', weights.value, [['d_kv', dContext], ['d_out', dOut]]);
  for (const bias of PROJECTION_BIASES) {
    if (isPresent(weights[bias])) checkWeight(fn, `weights.${bias}`, weights[bias], [['d_out', dOut]]);
  }
  checkOutProjection(fn, weights, dOut);
  const H = options.heads;
  checkDivisible(fn, dOut, H);
  checkMultiheadMemory(fn, { B, Tq, Tk, dOut, H }, options, true);
  return { B, Tq, Tk, dQuery, dContext, dOut, H, dHead: dOut / H };
}

/** matmul: a (M, K) or (B, M, K); b (K, N), or (N, K) with transposeB. */
export function checkMatmul(a, b, options) {
  const fn = 'matmul';
  checkTensorStructure(fn, 'a', a);
  if (a.shape.length !== 2 && a.shape.length !== 3) fail(fn, `a has shape ${formatShape(a.shape)}; expected (M, K) or (B, M, K)`);
  const aAxes = a.shape.length === 3 ? ['B', 'M', 'K'] : ['M', 'K'];
  checkSizes(fn, 'a', a, aAxes);
  checkFinite(fn, 'a', a);
  checkBoolean(fn, 'transposeB', options.transposeB);
  const K = a.shape[a.shape.length - 1];
  const bShape = checkWeight(fn, 'b', b, options.transposeB ? [['N', null], ['K', K]] : [['K', K], ['N', null]]);
  const N = options.transposeB ? bShape[0] : bShape[1];
  const batch = a.shape.length === 3 ? a.shape[0] : 1;
  const M = a.shape[a.shape.length - 2];
  checkMemory(fn, batch * M * N, `M=${M}, N=${N}`);
  return { batch, M, K, N };
}
