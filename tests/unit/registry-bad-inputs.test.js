// Both languages reject the same inputs in the same words. For every registry function, bad inputs are derived
// from its entry's rules alone — each tensor argument's rank and named axes (an axis that must agree with an
// earlier one), a size of 0, a NaN, each option's type, range and choices — and given straight to the JS
// reference (reference/checks.js) and to each WASM build (the binding and the C++ core's checks, which read the
// same rules from the generated header): each must throw, and with the same message. A new function is covered
// by its registry entry; nothing here names one.
import { describe, expect, test } from 'vitest';
import { REGISTRY } from '../../web/src/core/registry.js';
import { createReferenceBackend } from '../../web/src/core/reference/index.js';
import { backendFor, BUILDS } from './wasm-helpers.js';

// A size for every axis name the registry uses; distinct, so an axis given another's size is caught.
const SIZES = { B: 2, T: 3, Tq: 3, Tk: 4, L: 4, C: 3, d_in: 3, d_q: 3, d_kv: 5, d_out: 4, d_head: 2, d_xv: 2, M: 2, K: 3, N: 2 };
const HEADS = 2; // the stacked form's heads: d_out = HEADS · d_head
const ANY_SHAPE = [2, 3, 4]; // a 'tensor' argument without axes (softmax's x, sdpa's q, k and v)

const sizeOf = (axis) => {
  const [, factor, name] = /^(?:(\d+)·)?(.+)$/.exec(axis);
  return (factor ? Number(factor) : 1) * SIZES[name];
};
const shapeOf = (axes) => axes.map(sizeOf);
const tensorOf = (shape, dtype = 'float32') => {
  const size = shape.reduce((a, b) => a * b, 1);
  const data = dtype === 'int32' ? new Int32Array(size) : new Float32Array(size);
  for (let i = 0; i < size; i += 1) data[i] = dtype === 'int32' ? i % 3 : Math.sin(0.37 * i + shape.length);
  return { data, shape };
};

/** Valid arguments of an entry (required weights only), with complete options (the reference takes no defaults). */
function validCall(entry) {
  const args = entry.args.map((arg) => {
    if (arg.kind !== 'weights') return tensorOf(arg.axes ? shapeOf(arg.axes) : ANY_SHAPE, arg.kind === 'tokens' ? 'int32' : 'float32');
    const weights = {};
    for (const key of arg.keys.filter((k) => !k.endsWith('Bias') && k !== 'outWeight')) {
      if (key === 'heads') {
        const head = Object.fromEntries(['query', 'key', 'value'].map((name) => [name, tensorOf(shapeOf(arg.shapes[`heads[].${name}`]))]));
        weights.heads = Array.from({ length: HEADS }, () => head);
      } else {
        weights[key] = tensorOf(shapeOf(arg.shapes[key]));
      }
    }
    return weights;
  });
  if (!entry.options) return args;
  const options = {};
  for (const [name, spec] of Object.entries(entry.options)) {
    options[name] = spec.defaultFrom === 'heads' ? HEADS : spec.defaultFrom === 'planner' ? true : spec.default;
  }
  return [...args, options];
}

/** [what is wrong, arguments]: every bad input the entry's rules imply. */
function badCalls(entry) {
  const valid = validCall(entry);
  const calls = [];
  const withArgument = (index, value) => valid.map((arg, i) => (i === index ? value : arg));
  const seen = new Set();
  entry.args.forEach((arg, index) => {
    if (arg.kind === 'weights') {
      for (const [key, tensor] of Object.entries(valid[index])) {
        if (key === 'heads') continue;
        const axes = arg.shapes[key];
        calls.push([`${arg.name}.${key} of rank ${axes.length + 1}`, withArgument(index, { ...valid[index], [key]: tensorOf([1, ...tensor.shape]) })]);
        axes.forEach((axis, a) => {
          const shape = tensor.shape.map((size, i) => (i === a ? size + 1 : size));
          calls.push([`${arg.name}.${key}'s ${axis} off by one`, withArgument(index, { ...valid[index], [key]: tensorOf(shape) })]);
        });
      }
      return;
    }
    const tensor = valid[index];
    const dtype = arg.kind === 'tokens' ? 'int32' : 'float32';
    if (arg.axes) calls.push([`${arg.name} of rank ${tensor.shape.length + 1}`, withArgument(index, tensorOf([1, ...tensor.shape], dtype))]);
    calls.push([`${arg.name} with a size of 0`, withArgument(index, tensorOf(tensor.shape.map((s, i) => (i === tensor.shape.length - 1 ? 0 : s)), dtype))]);
    (arg.axes ?? []).forEach((axis, a) => {
      if (seen.has(axis)) {
        calls.push([`${arg.name}'s ${axis} unlike the earlier one`, withArgument(index, tensorOf(tensor.shape.map((s, i) => (i === a ? s + 1 : s)), dtype))]);
      }
      seen.add(axis);
    });
    if (dtype === 'float32' && entry.name !== 'compare') {
      const data = tensor.data.slice();
      data[1] = Number.NaN;
      calls.push([`${arg.name} holding a NaN`, withArgument(index, { data, shape: tensor.shape })]);
    }
  });
  const optionsIndex = entry.args.length;
  for (const [name, spec] of Object.entries(entry.options ?? {})) {
    const withOption = (value) => withArgument(optionsIndex, { ...valid[optionsIndex], [name]: value });
    if (spec.type === 'boolean') calls.push([`options.${name} given as 1`, withOption(1)]);
    if (spec.type === 'choice') calls.push([`options.${name} not one of its choices`, withOption('nope')]);
    if (spec.type === 'number' || spec.type === 'integer') {
      // heads becomes a C++ int in the binding, which refuses a fraction or NaN in its own words before the core's
      // check sees it (wasm-errors.test.js pins them); through the API the JS check answers first.
      const crossesAsInt = name === 'heads';
      if (!crossesAsInt) calls.push([`options.${name} NaN`, withOption(Number.NaN)]);
      if (spec.min !== undefined) calls.push([`options.${name} below its range`, withOption(spec.minExclusive ? spec.min : spec.min - 1)]);
      if (spec.max !== undefined) calls.push([`options.${name} above its range`, withOption(spec.maxExclusive ? spec.max : spec.max + 1)]);
      if (spec.type === 'integer' && !crossesAsInt) calls.push([`options.${name} a fraction`, withOption(1.5)]);
    }
  }
  return calls;
}

const messageOf = (call) => {
  try {
    call();
  } catch (error) {
    return error instanceof Error ? error.message : `a thrown ${typeof error}: ${String(error)}`;
  }
  return 'no error';
};

const reference = createReferenceBackend();

describe.each(BUILDS)('wasm-%s and the JS reference', (build) => {
  for (const entry of REGISTRY) {
    test(`${entry.name}: every bad input its registry entry implies is refused in the same words`, async () => {
      const wasm = await backendFor(build);
      const calls = badCalls(entry);
      expect(calls.length).toBeGreaterThan(1);
      const differing = [];
      for (const [what, args] of calls) {
        const js = messageOf(() => reference[entry.name](...args));
        const cpp = messageOf(() => wasm[entry.name](...args));
        expect(js, `${entry.name}, ${what}: the JS reference accepted it`).not.toBe('no error');
        if (js !== cpp) differing.push(`${what}:\n  js:   ${js}\n  wasm: ${cpp}`);
      }
      expect(differing.join('\n')).toBe('');
      // The module keeps working after every refusal.
      expect(messageOf(() => wasm[entry.name](...validCall(entry)))).toBe('no error');
    });
  }
});
