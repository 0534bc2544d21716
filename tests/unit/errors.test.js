// Every class of bad input in docs/api.md "Errors", on every backend: an Error (not a number, not an
// abort) whose message names the function, the argument, the value and what was expected — and the
// next call still gives the right answer.
import { beforeAll, describe, expect, test } from 'vitest';
import { attentionFor, BACKENDS } from './backends.js';
import { JOURNEY, randomTensor, tensor } from './make-tensors.js';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';
import { CHECKS } from '../../web/src/core/reference/checks.js';
import { createReferenceBackend } from '../../web/src/core/reference/index.js';

const x = randomTensor([2, 4, 3], 1);
const projections = { query: randomTensor([3, 2], 2), key: randomTensor([3, 2], 3), value: randomTensor([3, 2], 4) };
const splitWeights = { query: randomTensor([3, 6], 5), key: randomTensor([3, 6], 6), value: randomTensor([3, 6], 7) };
const withValue = (t, index, value) => {
  const data = t.data.slice();
  data[index] = value;
  return { data, shape: t.shape };
};

/** [what is wrong, call, the message expected (a RegExp, or the exact text)]. */
const BAD_INPUTS = [
  // Structure: what only JS can see.
  ['data of the wrong length', (api) => api.selfAttention({ data: new Float32Array(11), shape: [2, 2, 3] }, projections),
    'selfAttention: x.data has 11 values; expected 12 for shape [2, 2, 3]'],
  ['data that is not a Float32Array', (api) => api.causalAverageLoop({ data: [1, 2, 3], shape: [1, 1, 3] }),
    'causalAverageLoop: x.data is an Array(3); expected a Float32Array'],
  ['float64 data', (api) => api.softmax({ data: new Float64Array(3), shape: [3] }),
    'softmax: x.data is a Float64Array(3); expected a Float32Array'],
  ['token ids that are not Int32', (api) => api.nextTokenPairs({ data: new Float32Array(4), shape: [1, 4] }),
    'nextTokenPairs: tokens.data is a Float32Array(4); expected an Int32Array'],
  ['a shape with a negative size', (api) => api.softmax({ data: new Float32Array(3), shape: [-3] }),
    /^softmax: x.shape is \[-3\]; expected an array of non-negative integers$/],
  ['no tensor at all', (api) => api.causalAverageLoop(undefined),
    /^causalAverageLoop: x is undefined; expected a tensor/],
  ['an unknown option name', (api) => api.selfAttention(x, projections, { dropuot: 0.1 }),
    /^selfAttention: unknown option 'dropuot'; expected one of .*dropout/],
  ['an unknown weights key', (api) => api.selfAttention(x, { ...projections, quary: projections.query }),
    /^selfAttention: weights has an unknown key 'quary'/],
  ['options where none are taken', (api) => api.causalAverageLoop(x, { causal: true }),
    /^causalAverageLoop: takes 1 argument \(x\) and no options/],
  // Rank, shapes, sizes.
  ['a wrong rank', (api) => api.selfAttention(randomTensor([2, 1, 4, 3], 9), projections),
    /^selfAttention: x has shape \[2, 1, 4, 3\]; expected rank 3 \(B, T, d_in\) or rank 2 \(T, d_in\)$/],
  ['a projection that does not fit x', (api) => api.selfAttention(x, { ...projections, query: randomTensor([4, 2], 10) }),
    'selfAttention: weights.query has shape [4, 2]; expected [d_in=3, d_out]'],
  ['key and query of different widths', (api) => api.selfAttention(x, { ...projections, key: randomTensor([3, 5], 11) }),
    'selfAttention: weights.key has shape [3, 5]; expected [d_in=3, d_out=2]'],
  ['a bias of the wrong size', (api) => api.selfAttention(x, { ...projections, valueBias: randomTensor([3], 12) }),
    'selfAttention: weights.valueBias has shape [3]; expected [d_out=2]'],
  ['cross-attention batches that differ', (api) => api.crossAttention(x, randomTensor([3, 5, 3], 13), splitWeights),
    'crossAttention: xContext has shape [3, 5, 3]; expected [B=2, Tk, d_kv] (the batch size of xQuery)'],
  ['compare of different shapes', (api) => api.compare(x, randomTensor([2, 3, 4], 14)),
    'compare: expected has shape [2, 3, 4]; expected [2, 4, 3] like actual'],
  ['T=0', (api) => api.causalAverageSoftmax({ data: new Float32Array(0), shape: [1, 0, 3] }),
    'causalAverageSoftmax: x has shape [1, 0, 3]; expected every size ≥ 1 (T=0)'],
  ['C=0', (api) => api.attentionWithoutWeights({ data: new Float32Array(0), shape: [1, 4, 0] }),
    'attentionWithoutWeights: x has shape [1, 4, 0]; expected every size ≥ 1 (C=0)'],
  ['H=0', (api) => api.multiheadAttentionSplit(x, splitWeights, { heads: 0 }),
    'multiheadAttentionSplit: options.heads=0; expected an integer ≥ 1'],
  ['no heads at all', (api) => api.multiheadAttentionStacked(x, { heads: [] }),
    /^multiheadAttentionStacked: weights.heads is an Array\(0\); expected an array of H ≥ 1 heads/],
  ['heads that do not divide d_out', (api) => api.multiheadAttentionSplit(x, splitWeights, { heads: 4 }),
    'multiheadAttentionSplit: d_out=6 is not divisible by heads=4'],
  ['an in-projection not three blocks wide', (api) => api.multiheadAttentionFused(x, { inProjection: randomTensor([3, 10], 15) }),
    /^multiheadAttentionFused: weights.inProjection has shape \[3, 10\]; expected \[d_in=3, 3·d_out\]/],
  ['a sequence of one token', (api) => api.nextTokenPairs({ data: Int32Array.from([4]), shape: [1, 1] }),
    /^nextTokenPairs: tokens has shape \[1, 1\]; expected L ≥ 2/],
  ['an unbatched sequence of one token, in the caller\'s own shape', (api) => api.nextTokenPairs({ data: Int32Array.from([4]), shape: [1] }),
    'nextTokenPairs: tokens has shape [1]; expected L ≥ 2 tokens per sequence (a context and a target)'],
  // Option values.
  ['dropout of 1', (api) => api.selfAttention(x, projections, { dropout: 1 }),
    'selfAttention: options.dropout=1; expected a number in [0, 1)'],
  ['negative dropout', (api) => api.attentionDropout(x, { dropout: -0.1 }),
    'attentionDropout: options.dropout=-0.1; expected a number in [0, 1)'],
  ['a fractional seed', (api) => api.attentionDropout(x, { dropout: 0.5, seed: 1.5 }),
    'attentionDropout: options.seed=1.5; expected an integer in [0, 2^32)'],
  ['a negative seed', (api) => api.selfAttention(x, projections, { seed: -1 }),
    'selfAttention: options.seed=-1; expected an integer in [0, 2^32)'],
  ['a seed of 2^32', (api) => api.selfAttention(x, projections, { seed: 2 ** 32 }),
    'selfAttention: options.seed=4294967296; expected an integer in [0, 2^32)'],
  ['an unknown mask', (api) => api.selfAttention(x, projections, { causal: true, mask: 'none' }),
    "selfAttention: options.mask='none'; expected 'neg_inf', 'renormalize' or 'zero'"],
  ['an unknown normalization', (api) => api.softmax(x, { normalization: 'fast' }),
    "softmax: options.normalization='fast'; expected 'stable', 'naive' or 'sum'"],
  ['an unknown layout', (api) => api.selfAttention(x, projections, { layout: 'transposed' }),
    "selfAttention: options.layout='transposed'; expected 'matrix' or 'linear'"],
  ['a temperature of 0', (api) => api.selfAttention(x, projections, { temperature: 0 }),
    'selfAttention: options.temperature=0; expected a finite number > 0'],
  ['causal given as a string', (api) => api.selfAttention(x, projections, { causal: 'yes' }),
    "selfAttention: options.causal='yes'; expected true or false"],
  ['a negative tolerance', (api) => api.compare(x, x, { atol: -1 }),
    'compare: options.atol=-1; expected a finite number ≥ 0'],
  ['options.heads that contradict the stacked heads', (api) => api.multiheadAttentionStacked(x, { heads: [projections] }, { heads: 2 }),
    'multiheadAttentionStacked: options.heads=2; expected 1, the length of weights.heads'],
  // Values.
  ['NaN in x', (api) => api.selfAttention(withValue(x, 4, NaN), projections),
    'selfAttention: x[4] is NaN; expected finite numbers'],
  ['+∞ in a weight', (api) => api.selfAttention(x, { ...projections, key: withValue(projections.key, 1, Infinity) }),
    'selfAttention: weights.key[1] is Infinity; expected finite numbers'],
  ['−∞ outside softmax', (api) => api.attentionDropout(withValue(x, 0, -Infinity), { dropout: 0.1 }),
    'attentionDropout: weights[0] is -Infinity; expected finite numbers'],
  ['NaN in softmax input', (api) => api.softmax(withValue(x, 2, NaN)),
    'softmax: x[2] is NaN; expected finite numbers or -Infinity'],
  ['+∞ in softmax input', (api) => api.softmax(withValue(x, 3, Infinity)),
    'softmax: x[3] is Infinity; expected finite numbers or -Infinity'],
  // Memory: (T, T) matrices of 30000² floats are 3.6 GB each. The WASM binding states the limit as
  // what is left of its 2 GiB once the heap in use is subtracted, in bytes.
  ['sizes beyond the memory limit', (api) => api.selfAttention(randomTensor([1, 30000, 3], 16), projections),
    /^selfAttention: B=1, T=30000 needs [\d.]+ GB for its results and workspace; the memory limit is (2 GiB|\d+ bytes)$/],
  // Found by trying the API as a hostile user would (issue 9): each one an Error naming what was wrong.
  ['a shape of BigInts', (api) => api.causalAverageLoop({ data: new Float32Array(24), shape: [2n, 4n, 3n] }),
    'causalAverageLoop: x.shape is [2n, 4n, 3n]; expected an array of non-negative integers'],
  ['a shape holding NaN, shown as NaN', (api) => api.causalAverageLoop({ data: new Float32Array(6), shape: [2, NaN, 3] }),
    'causalAverageLoop: x.shape is [2, NaN, 3]; expected an array of non-negative integers'],
  ['an unbatched size of 0, in the caller\'s own shape', (api) => api.causalAverageLoop({ data: new Float32Array(0), shape: [0, 3] }),
    'causalAverageLoop: x has shape [0, 3]; expected every size ≥ 1 (T=0)'],
  ['null as a tensor is null', (api) => api.causalAverageLoop(null),
    'causalAverageLoop: x is null; expected a tensor {data: Float32Array, shape: number[]}'],
  ['a softmax scale finite in float64 but not in float32', (api) => api.softmax(x, { scale: 1e39 }),
    'softmax: options.scale=1e+39; expected a finite number after rounding to float32 (1e+39 becomes Infinity)'],
  ['a temperature finite in float64 but not in float32', (api) => api.selfAttention(x, projections, { temperature: 1e300 }),
    'selfAttention: options.temperature=1e+300; expected a finite number > 0 after rounding to float32 (1e+300 becomes Infinity)'],
  ['a temperature that rounds to 0 in float32', (api) => api.selfAttention(x, projections, { temperature: 1e-50 }),
    'selfAttention: options.temperature=1e-50; expected a finite number > 0 after rounding to float32 (1e-50 becomes 0)'],
  ['a dropout that rounds onto 1 in float32, echoed as passed', (api) => api.attentionDropout(x, { dropout: 0.99999999999 }),
    'attentionDropout: options.dropout=0.99999999999; expected a number in [0, 1) after rounding to float32 (0.99999999999 becomes 1)'],
  // Found by libFuzzer: a finite x that scale·x takes past float32 would become a mask (−∞: its row all
  // zeros) or make its row NaN (+∞), so the check refuses it before anything runs.
  ['a scale that takes a finite x to −∞', (api) => api.softmax(tensor([3.4e38, -Infinity], [2]), { scale: -2000 }),
    'softmax: the scaled scores overflow float32 (scale=-2000 makes scale·x reach -Infinity)'],
  ['a scale that takes a finite x to +∞', (api) => api.softmax(tensor([0, 2e38, 1], [3]), { scale: 2 }),
    'softmax: the scaled scores overflow float32 (scale=2 makes scale·x reach Infinity)'],
  ['heads beyond 2^32, reported against d_out', (api) => api.multiheadAttentionSplit(x, splitWeights, { heads: 4294967298 }),
    'multiheadAttentionSplit: d_out=6 is not divisible by heads=4294967298'],
];

/** The fields of each structured error: the message is formatted from them, and code reads them. */
const STRUCTURED = [
  ['a dropout of 1', (api) => api.attentionDropout(x, { dropout: 1 }),
    { fn: 'attentionDropout', argument: 'options.dropout', value: 1, expected: 'a number in [0, 1)', kind: 'option' }],
  ['a wrong projection', (api) => api.selfAttention(x, { ...projections, query: randomTensor([4, 2], 10) }),
    { fn: 'selfAttention', argument: 'weights.query', value: [4, 2], expected: '[d_in=3, d_out]', kind: 'shape' }],
  ['a BigInt shape', (api) => api.softmax({ data: new Float32Array(3), shape: [3n] }),
    { fn: 'softmax', argument: 'x.shape', value: [3n], kind: 'entries' }],
  ['a scale·x beyond float32', (api) => api.softmax(tensor([3.4e38, -Infinity], [2]), { scale: -2000 }),
    { fn: 'softmax', argument: 'scale', value: -2000, expected: 'finite results', kind: 'overflow', reached: '-Infinity' }],
];

for (const backend of BACKENDS) {
  describe(`${backend}: bad input is an Error that says what was wrong`, () => {
    let api;
    beforeAll(async () => {
      api = await attentionFor(backend);
    });

    test.each(BAD_INPUTS)('%s', (what, call, message) => {
      let thrown;
      try {
        call(api);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, `${what}: no error`).toBeInstanceOf(Error);
      if (typeof message === 'string') expect(thrown.message).toBe(message);
      else expect(thrown.message).toMatch(message);
      // The module works as before: the six-token sentence still gives its known weights.
      const { weights } = api.attentionWithoutWeights(JOURNEY);
      expect(weights.data[7]).toBeCloseTo(0.2379, 4);
    });

    test.each(STRUCTURED)('%s is a structured error {fn, argument, value, expected, kind}', (what, call, fields) => {
      let thrown;
      try {
        call(api);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject(fields);
    });

    test('the memory estimate is the planned path\'s: the teaching stages are refused, the fused kernel is not', () => {
      // B=40000, T=64, causal: four (B, T, T) stages need 2.7 GB; the fused kernel holds O(B·T·d).
      const many = { data: new Float32Array(40000 * 64), shape: [40000, 64, 1] };
      const one = { query: tensor([1], [1, 1]), key: tensor([1], [1, 1]), value: tensor([1], [1, 1]) };
      expect(() => api.multiheadAttentionSplit(many, one, { causal: true, intermediates: true }))
        .toThrow('multiheadAttentionSplit: B=40000, T=64 needs 2.7 GB for its results and workspace; the memory limit is 2 GiB');
      // The same call with intermediates false passes the one check every backend's call goes through
      // (computing it is left to the fixtures at smaller sizes: it takes seconds here).
      const options = { causal: true, intermediates: false, scale: true, temperature: 1, mask: 'neg_inf', dropout: 0, seed: 0, heads: 1 };
      expect(CHECKS.multiheadAttentionSplit(many, one, options)).toMatchObject({ B: 40000, T: 64, dOut: 1 });
    });

    test('−∞ is allowed in softmax input (it is a mask)', () => {
      const { output } = api.softmax(tensor([0, -Infinity, 0], [3]));
      expect(Array.from(output.data)).toEqual([0.5, 0, 0.5]);
    });
  });
}

describe("softmax's scale·x, checked where a direct caller enters", () => {
  test('the WASM binding and the JS reference refuse it in the same words', async () => {
    const wasm = await loadWasmBackend({ build: 'simd' });
    const reference = createReferenceBackend();
    for (const [x, scale, reached] of [[tensor([3.4e38, -Infinity], [2]), -2000, '-Infinity'], [tensor([0, 2e38, 1], [3]), 2, 'Infinity']]) {
      const options = { normalization: 'stable', scale };
      const messages = [wasm, reference].map((backend) => {
        try {
          backend.softmax(x, options);
          return 'no error';
        } catch (error) {
          return error.message;
        }
      });
      expect(messages).toEqual(Array(2).fill(`softmax: the scaled scores overflow float32 (scale=${scale} makes scale·x reach ${reached})`));
    }
    expect(wasm.softmax(tensor([1, -Infinity], [2]), { normalization: 'stable', scale: -2000 }).output.data).toEqual(Float32Array.from([1, 0]));
  });
});
