// The pieces every check in checks.js is built from (the C++ core's check_helpers): option values,
// tensor ranks, sizes, shapes and values, the memory limit. Each throws an Error whose message reads
// "<function>: <argument> <what it is>; expected <what it should be>", in the C++ core's words.
// Every failure is an ApiError ({fn, argument, value, expected, kind}; registry-errors.js).
import { apiChecked } from '../api-checked.js';
import { checkTensorStructure, describeValue, formatShape } from '../tensor.js';
import { ENTRIES } from '../registry.js';
import { checkOption, MEMORY_LIMIT_BYTES } from '../registry-checks.js';
import { fail } from '../registry-errors.js';

export { checkMemory, MEMORY_LIMIT_BYTES } from '../registry-checks.js';
export { fail } from '../registry-errors.js';

export const NORMALIZATIONS = ['stable', 'naive', 'sum'];
export const MASK_MODES = ['neg_inf', 'renormalize', 'zero'];
export const LAYOUTS = ['matrix', 'linear'];


// ---- Options -------------------------------------------------------------------------------------

/** `object` may only hold the keys in `allowed` (a typo must not be silently ignored). */
export function checkKnownKeys(fn, name, object, allowed) {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) fail(fn, 'unknown', name, key, allowed.join(', '));
  }
}

// The option checks by name, for the backends' own checks; each applies the registry's spec.
const ATTENTION = ENTRIES.multiheadAttentionSplit.options;
const spec = (fnEntry, name) => ENTRIES[fnEntry].options[name];
export const checkChoice = (fn, name, value, choices) => checkOption(fn, name, { type: 'choice', choices }, value);
export const checkBoolean = (fn, name, value) => checkOption(fn, name, { type: 'boolean' }, value);
export const checkDropout = (fn, p) => checkOption(fn, 'dropout', ATTENTION.dropout, p);
export const checkSeed = (fn, seed) => checkOption(fn, 'seed', ATTENTION.seed, seed);
export const checkDropoutRng = (fn, rng) => checkOption(fn, 'dropoutRng', ATTENTION.dropoutRng, rng);
const checkHeads = (fn, heads) => checkOption(fn, 'heads', ATTENTION.heads, heads);
export const checkSoftmaxScale = (fn, scale) => checkOption(fn, 'scale', spec('softmax', 'scale'), scale);
export const checkTolerance = (fn, name, value) => checkOption(fn, name, spec('compare', name), value);

/** The options every attention function shares (steps 6–11), as the registry declares them for `fn`. */
export function checkAttentionOptions(fn, options) {
  for (const [name, optionSpec] of Object.entries(ENTRIES[fn].options)) {
    if (name in options && optionSpec.defaultFrom !== 'heads') checkOption(fn, name, optionSpec, options[name]);
  }
  if ('heads' in options) checkHeads(fn, options.heads);
}

// ---- Tensors -------------------------------------------------------------------------------------

function checkSizes(fn, name, tensor, dimNames) {
  const zeroAxis = tensor.shape.indexOf(0);
  if (zeroAxis >= 0) {
    fail(fn, 'shape', name, tensor.shape, `every size ≥ 1 (${dimNames[zeroAxis]}=0)`);
  }
}

/** NaN and ±∞ are refused everywhere; −∞ only where a mask may already be in the input (softmax). */
/**
 * Whether every value is finite, fast: v·0 is 0 for finite v and NaN for ±∞ and NaN, so four running
 * sums of v·0 stay 0 exactly when all are. (Number.isFinite per value is 3-4× slower on the millions of
 * weights a threaded call checks on the main thread before its workers start.)
 */
export function allFinite(data) {
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

/**
 * A tensor's values are finite (or −∞ where allowed). Scanned once per call: inside the API's call of `fn`
 * (api-checked.js) a backend's own check of `fn`, where it still runs one, does not read the values again.
 */
export function checkFinite(fn, name, tensor, allowNegativeInfinity = false) {
  const { data } = tensor;
  if (apiChecked(fn) || allFinite(data)) return;
  for (let i = 0; i < data.length; i++) {
    const value = data[i];
    if (Number.isFinite(value) || (allowNegativeInfinity && value === -Infinity)) continue;
    fail(fn, 'value', `${name}[${i}]`, value, allowNegativeInfinity ? 'finite numbers or -Infinity' : 'finite numbers');
  }
}

/** A tensor of any rank ≥ 1 with sizes ≥ 1; returns its shape. */
export function checkAnyTensor(fn, name, tensor, { allowNegativeInfinity = false } = {}) {
  checkTensorStructure(fn, name, tensor);
  if (tensor.shape.length < 1) fail(fn, 'shape', name, tensor.shape, 'a tensor of rank ≥ 1');
  checkSizes(fn, name, tensor, tensor.shape.map((_, axis) => `axis ${axis}`));
  checkFinite(fn, name, tensor, allowNegativeInfinity);
  return tensor.shape;
}

/** A tensor of the rank of `dimNames`, every size ≥ 1 and every value finite: a batch of sequences (B, T, C). */
function checkSequence(fn, name, x, dimNames) {
  checkTensorStructure(fn, name, x);
  if (x.shape.length !== dimNames.length) fail(fn, 'shape', name, x.shape, `rank ${dimNames.length} (${dimNames.join(', ')})`);
  checkSizes(fn, name, x, dimNames);
  checkFinite(fn, name, x);
  return x.shape;
}

/**
 * A weight matrix or vector of a given shape. `expected` lists each axis as [label, size], size null
 * when it is free (it is then read from this tensor): [['d_in', 3], ['d_out', null]] reads
 * "expected [d_in=3, d_out]". Returns the shape.
 */
function checkWeight(fn, name, tensor, expected) {
  checkTensorStructure(fn, name, tensor);
  const { shape } = tensor;
  // The expectation's words are built only for a message: this runs for every weight of every call.
  const wanted = () => `[${expected.map(([label, size]) => (size === null ? label : `${label}=${size}`)).join(', ')}]`;
  if (shape.length !== expected.length) fail(fn, 'shape', name, shape, wanted());
  if (shape.includes(0)) checkSizes(fn, name, tensor, expected.map(([label]) => label));
  for (let axis = 0; axis < shape.length; axis++) {
    const size = expected[axis][1];
    if (size !== null && shape[axis] !== size) fail(fn, 'shape', name, shape, wanted());
  }
  checkFinite(fn, name, tensor);
  return shape;
}

/** `weights` is an object holding `required` tensors and possibly `optional` ones, nothing else. */
function checkWeightsObject(fn, weights, required, optional) {
  if (weights === null || typeof weights !== 'object' || Array.isArray(weights) || ArrayBuffer.isView(weights)) {
    fail(fn, 'type', 'weights', weights, `an object {${required.join(', ')}, …}`);
  }
  checkKnownKeys(fn, 'weights', weights, [...required, ...optional]);
}

/** An optional tensor is absent when undefined or null. */
export const isPresent = (tensor) => tensor !== undefined && tensor !== null;

/**
 * The registry's named axes of one call (registry.js: args' `axes` and `note`, the weights' `keys` and
 * `shapes`, a tensor option's `axes`, `note` and `weights`), as the C++ core's AxisSizes
 * (cpp/attention/registry_rules.h): a name takes its size where first seen, in call order, and every later
 * axis of that name must agree ("expected [d_in=3, d_out]", "expected [B=2, Tk, d_kv] (the batch size of xQuery)").
 */
export class AxisSizes {
  constructor(fn) {
    this.fn = fn;
    this.sizes = new Map();
    this.args = ENTRIES[fn].args;
  }

  /**
   * A sequence argument (B, T, C) by its registry axes; `unbatched`: given without its batch axis (matmul's
   * a (M, K), called on a backend directly; the API adds B). Returns its shape.
   */
  sequence(name, x, { unbatched = false } = {}) {
    const { axes: all, note } = this.args.find((arg) => arg.name === name);
    const axes = unbatched ? all.slice(1) : all;
    return this.agree(name, checkSequence(this.fn, name, x, axes), axes, note);
  }

  /** A tensor option of rank 3 by its registry axes (crossAttention's options.xValue); returns its shape. */
  option(name, x) {
    const { axes, note } = ENTRIES[this.fn].options[name];
    const shown = `options.${name}`;
    return this.agree(shown, checkSequence(this.fn, shown, x, axes), axes, note);
  }

  /**
   * The weights object: an object holding the registry's keys and nothing else, those ending in Bias and
   * outWeight optional ("expected an object {query, key, value, …}").
   */
  weightsObject(weights) {
    const { keys } = this.args.find((arg) => arg.kind === 'weights');
    checkWeightsObject(this.fn, weights, keys.filter((key) => !key.endsWith('Bias') && !key.startsWith('out')),
      keys.filter((key) => key.endsWith('Bias') || key.startsWith('out')));
  }

  /**
   * weights.<key> by the registry's shapes ('heads[].query' for every head's); `when` names the tensor option
   * whose presence gives it other axes (crossAttention's xValue: weights.value (d_xv, d_out)); `transposed`
   * reads a 2-D weight's axes reversed. Returns its shape.
   */
  weight(key, tensor, { shown = `weights.${key}`, transposed = false, when = null } = {}) {
    const shapes = when ? ENTRIES[this.fn].options[when].weights : this.args.find((arg) => arg.kind === 'weights').shapes;
    return this.matrix(shown, tensor, shapes[key], transposed);
  }

  /** A tensor argument of fixed rank by its registry axes (matmul's b); `transposed` as for weight. */
  tensor(name, tensor, { transposed = false } = {}) {
    return this.matrix(name, tensor, this.args.find((arg) => arg.name === name).axes, transposed);
  }

  matrix(shown, tensor, named, transposed) {
    const axes = transposed ? [...named].reverse() : named;
    const shape = checkWeight(this.fn, shown, tensor, axes.map((axis) => [axis, this.sizes.get(axis) ?? null]));
    this.bindAll(axes, shape);
    return shape;
  }

  /** Each axis of `shape` against the sizes named before it; then its new names take their sizes. */
  agree(shown, shape, axes, note) {
    if (axes.some((axis, a) => this.sizes.has(axis) && this.sizes.get(axis) !== shape[a])) {
      const expected = `[${axes.map((axis) => (this.sizes.has(axis) ? `${axis}=${this.sizes.get(axis)}` : axis)).join(', ')}]`;
      fail(this.fn, 'shape', shown, shape, note ? `${expected} (${note})` : expected);
    }
    this.bindAll(axes, shape);
    return shape;
  }

  bindAll(axes, shape) {
    axes.forEach((axis, a) => {
      if (!this.sizes.has(axis)) this.sizes.set(axis, shape[a]);
    });
  }

  /** Names a size the table derives no rule for (the stacked form's d_out = H·d_head). */
  bind(axis, size) {
    this.sizes.set(axis, size);
  }

  get(axis) {
    return this.sizes.get(axis);
  }
}

/**
 * Every option | axis rule of `fn` (the registry's `divides`, e.g. heads | d_out) for the option's `value`,
 * over the named `sizes` ({d_out: 10}): the C++ core's AxisSizes::check_divides.
 */
export function checkDivides(fn, option, value, sizes) {
  const { divides } = ENTRIES[fn].options[option] ?? {};
  if (divides === undefined || !(value >= 1)) return;
  const size = sizes[divides];
  if (size % value !== 0) {
    fail(fn, 'divisible', `options.${option}`, value, `a divisor of ${divides}=${size}`, { dividend: `${divides}=${size}` });
  }
}
