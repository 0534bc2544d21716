// Behaviour specs of the JS API on every backend: unbatched input, defaults, the formulations that
// must agree, masks, dropout, fresh results. The PyTorch numbers themselves are steps.test.js's job.
import { beforeAll, describe, expect, test } from 'vitest';
import { attentionFor, BACKENDS } from './backends.js';
import {
  columns, concatColumns, JOURNEY, maxDifference, randomTensor, slice, tensor, transpose,
} from './make-tensors.js';

const EXACT = 0;
const CLOSE = 1e-6;

/** query/key/value (d_in, d_out) and biases, plus an output projection. */
function projectionWeights(dIn, dOut, seed) {
  return {
    query: randomTensor([dIn, dOut], seed),
    key: randomTensor([dIn, dOut], seed + 1),
    value: randomTensor([dIn, dOut], seed + 2),
    queryBias: randomTensor([dOut], seed + 3),
    keyBias: randomTensor([dOut], seed + 4),
    valueBias: randomTensor([dOut], seed + 5),
    outWeight: randomTensor([dOut, dOut], seed + 6),
    outBias: randomTensor([dOut], seed + 7),
  };
}

const selfAttentionWeights = ({ query, key, value, queryBias, keyBias, valueBias }) => ({ query, key, value, queryBias, keyBias, valueBias });

/** Every result of `actual` equals `expected`'s, with `dropAxis` naming the results that lost their batch axis. */
function expectSameResults(actual, expected, dropAxis, tolerance = EXACT) {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [name, result] of Object.entries(expected)) {
    const shape = dropAxis.includes(name) ? result.shape.slice(1) : result.shape;
    expect(actual[name].shape, name).toEqual(shape);
    expect(maxDifference({ ...actual[name], shape }, { ...result, shape }), name).toBeLessThanOrEqual(tolerance);
  }
}

for (const backend of BACKENDS) {
  describe(`${backend}: the API`, () => {
    let api;
    beforeAll(async () => {
      api = await attentionFor(backend);
    });

    test('reports the backend and build it runs on', () => {
      expect(api.backend).toBe(backend);
      expect(api.build).toBe({ js: null, 'wasm-simd': 'simd', 'wasm-baseline': 'baseline' }[backend]);
      expect(api.fallbackReason).toBeNull();
    });

    test('the six-token sentence: query 2 attends [0.1385, 0.2379, …] and its context is [0.4419, 0.6515, 0.5683]', () => {
      const { weights, output } = api.attentionWithoutWeights(JOURNEY);
      const expectedWeights = [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581];
      Array.from(weights.data.subarray(6, 12)).forEach((w, j) => expect(w).toBeCloseTo(expectedWeights[j], 4));
      Array.from(output.data.subarray(3, 6)).forEach((v, c) => expect(v).toBeCloseTo([0.4419, 0.6515, 0.5683][c], 4));
    });

    test('unbatched (T, C) input gives the batched results without their batch axis', () => {
      const x = randomTensor([5, 4], 1);
      const batched = { data: x.data, shape: [1, 5, 4] };
      expectSameResults(api.causalAverageLoop(x), api.causalAverageLoop(batched), ['output']);
      // The (T, T) matrices of steps 3–4 have no batch axis to drop.
      expectSameResults(api.causalAverageMatmul(x), api.causalAverageMatmul(batched), ['output']);
      expectSameResults(api.causalAverageSoftmax(x), api.causalAverageSoftmax(batched), ['output']);
      expectSameResults(api.attentionWithoutWeights(x), api.attentionWithoutWeights(batched), ['scores', 'weights', 'output']);

      const weights = projectionWeights(4, 6, 10);
      const options = { causal: true, dropout: 0.25, seed: 3 };
      const single = api.selfAttention(x, selfAttentionWeights(weights), options);
      expectSameResults(single, api.selfAttention(batched, selfAttentionWeights(weights), options), Object.keys(single));
      const multi = api.multiheadAttentionSplit(x, weights, { ...options, heads: 2 });
      expectSameResults(multi, api.multiheadAttentionSplit(batched, weights, { ...options, heads: 2 }), Object.keys(multi));
      const context = randomTensor([7, 4], 2);
      const cross = api.crossAttention(x, context, weights, { heads: 3 });
      expectSameResults(cross, api.crossAttention(batched, { data: context.data, shape: [1, 7, 4] }, weights, { heads: 3 }), Object.keys(cross));

      const tokens = { data: Int32Array.from([5, 9, 2, 7]), shape: [4] };
      const pairs = api.nextTokenPairs(tokens);
      expect(pairs.contexts.shape).toEqual([3]);
      expect(Array.from(pairs.contexts.data)).toEqual([5, 9, 2]);
      expect(Array.from(pairs.targets.data)).toEqual([9, 2, 7]);
    });

    test('omitted options take the documented defaults', () => {
      const x = randomTensor([2, 4, 3], 20);
      const weights = projectionWeights(3, 4, 21);
      const single = selfAttentionWeights(weights);
      expectSameResults(api.selfAttention(x, single), api.selfAttention(x, single, {
        layout: 'matrix', scale: true, temperature: 1, causal: false, mask: 'neg_inf', dropout: 0, seed: 0,
      }), []);
      expectSameResults(api.multiheadAttentionSplit(x, weights), api.multiheadAttentionSplit(x, weights, {
        scale: true, temperature: 1, causal: false, mask: 'neg_inf', dropout: 0, seed: 0, heads: 1, intermediates: true,
      }), []);
      expectSameResults(api.softmax(x), api.softmax(x, { normalization: 'stable', scale: 1 }), []);
      expectSameResults(api.attentionDropout(x), api.attentionDropout(x, { dropout: 0, seed: 0 }), []);
      // compare's default tolerance is atol = rtol = 1e-5.
      const nudged = tensor(x.data.map((v, i) => (i === 5 ? v + 2e-5 + 1e-5 * Math.abs(v) : v)), x.shape);
      expect(api.compare(nudged, x)).toMatchObject({ allclose: false, firstMismatch: 5 });
      expect(api.compare(nudged, x, { atol: 1e-4 })).toMatchObject({ allclose: true, firstMismatch: -1 });
    });

    test('the three multi-head formulations agree when their weights correspond', () => {
      const x = randomTensor([2, 5, 4], 30);
      const weights = projectionWeights(4, 6, 31);
      const H = 3;
      const dHead = 2;
      // Stacked head h owns columns [h·d_head, (h+1)·d_head) of the split projections.
      const stacked = {
        heads: Array.from({ length: H }, (_, h) => ({
          query: columns(weights.query, h * dHead, dHead),
          key: columns(weights.key, h * dHead, dHead),
          value: columns(weights.value, h * dHead, dHead),
          queryBias: slice(weights.queryBias, h * dHead, dHead),
          keyBias: slice(weights.keyBias, h * dHead, dHead),
          valueBias: slice(weights.valueBias, h * dHead, dHead),
        })),
        outWeight: weights.outWeight,
        outBias: weights.outBias,
      };
      // Fused: [Wq | Wk | Wv] side by side, biases likewise.
      const fused = {
        inProjection: concatColumns([weights.query, weights.key, weights.value]),
        inBias: concatColumns([weights.queryBias, weights.keyBias, weights.valueBias]),
        outWeight: weights.outWeight,
        outBias: weights.outBias,
      };
      const options = { causal: true, dropout: 0.2, seed: 9, heads: H };
      const split = api.multiheadAttentionSplit(x, weights, options);
      expect(Object.keys(split)).toContain('dropped');
      expectSameResults(api.multiheadAttentionStacked(x, stacked, options), split, [], CLOSE);
      expectSameResults(api.multiheadAttentionFused(x, fused, options), split, [], CLOSE);
    });

    test('crossAttention of a sequence with itself is multiheadAttentionSplit', () => {
      const x = randomTensor([1, 6, 4], 35);
      const weights = projectionWeights(4, 4, 36);
      const options = { heads: 2, causal: true, mask: 'renormalize' };
      expectSameResults(api.crossAttention(x, x, weights, options), api.multiheadAttentionSplit(x, weights, options), [], CLOSE);
    });

    test('the loop, the matrix product and the softmax give the same causal average', () => {
      const x = randomTensor([2, 7, 3], 40);
      const loop = api.causalAverageLoop(x).output;
      const { weights, output: viaMatmul } = api.causalAverageMatmul(x);
      const viaSoftmax = api.causalAverageSoftmax(x);
      expect(maxDifference(viaMatmul, loop)).toBeLessThanOrEqual(CLOSE);
      expect(maxDifference(viaSoftmax.output, loop)).toBeLessThanOrEqual(CLOSE);
      expect(maxDifference(viaSoftmax.weights, weights)).toBeLessThanOrEqual(CLOSE);
      expect(Array.from(weights.data.subarray(14, 21))).toEqual(Array.from({ length: 7 }, (_, j) => (j <= 2 ? Math.fround(1 / 3) : 0)));
      expect(viaSoftmax.masked.data[1]).toBe(-Infinity);
      expect(viaSoftmax.masked.data[7]).toBe(0);
    });

    test('causal weights are zero above the diagonal; renormalize equals neg_inf; the zero mask differs', () => {
      const x = randomTensor([1, 5, 3], 50);
      const weights = selfAttentionWeights(projectionWeights(3, 4, 51));
      const negInf = api.selfAttention(x, weights, { causal: true });
      for (let i = 0; i < 5; i++) {
        for (let j = 0; j < 5; j++) {
          if (j > i) {
            expect(negInf.weights.data[i * 5 + j]).toBe(0);
            expect(negInf.masked.data[i * 5 + j]).toBe(-Infinity);
          }
        }
      }
      const renormalized = api.selfAttention(x, weights, { causal: true, mask: 'renormalize' });
      expect(maxDifference(renormalized.weights, negInf.weights)).toBeLessThanOrEqual(CLOSE);
      expect(maxDifference(renormalized.output, negInf.output)).toBeLessThanOrEqual(CLOSE);
      // Masking with 0 keeps exp(0) = 1 for the future: row 0 is no longer one-hot.
      const zero = api.selfAttention(x, weights, { causal: true, mask: 'zero' });
      expect(zero.weights.data[1]).toBeGreaterThan(0.01);
      expect(maxDifference(zero.output, negInf.output)).toBeGreaterThan(1e-3);
    });

    test('the linear layout with transposed weights equals the matrix layout', () => {
      const x = randomTensor([2, 4, 3], 60);
      const matrix = selfAttentionWeights(projectionWeights(3, 5, 61));
      const linear = { ...matrix, query: transpose(matrix.query), key: transpose(matrix.key), value: transpose(matrix.value) };
      expectSameResults(api.selfAttention(x, linear, { layout: 'linear' }), api.selfAttention(x, matrix), [], CLOSE);
    });

    test('a fully masked softmax row gets weights 0, not NaN; a partly masked one ignores its −∞', () => {
      const x = tensor([-Infinity, -Infinity, -Infinity, 0, -Infinity, 0], [2, 3]);
      for (const normalization of ['stable', 'naive']) {
        const { output } = api.softmax(x, { normalization });
        expect(Array.from(output.data)).toEqual([0, 0, 0, 0.5, 0, 0.5]);
      }
    });

    test('the naive softmax overflows where the stable one does not', () => {
      const x = tensor([0, 1, 2, 3, 100], [5]);
      expect(api.softmax(x).output.data[4]).toBeCloseTo(1, 6);
      expect(Number.isNaN(api.softmax(x, { normalization: 'naive' }).output.data[4])).toBe(true);
    });

    test('intermediates: false returns only the output, equal to the full output', () => {
      const x = randomTensor([1, 6, 4], 70);
      const weights = projectionWeights(4, 4, 71);
      const full = api.multiheadAttentionSplit(x, weights, { heads: 2, causal: true });
      const lean = api.multiheadAttentionSplit(x, weights, { heads: 2, causal: true, intermediates: false });
      expect(Object.keys(lean)).toEqual(['output']);
      expect(maxDifference(lean.output, full.output)).toBeLessThanOrEqual(1e-5);
    });

    test('above INTERMEDIATES_LIMIT stage values the default is { output } alone, equal to the full result', () => {
      // B·H·T·T = 1·8·96·96 = 73,728 > 65,536: real-size work gets the fused kernel unless it asks for stages.
      const x = randomTensor([1, 96, 16], 72);
      const weights = projectionWeights(16, 16, 73);
      const lean = api.multiheadAttentionSplit(x, weights, { heads: 8, causal: true });
      const full = api.multiheadAttentionSplit(x, weights, { heads: 8, causal: true, intermediates: true });
      expect(Object.keys(lean)).toEqual(['output']);
      expect(full.weights.shape).toEqual([1, 8, 96, 96]);
      expect(maxDifference(lean.output, full.output)).toBeLessThanOrEqual(1e-5);
      // At or below the limit (1·8·90·90 = 64,800) every stage comes back, as the page needs.
      expect(api.multiheadAttentionSplit(randomTensor([1, 90, 16], 74), weights, { heads: 8 }).weights.shape)
        .toEqual([1, 8, 90, 90]);
    });

    test("crossAttention counts the context's Tk in that limit", () => {
      const weights = projectionWeights(4, 4, 75);
      // 1·1·8·8,200 = 65,600 > 65,536 only because of Tk.
      const over = api.crossAttention(randomTensor([1, 8, 4], 76), randomTensor([1, 8200, 4], 77), weights);
      expect(Object.keys(over)).toEqual(['output']);
      const under = api.crossAttention(randomTensor([1, 8, 4], 76), randomTensor([1, 8000, 4], 78), weights);
      expect(under.weights.shape).toEqual([1, 1, 8, 8000]);
    });

    test('dropout is the counter-based hash of docs/api.md: reproducible, ≈ 1−p kept, kept weights scaled by 1/(1−p)', () => {
      // u(7, i) for i = 0..11, computed independently in Python from the formula:
      // 0.3308 0.5190 0.5982 0.3012 0.2206 0.2450 0.1601 0.3279 0.8523 0.4775 0.4558 0.3926
      const ones = tensor(new Float32Array(12).fill(1), [3, 4]);
      const { mask, output } = api.attentionDropout(ones, { dropout: 0.5, seed: 7 });
      expect(Array.from(mask.data)).toEqual([0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0]);
      expect(Array.from(output.data)).toEqual([0, 2, 2, 0, 0, 0, 0, 0, 2, 0, 0, 0]);
      const many = tensor(new Float32Array(20000).fill(0.5), [100, 200]);
      const first = api.attentionDropout(many, { dropout: 0.3, seed: 123 });
      const kept = first.mask.data.reduce((n, m) => n + m, 0) / 20000;
      expect(kept).toBeGreaterThan(0.68);
      expect(kept).toBeLessThan(0.72);
      expect(first.output.data.find((v) => v !== 0)).toBeCloseTo(0.5 / 0.7, 6);
      expect(api.attentionDropout(many, { dropout: 0.3, seed: 123 }).mask.data).toEqual(first.mask.data);
      expect(maxDifference(api.attentionDropout(many, { dropout: 0.3, seed: 124 }).mask, first.mask)).toBe(1);
    });

    test('matmul: a·b for (M, K) and (B, M, K), and a·bᵀ with transposeB', () => {
      const a = randomTensor([2, 3, 5], 90);
      const b = randomTensor([5, 4], 91);
      const { output } = api.matmul(a, b);
      expect(output.shape).toEqual([2, 3, 4]);
      // Row 1 of batch 1, column 2, by hand.
      let expected = 0;
      for (let k = 0; k < 5; k++) expected += a.data[(1 * 3 + 1) * 5 + k] * b.data[k * 4 + 2];
      expect(output.data[(1 * 3 + 1) * 4 + 2]).toBeCloseTo(expected, 5);
      expect(maxDifference(api.matmul(a, transpose(b), { transposeB: true }).output, output)).toBeLessThanOrEqual(CLOSE);
      const single = api.matmul({ data: a.data.subarray(0, 15), shape: [3, 5] }, b).output;
      expect(single.shape).toEqual([3, 4]);
      expect(maxDifference(single, { data: output.data.subarray(0, 12), shape: [3, 4] })).toBeLessThanOrEqual(CLOSE);
    });

    test('results are fresh arrays the caller owns: changing them changes nothing else', () => {
      const x = randomTensor([1, 4, 3], 80);
      const copy = x.data.slice();
      const weights = selfAttentionWeights(projectionWeights(3, 3, 81));
      const first = api.selfAttention(x, weights);
      first.output.data.fill(42);
      first.weights.data.fill(42);
      const second = api.selfAttention(x, weights);
      expect(second.output.data.includes(42)).toBe(false);
      expect(second.weights.data.includes(42)).toBe(false);
      expect(x.data).toEqual(copy);
      expect(second.output.data.buffer).not.toBe(second.weights.data.buffer);
    });
  });
}
