// A call's sizes, work and GPU footprint, read from its registry entry (registry.js: `shapes`, `sizes`, `work`,
// `gpuFootprint`, `stages`): what the planner's crossovers, WebGPU's supportsOp and the worker pool weigh. Plain
// data in, numbers out; no function is named here.
import { ENTRIES } from './registry.js';

const product = (shape) => shape.reduce((total, size) => total * size, 1);

/** An entry's planner shapes as [{path, axes, arg}]: its `shapes`, or its first argument. */
function shapePaths(entry) {
  return (entry.shapes ?? [entry.args[0].name]).map((shape) => {
    const path = typeof shape === 'string' ? shape : shape.path;
    const [name, ...keys] = path.split('.');
    const arg = entry.args.find((candidate) => candidate.name === name);
    const axes = typeof shape === 'string' ? (keys.length ? arg.shapes[keys.join('.')] : arg.axes) : shape.axes;
    return { name, keys, axes, arg };
  });
}

/**
 * The tensor shapes the crossovers and WebGPU's supportsOp look at, as the function's registry entry lists
 * them (`shapes`; its first argument when it lists none). `lenient`: a tensor that is not there gives no shape
 * (the `intermediates` default reads the sequences before any check); otherwise it throws a TypeError.
 * @param {string} fn @param {any[]} args @returns {number[][]}
 */
export function shapesOf(fn, args, { lenient = false } = {}) {
  const entry = ENTRIES[fn];
  return shapePaths(entry).map(({ name, keys }) => {
    try {
      let value = args[entry.args.findIndex((arg) => arg.name === name)];
      for (const key of keys) value = key.endsWith('[]') ? value[key.slice(0, -2)][0] : value[key];
      return value.shape;
    } catch (error) {
      if (lenient) return undefined;
      throw error;
    }
  });
}

/** Names each axis of one shape (see the registry's `shapes`) in `named`, where not named already. */
function nameAxes(named, shape, axes, transposed, sequence) {
  if (!Array.isArray(shape)) return;
  if (!axes) {
    named.size ??= product(shape);
    return;
  }
  let read = transposed && axes.length === 2 ? [...axes].reverse() : axes;
  if (sequence && shape.length === read.length - 1) {
    named[read[0]] ??= 1; // a sequence given without B (a direct call's (M, K))
    read = read.slice(1);
  }
  // a leading '…name' is every axis before the named ones: the others count from the end
  const leading = read[0].startsWith('…');
  const lead = leading ? shape.length - (read.length - 1) : 0;
  read.forEach((axis, a) => {
    if (leading && a === 0) {
      named[axis.slice(1)] ??= product(shape.slice(0, lead));
      return;
    }
    const size = shape[leading ? lead + a - 1 : a];
    const [, times, name] = axis.match(/^(\d+)·(.+)$/) ?? [null, 1, axis];
    named[name] ??= size / Number(times);
  });
}

/** A registry size source: an axis name, 'options.<name>', a number, {max}, {product} or {quotient}. */
function sizeFrom(source, named, options) {
  if (typeof source === 'number') return source;
  if (typeof source === 'string') return source.startsWith('options.') ? options[source.slice(8)] : named[source];
  const [kind, [a, b]] = Object.entries(source)[0];
  const [x, y] = [sizeFrom(a, named, options), sizeFrom(b, named, options)];
  return kind === 'max' ? Math.max(x, y) : kind === 'product' ? x * y : x / y;
}

/**
 * A call's named sizes from its shapes (see shapesOf): every axis its entry's shapes name, then the entry's
 * `sizes` over them, and `kept` (0 when options.intermediates is false: no (…, Tq, Tk) stage is held).
 * @param {string} fn @param {number[][]} shapes @param {object} options @returns {Record<string, number>}
 */
export function sizesOf(fn, shapes, options = {}) {
  const entry = ENTRIES[fn];
  const named = {};
  shapePaths(entry).forEach(({ axes, arg }, i) => {
    const transposed = Object.entries(arg.transposedBy ?? {}).some(([option, value]) => options[option] === value);
    nameAxes(named, shapes[i], axes, transposed, arg.kind === 'sequence');
  });
  for (const [name, source] of Object.entries(entry.sizes ?? {})) named[name] = sizeFrom(source, named, options);
  named.kept = options.intermediates === false ? 0 : 1;
  return named;
}

/** Σ coefficient·Π sizes over registry terms (a missing size makes the sum NaN, as unchecked arguments may). */
export function termsOf(terms, sizes) {
  return terms.reduce((sum, [coefficient, ...names]) => sum + names.reduce((total, name) => total * sizes[name], coefficient), 0);
}

/**
 * Multiply-adds of a call (its entry's `work`; 0 without), to compare with the GPU crossover: the GPU pays off
 * once a call does as much work as an n×n×n GEMM at the crossover n.
 */
export function workOf(fn, shapes, options = {}) {
  const { work } = ENTRIES[fn];
  return work ? termsOf(work, sizesOf(fn, shapes, options)) : 0;
}

/**
 * The largest GPU buffer (in floats) a call needs, and how many matrices one dispatch batches (its entry's
 * `gpuFootprint`): what the webgpu backend's supportsOp holds against the device's limits.
 * @returns {{largest: number, matrices: number, headDim?: number} | null}
 */
export function gpuFootprint(fn, shapes, options = {}) {
  const footprint = ENTRIES[fn].gpuFootprint;
  if (!footprint) return null;
  const sizes = sizesOf(fn, shapes, options);
  const result = {
    largest: Math.max(...footprint.largest.map((term) => termsOf([term], sizes))),
    matrices: termsOf(footprint.matrices, sizes),
  };
  if (footprint.headDim) result.headDim = sizes[footprint.headDim];
  return result;
}

/**
 * The sizes of a multi-head call from its (normalised) arguments, without checking them; throws a
 * TypeError when they are malformed (the backend's checks then say why).
 * @returns {{B: number, Tq: number, Tk: number, dQuery: number, dContext: number, dOut: number, H: number, outWeight: boolean}}
 */
export function multiheadSizes(fn, args) {
  const options = args[args.length - 1];
  const weights = args[args.length - 2];
  const { B, Tq, Tk, dQuery, dContext, dOut } = sizesOf(fn, shapesOf(fn, args), options);
  const sizes = { B, Tq, Tk, dQuery, dContext, dOut, H: options.heads, outWeight: Boolean(weights.outWeight) };
  if (!Object.values(sizes).every((v) => typeof v === 'boolean' || (Number.isInteger(v) && v > 0))) {
    throw new TypeError('unsized');
  }
  return sizes;
}
