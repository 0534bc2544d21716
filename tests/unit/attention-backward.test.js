// The JS reference backward of the attention functions: central finite differences in float64 (the
// float64 variant of the same math), float32 against float64, and the multi-head forms against each other.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../web/src/core/random.js';
import { selfAttention } from '../../web/src/core/reference/self-attention.js';
import { multiheadAttentionSplit } from '../../web/src/core/reference/multihead.js';
import { crossAttention } from '../../web/src/core/reference/cross-attention.js';
import * as backward from '../../web/src/core/reference/backward/attention.js';
import { loadFixture } from './fixtures.js';

const { backwardsFloat64: f64 } = backward;

function random(shape, seed, F = Float32Array) {
  const next = mulberry32(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  return { data: F.from({ length: n }, () => Math.fround(next() * 2 - 1)), shape };
}
const as64 = (t) => ({ data: Float64Array.from(t.data), shape: t.shape });
const map = (obj, f) => (obj && obj.data ? f(obj) : Array.isArray(obj) ? obj.map((o) => map(o, f))
  : Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, map(v, f)])));

/** Every float input of a call as [path, tensor] pairs (weights flattened, heads included). */
function leaves(obj, prefix = '') {
  if (obj && obj.data) return [[prefix, obj]];
  return Object.entries(obj).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
}
const pick = (grads, path) => path.split('.').reduce((o, k) => o[k], grads);

/** Central differences of L = Σ forward(args) ⊙ G with respect to every input element, in float64. */
function finiteDifferenceCheck(forward, backwardFn, args, outShape, options, inputNames) {
  const gradOutput = as64(random(outShape, 99));
  const args64 = args.map((a) => map(a, as64));
  const loss = () => forward(...args64, options).reduce((s, v, i) => s + v * gradOutput.data[i], 0);
  const grads = backwardFn(...args64, gradOutput, options);
  const h = 1e-6;
  let worst = 0;
  args64.forEach((arg, index) => {
    for (const [path, t] of leaves(arg, inputNames[index])) {
      const key = path.startsWith('weights.') ? path.slice(8) : path;
      const g = pick(grads, key.replace(/^x$/, inputNames[index]));
      for (let e = 0; e < t.data.length; e++) {
        const keep = t.data[e];
        t.data[e] = keep + h; const up = loss();
        t.data[e] = keep - h; const down = loss();
        t.data[e] = keep;
        const numeric = (up - down) / (2 * h);
        const error = Math.abs(numeric - g.data[e]) / (1e-6 + 1e-6 * Math.abs(numeric));
        worst = Math.max(worst, error);
        if (error > 1) throw new Error(`${path}[${e}]: analytic ${g.data[e]} vs numeric ${numeric}`);
      }
    }
  });
  return worst;
}

const selfWeights = (dIn, dOut, seed, layout = 'matrix') => {
  const shape = layout === 'linear' ? [dOut, dIn] : [dIn, dOut];
  return {
    query: random(shape, seed), key: random(shape, seed + 1), value: random(shape, seed + 2),
    queryBias: random([dOut], seed + 3), keyBias: random([dOut], seed + 4), valueBias: random([dOut], seed + 5),
  };
};

describe('selfAttentionBackward', () => {
  const cases = [
    { name: 'plain', options: {} },
    { name: 'causal neg_inf', options: { causal: true } },
    { name: 'causal renormalize', options: { causal: true, mask: 'renormalize' } },
    { name: 'causal zero (the mistake)', options: { causal: true, mask: 'zero' } },
    { name: 'no scale, temperature 0.5', options: { scale: false, temperature: 0.5 } },
    { name: 'dropout 0.3 seed 7, causal', options: { causal: true, dropout: 0.3, seed: 7 } },
    { name: 'linear layout', options: { layout: 'linear', causal: true } },
  ];
  for (const { name, options } of cases) {
    it(`matches central finite differences in float64: ${name}`, () => {
      const x = random([2, 4, 3], 1);
      const weights = selfWeights(3, 2, 10, options.layout);
      finiteDifferenceCheck(f64.forward.selfAttention, f64.selfAttentionBackward, [x, weights], [2, 4, 2], options, ['x', 'weights']);
    });
    it(`float32 agrees with float64 to 1e-5: ${name}`, () => {
      const x = random([2, 4, 3], 1);
      const weights = selfWeights(3, 2, 10, options.layout);
      const gradOutput = random([2, 4, 2], 99);
      const g32 = backward.selfAttentionBackward(x, weights, gradOutput, options);
      const g64 = f64.selfAttentionBackward(as64(x), map(weights, as64), as64(gradOutput), options);
      for (const key of Object.keys(g64)) {
        g64[key].data.forEach((v, i) => expect(Math.abs(g32[key].data[i] - v)).toBeLessThanOrEqual(1e-5 + 1e-5 * Math.abs(v)));
      }
    });
  }
  it('recomputes the forward exactly as the reference forward does', () => {
    const x = random([2, 5, 3], 1);
    const weights = selfWeights(3, 4, 10);
    const options = { scale: true, temperature: 1, causal: true, mask: 'neg_inf', dropout: 0.2, seed: 3, layout: 'matrix' };
    const reference = selfAttention(x, weights, options).output.data;
    const ours = backward.backwardsFloat64.forward.selfAttention(x, weights, options);
    ours.forEach((v, i) => expect(Math.abs(v - reference[i])).toBeLessThan(1e-6));
  });
  it('names the backward in its errors', () => {
    expect(() => backward.selfAttentionBackward(random([1, 2, 3], 1), selfWeights(3, 2, 1), random([1, 2, 3], 2)))
      .toThrow('selfAttentionBackward: gradOutput has shape [1, 2, 3]; expected [1, 2, 2], the shape of the forward\'s output');
    expect(() => backward.selfAttentionBackward(random([1, 2, 4], 1), selfWeights(3, 2, 1), random([1, 2, 2], 2)))
      .toThrow(/^selfAttentionBackward: weights.query/);
  });
});

const splitWeights = (dIn, dOut, seed) => ({
  ...selfWeights(dIn, dOut, seed), outWeight: random([dOut, dOut], seed + 6), outBias: random([dOut], seed + 7),
});

describe('multi-head and cross-attention backward', () => {
  it('split: finite differences, 2 heads, causal, output projection', () => {
    const options = { heads: 2, causal: true };
    finiteDifferenceCheck(f64.forward.multiheadAttentionSplit, f64.multiheadAttentionSplitBackward,
      [random([2, 3, 3], 1), splitWeights(3, 4, 20)], [2, 3, 4], options, ['x', 'weights']);
  });
  it('cross: finite differences, Tq ≠ Tk, 2 heads, dropout', () => {
    const options = { heads: 2, dropout: 0.25, seed: 5, causal: true };
    const weights = { ...splitWeights(3, 4, 30), key: random([2, 4], 40), value: random([2, 4], 41) };
    finiteDifferenceCheck(f64.forward.crossAttention, f64.crossAttentionBackward,
      [random([2, 3, 3], 1), random([2, 5, 2], 2), weights], [2, 3, 4], options, ['xQuery', 'xContext', 'weights']);
  });
  it('stacked and fused give the split gradients, cut into their own layouts', () => {
    const x = random([2, 4, 3], 1);
    const w = splitWeights(3, 4, 50);
    const gradOutput = random([2, 4, 4], 9);
    const options = { heads: 2, causal: true };
    const split = backward.multiheadAttentionSplitBackward(x, w, gradOutput, options);
    const cols = (t, start, n) => { const [r, c] = t.shape; const d = new Float32Array(r * n); for (let i = 0; i < r; i++) d.set(t.data.subarray(i * c + start, i * c + start + n), i * n); return { data: d, shape: [r, n] }; };
    const heads = [0, 1].map((h) => Object.fromEntries(['query', 'key', 'value'].flatMap((n) => [
      [n, cols(w[n], 2 * h, 2)], [`${n}Bias`, { data: w[`${n}Bias`].data.slice(2 * h, 2 * h + 2), shape: [2] }]])));
    const stacked = backward.multiheadAttentionStackedBackward(x, { heads, outWeight: w.outWeight, outBias: w.outBias }, gradOutput, options);
    expect(Array.from(stacked.x.data)).toEqual(Array.from(split.x.data));
    expect(Array.from(stacked.heads[1].key.data)).toEqual(Array.from(cols(split.key, 2, 2).data));
    const cat = (a, b, c) => { const d = new Float32Array(3 * 12); for (let i = 0; i < 3; i++) { d.set(a.data.subarray(i * 4, i * 4 + 4), i * 12); d.set(b.data.subarray(i * 4, i * 4 + 4), i * 12 + 4); d.set(c.data.subarray(i * 4, i * 4 + 4), i * 12 + 8); } return { data: d, shape: [3, 12] }; };
    const fused = backward.multiheadAttentionFusedBackward(x, {
      inProjection: cat(w.query, w.key, w.value),
      inBias: { data: Float32Array.from([...w.queryBias.data, ...w.keyBias.data, ...w.valueBias.data]), shape: [12] },
      outWeight: w.outWeight, outBias: w.outBias,
    }, gradOutput, options);
    expect(Array.from(fused.x.data)).toEqual(Array.from(split.x.data));
    expect(Array.from(fused.inProjection.data)).toEqual(Array.from(cat(split.query, split.key, split.value).data));
    expect(Array.from(fused.outWeight.data)).toEqual(Array.from(split.outWeight.data));
  });
  it('the recomputed multi-head forward matches the reference forward', () => {
    const x = random([2, 4, 3], 1);
    const w = splitWeights(3, 4, 50);
    const opts = { heads: 2, causal: true, scale: true, temperature: 1, mask: 'neg_inf', dropout: 0, seed: 0 };
    const ref = multiheadAttentionSplit(x, w, opts).output.data;
    backward.backwardsFloat64.forward.multiheadAttentionSplit(x, w, opts).forEach((v, i) => expect(Math.abs(v - ref[i])).toBeLessThan(1e-6));
    const wc = { ...w, key: random([2, 4], 40), value: random([2, 4], 41) };
    const xc = random([2, 5, 2], 2);
    const refc = crossAttention(x, xc, wc, opts).output.data;
    backward.backwardsFloat64.forward.crossAttention(x, xc, wc, opts).forEach((v, i) => expect(Math.abs(v - refc[i])).toBeLessThan(1e-6));
  });
});

// The torch 1.13 autograd fixtures (tests/fixtures/<fn>Backward.json, tests/fixtures/README.md "Gradients").
const FIXTURE_FUNCTIONS = ['selfAttentionBackward', 'multiheadAttentionSplitBackward', 'multiheadAttentionStackedBackward',
  'multiheadAttentionFusedBackward', 'crossAttentionBackward'];

function expectGradients(actual, expected, atol, rtol, path = '') {
  if (expected && expected.data) {
    expect(actual?.shape, `${path}.shape`).toEqual(expected.shape);
    let worst = -1;
    expected.data.forEach((e, i) => {
      const excess = Math.abs(actual.data[i] - e) - (atol + rtol * Math.abs(e));
      if (excess > 0 && worst < 0) worst = i;
    });
    expect(worst, `${path}: first element over tolerance at ${worst} (${actual.data[worst]} vs ${expected.data[worst]})`).toBe(-1);
    return;
  }
  expect(Object.keys(actual ?? {}).sort(), `${path} names`).toEqual(Object.keys(expected).sort());
  for (const key of Object.keys(expected)) expectGradients(actual[key], expected[key], atol, rtol, `${path}.${key}`);
}

describe.each(FIXTURE_FUNCTIONS)('%s matches torch autograd (≤ 1e-5 abs + 1e-5 rel)', (fn) => {
  const fixture = loadFixture(fn);
  it.each(fixture.cases.map((c) => [c.name, c]))('%s', (_, testCase) => {
    const result = backward[fn](...testCase.args);
    expectGradients(result, testCase.expected, testCase.atol ?? 1e-5, testCase.rtol ?? 1e-5);
  });
});
