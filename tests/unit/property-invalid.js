// Random invalid API calls for property.test.js: a random valid call (property-calls.js) with one thing
// broken, as a hostile or careless caller breaks it. Every mutation here makes the call invalid:
//   - a tensor's shape: an entry that is a BigInt, NaN, ±∞, negative, fractional, a string or null; a shape
//     that is not an array (a number, a string, null, an array-like, a typed array); the empty shape;
//   - a tensor's rank (a sequence or a weight given one axis more or fewer), or a weight one row too long;
//   - a tensor's data: the wrong typed array, a plain array, null, a length that disagrees with the shape,
//     a NaN or +∞ among the values (a 2 in a boolean mask); the tensor itself replaced by null, a number,
//     an array or a typed array; isCausal together with an attnMask;
//   - the weights object: not an object, a required key missing, an unknown key;
//   - options: not an object; an unknown name (own keys such as 'constructor' and 'toString' included);
//     a value of the wrong type (a string, a BigInt, null, a boolean for a number, a number for a
//     boolean); out of its range; NaN or ±∞; finite in float64 but not in float32 (1e39, 1e300); a value
//     that rounds onto a bound in float32 (dropout 1 − 2⁻³⁰ → 1, temperature 1e-46 → 0); heads that do not
//     divide d_out; an options argument given to a function that takes none.
// A mutation is data ({kind, path, value…}); applyMutation performs it on a freshly materialised call, so
// each backend gets its own objects.
import fc from 'fast-check';

import { ENTRIES } from '../../web/src/core/registry.js';
import { validCall } from './property-calls.js';

const at = (object, path) => path.reduce((inner, key) => inner[key], object);
const setAt = (object, path, value) => {
  at(object, path.slice(0, -1))[path[path.length - 1]] = value;
};
const sizeOf = (shape) => shape.reduce((a, b) => a * b, 1);

/** The paths ([argument index, key, …]) of every tensor spec ({shape, values}) in a call's JSON args. */
function tensorPaths(args) {
  const paths = [];
  const walk = (value, path) => {
    if (Array.isArray(value)) value.forEach((inner, i) => walk(inner, [...path, i]));
    else if (value !== null && typeof value === 'object') {
      if (Array.isArray(value.shape) && Array.isArray(value.values)) paths.push(path);
      else for (const [key, inner] of Object.entries(value)) walk(inner, [...path, key]);
    }
  };
  args.forEach((arg, i) => walk(arg, [i]));
  return paths;
}

const argKind = (fn, path) => ENTRIES[fn].args[path[0]]?.kind;

/** Entries a shape must never hold. */
const BAD_SHAPE_ENTRIES = [() => 2n, () => NaN, () => Infinity, () => -Infinity, () => -1, () => 1.5, () => '2', () => null,
  () => undefined, () => true, () => 2 ** 53];
/** Shapes that are not arrays, and the empty shape. */
const BAD_SHAPES = [() => 6, () => '2,3', () => null, () => undefined, () => ({ length: 2, 0: 1, 1: 2 }), () => new Int32Array([2, 3]), () => []];
/** Data that is not a Float32Array. */
const BAD_DATA = [(n) => new Float64Array(n), (n) => Array.from({ length: n }, () => 0), (n) => new Int32Array(n), () => null,
  (n) => new Uint8Array(n), () => 'data'];
const UINT8_DATA = 4;
/** Whole tensors that are not tensors. */
const BAD_TENSORS = [() => null, () => 3, () => [1, 2, 3], () => new Float32Array(3), () => ({ shape: [3] }), () => 'x'];
const BAD_OPTION_OBJECTS = [() => 5, () => 'causal', () => [], () => true, () => new Float32Array(1)];
const UNKNOWN_NAMES = ['scal', 'Causal', 'dropoutP', 'constructor', 'toString', 'hasOwnProperty', 'head', ''];

/** Values that break an option of this spec (each one invalid whatever the rest of the call is). */
function badOptionValues(name, spec) {
  const wrongType = [() => '1', () => 1n, () => [], () => ({})];
  switch (spec.type) {
    case 'boolean':
      return [...wrongType, () => 1, () => 0, () => 'true', () => null];
    case 'choice':
      return [...wrongType, () => 'other', () => '', () => null, () => 1, () => spec.choices[0].toUpperCase()];
    case 'integer': {
      const values = [...wrongType, () => 1.5, () => NaN, () => Infinity, () => -Infinity, () => null, () => true, () => spec.min - 1];
      if (spec.max !== undefined) values.push(() => (spec.maxExclusive ? spec.max : spec.max + 1), () => 2 ** 53);
      return values;
    }
    case 'number': {
      const values = [...wrongType, () => NaN, () => Infinity, () => -Infinity, () => true];
      if (!spec.nullable) values.push(() => null);
      if (spec.float32) values.push(() => 1e39, () => -1e300);
      if (spec.min !== undefined) values.push(() => (spec.minExclusive ? spec.min : spec.min - 0.5));
      if (spec.min === 0 && spec.minExclusive && spec.float32) values.push(() => 1e-46); // rounds to 0 in float32
      if (spec.max !== undefined) values.push(() => (spec.maxExclusive ? spec.max : spec.max + 0.5));
      if (spec.max === 1 && spec.maxExclusive && spec.float32) values.push(() => 1 - 2 ** -30, () => 0.99999999999); // round to 1
      return values;
    }
    case 'tensor': // crossAttention's xValue: anything that is not a {data, shape} of the right structure
      return [() => 3, () => 'x', () => [1, 2, 3], () => new Float32Array(3), () => ({ shape: [3] }), () => true];
    default:
      throw new Error(`property-invalid: no bad values for option ${name} of type ${spec.type}`);
  }
}

/** d_out of a multi-head call (the projections' width), or null. */
function outputWidth(fn, args) {
  const weights = args[ENTRIES[fn].args.findIndex((arg) => arg.kind === 'weights')];
  if (!weights) return null;
  if (weights.inProjection) return weights.inProjection.shape[1] / 3;
  if (weights.heads) return weights.heads.length * weights.heads[0].query.shape[1];
  return weights.query.shape[1];
}

/** The mutations possible on one valid call, as fast-check arbitraries of mutation records. */
function mutationsOf({ fn, args }) {
  const entry = ENTRIES[fn];
  const tensors = tensorPaths(args);
  const pick = (list) => fc.constantFrom(...list);
  const index = (list) => fc.nat({ max: list.length - 1 });
  // A mask (scaledDotProductAttention's attnMask) may be a Uint8Array, and may broadcast from the empty shape.
  const isMask = (path) => path.includes('attnMask');
  const allBut = (list, excluded) => fc.constantFrom(...list.map((_, i) => i).filter((i) => !excluded.includes(i)));
  const choices = [
    fc.record({ kind: fc.constant('shape-entry'), path: pick(tensors), make: index(BAD_SHAPE_ENTRIES), at: fc.nat() }),
    pick(tensors).chain((path) => fc.record({
      kind: fc.constant('shape'), path: fc.constant(path), make: isMask(path) ? allBut(BAD_SHAPES, [BAD_SHAPES.length - 1]) : index(BAD_SHAPES),
    })),
    pick(tensors).chain((path) => fc.record({
      kind: fc.constant('data'), path: fc.constant(path), make: isMask(path) ? allBut(BAD_DATA, [UINT8_DATA]) : index(BAD_DATA),
    })),
    fc.record({ kind: fc.constant('length'), path: pick(tensors), extra: fc.constantFrom(-1, 1, 7) }),
    fc.record({ kind: fc.constant('value'), path: pick(tensors), at: fc.nat(), value: fc.constantFrom(NaN, Infinity) }),
    // null is an absent optional weight (a bias), so inside the weights only the other non-tensors.
    pick(tensors).chain((path) => fc.record({
      kind: fc.constant('tensor'), path: fc.constant(path), make: fc.integer({ min: path.length > 1 ? 1 : 0, max: BAD_TENSORS.length - 1 }),
    })),
  ];
  // Ranks and sizes: sequences and weights have a fixed rank and sizes tied to the rest of the call.
  const shaped = tensors.filter((path) => ['sequence', 'weights'].includes(argKind(fn, path))
    || (fn === 'scaledDotProductAttention' && path.length === 1)); // query, key, value: rank ≥ 2, all one rank
  // One axis more (a sequence given unbatched gets two, as one more would batch it) or flattened to rank 1.
  const reshaped = (path, grow) => {
    const { shape } = at(args, path);
    if (!grow) return shape.length > 1 ? [sizeOf(shape)] : [1, 1, ...shape];
    return argKind(fn, path) === 'sequence' && shape.length < 3 ? [1, 1, ...shape] : [1, ...shape];
  };
  if (shaped.length) {
    choices.push(fc.tuple(pick(shaped), fc.boolean()).map(([path, grow]) => ({ kind: 'rank', path, shape: reshaped(path, grow) })));
  }
  const weightTensors = tensors.filter((path) => argKind(fn, path) === 'weights');
  if (weightTensors.length) choices.push(fc.record({ kind: fc.constant('rows'), path: pick(weightTensors) }));
  const weightsIndex = entry.args.findIndex((arg) => arg.kind === 'weights');
  if (weightsIndex >= 0) {
    const present = Object.keys(args[weightsIndex]);
    const required = present.filter((key) => ['query', 'key', 'value', 'inProjection', 'heads'].includes(key));
    choices.push(
      fc.record({ kind: fc.constant('weights'), at: fc.constant(weightsIndex), make: index(BAD_TENSORS) }),
      fc.record({ kind: fc.constant('weights-missing'), at: fc.constant(weightsIndex), key: pick(required) }),
      fc.record({ kind: fc.constant('weights-unknown'), at: fc.constant(weightsIndex), key: pick(['bias', 'Query', 'weight', 'constructor']) }),
    );
  }
  if (entry.options?.attnMask && args[entry.args.length].attnMask) {
    choices.push(fc.record({ kind: fc.constant('causal-with-mask'), at: fc.constant(entry.args.length) }));
  }
  if (entry.options) {
    const at = entry.args.length;
    const names = Object.keys(entry.options).filter((name) => entry.options[name].type !== 'mask');
    choices.push(
      fc.record({ kind: fc.constant('options'), at: fc.constant(at), make: index(BAD_OPTION_OBJECTS) }),
      fc.record({ kind: fc.constant('option-unknown'), at: fc.constant(at), name: pick(UNKNOWN_NAMES) }),
      // Bad option values are the widest family (types, ranges, non-finite, float32 rounding): drawn most.
      {
        weight: 4,
        arbitrary: pick(names).chain((name) => fc.record({
          kind: fc.constant('option'), at: fc.constant(at), name: fc.constant(name), make: index(badOptionValues(name, entry.options[name])),
        })),
      },
    );
    const dOut = outputWidth(fn, args);
    if (entry.options.heads && dOut) choices.push(fc.record({ kind: fc.constant('heads-divisor'), at: fc.constant(at), dOut: fc.constant(dOut) }));
  } else {
    choices.push(fc.record({ kind: fc.constant('arity'), at: fc.constant(entry.args.length), value: fc.constantFrom({}, { causal: true }, 1) }));
  }
  return fc.oneof(...choices);
}

/** One random invalid call: {fn, args (JSON, as validCall's), mutation}. */
export const invalidCall = validCall.chain((call) => mutationsOf(call).map((mutation) => ({ ...call, mutation: { fn: call.fn, ...mutation } })));

/** The tensor at a path, broken as `mutation` says (a new object; the caller's is left alone). */
function applyTensorMutation(tensor, mutation) {
  const { kind } = mutation;
  if (kind === 'shape-entry') {
    const shape = [...tensor.shape];
    shape[mutation.at % shape.length] = BAD_SHAPE_ENTRIES[mutation.make]();
    return { ...tensor, shape };
  }
  if (kind === 'shape') return { ...tensor, shape: BAD_SHAPES[mutation.make]() };
  if (kind === 'data') return { ...tensor, data: BAD_DATA[mutation.make](tensor.data.length) };
  if (kind === 'length') {
    const length = Math.max(0, tensor.data.length + mutation.extra);
    return { ...tensor, data: new Float32Array(length === tensor.data.length ? length + 1 : length) };
  }
  if (kind === 'value') {
    // a boolean mask holds 0 and 1 only: 2 there
    const data = tensor.data.slice();
    data[mutation.at % data.length] = data instanceof Uint8Array ? 2 : mutation.value;
    return { ...tensor, data };
  }
  if (kind === 'tensor') return BAD_TENSORS[mutation.make]();
  if (kind === 'rank') return { ...tensor, shape: [...mutation.shape] };
  if (kind === 'rows') {
    const shape = [tensor.shape[0] + 1, ...tensor.shape.slice(1)];
    return { shape, data: new Float32Array(sizeOf(shape)) };
  }
  throw new Error(`property-invalid: unknown tensor mutation ${kind}`);
}

/** Breaks materialised `args` (a fresh copy, changed in place) as `mutation` says; returns them. */
export function applyMutation(args, mutation) {
  const { kind } = mutation;
  if (mutation.path) {
    setAt(args, mutation.path, applyTensorMutation(at(args, mutation.path), mutation));
  } else if (kind === 'weights') {
    args[mutation.at] = BAD_TENSORS[mutation.make]();
  } else if (kind === 'weights-missing') {
    delete args[mutation.at][mutation.key];
  } else if (kind === 'weights-unknown') {
    args[mutation.at] = { ...args[mutation.at], [mutation.key]: { data: new Float32Array(1), shape: [1] } };
  } else if (kind === 'options') {
    args[mutation.at] = BAD_OPTION_OBJECTS[mutation.make]();
  } else if (kind === 'option-unknown') {
    args[mutation.at] = { ...args[mutation.at], [mutation.name]: 1 };
  } else if (kind === 'option') {
    const value = badOptionValues(mutation.name, ENTRIES[mutation.fn].options[mutation.name])[mutation.make]();
    args[mutation.at] = { ...args[mutation.at], [mutation.name]: value };
  } else if (kind === 'heads-divisor') {
    // d_out + 1 heads never divide d_out.
    args[mutation.at] = { ...args[mutation.at], heads: mutation.dOut + 1 };
  } else if (kind === 'causal-with-mask') {
    args[mutation.at] = { ...args[mutation.at], isCausal: true };
  } else if (kind === 'arity') {
    args[mutation.at] = mutation.value;
  } else {
    throw new Error(`property-invalid: unknown mutation ${kind}`);
  }
  return args;
}
