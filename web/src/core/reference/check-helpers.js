// The pieces every check in checks.js is built from (the C++ core's check_helpers): option values,
// tensor ranks, sizes, shapes and values, the memory limit. Each throws an Error whose message reads
// "<function>: <argument> <what it is>; expected <what it should be>", in the C++ core's words.
import { checkTensorStructure, describeValue, formatShape } from '../tensor.js';

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

export function checkSizes(fn, name, tensor, dimNames) {
  const zeroAxis = tensor.shape.indexOf(0);
  if (zeroAxis >= 0) {
    fail(fn, `${name} has shape ${formatShape(tensor.shape)}; expected every size ≥ 1 (${dimNames[zeroAxis]}=0)`);
  }
}

/** NaN and ±∞ are refused everywhere; −∞ only where a mask may already be in the input (softmax). */
/**
 * Whether every value is finite, fast: v·0 is 0 for finite v and NaN for ±∞ and NaN, so four running
 * sums of v·0 stay 0 exactly when all are. (Number.isFinite per value is 3-4× slower on the millions of
 * weights a threaded call checks on the main thread before its workers start.)
 */
function allFinite(data) {
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  const end = data.length - (data.length % 4);
  let i = 0;
  for (; i < end; i += 4) {
    a += data[i] * 0;
    b += data[i + 1] * 0;
    c += data[i + 2] * 0;
    d += data[i + 3] * 0;
  }
  for (; i < data.length; i++) a += data[i] * 0;
  return a + b + c + d === 0;
}

export function checkFinite(fn, name, tensor, allowNegativeInfinity = false) {
  const { data } = tensor;
  if (allFinite(data)) return;
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

