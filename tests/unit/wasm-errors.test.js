// Every class of bad input of docs/api.md "Errors", given straight to the WASM backend (no API layer in
// front, so the binding's own checks answer): an Error (not a number, not an abort) whose message names
// the function, the argument, the value and what was expected, and the next call still computes the
// six-token example correctly.
import { describe, expect, test } from 'vitest';
import { backendFor, BUILDS, expectJourney, identity, JOURNEY, tensor, waveTensor } from './wasm-helpers.js';

const eye3 = { query: identity(3), key: identity(3), value: identity(3) };
const x = waveTensor([2, 4, 3]);
const split = { query: waveTensor([3, 6], 1), key: waveTensor([3, 6], 2), value: waveTensor([3, 6], 3) };
const withValue = (t, index, value) => {
  const data = t.data.slice();
  data[index] = value;
  return { data, shape: t.shape };
};
const one = tensor([1], [1, 1]);

/** [what is wrong, call, the exact message or a RegExp]. */
const BAD_INPUTS = [
  // What only JS can see: the binding's structural checks.
  ['data that is not a Float32Array', (b) => b.causalAverageLoop({ data: [1, 2, 3], shape: [1, 1, 3] }),
    'causalAverageLoop: x.data is an Array(3); expected a Float32Array'],
  ['float64 data', (b) => b.softmax({ data: new Float64Array(3), shape: [3] }),
    'softmax: x.data is a Float64Array(3); expected a Float32Array'],
  ['token ids that are not Int32', (b) => b.nextTokenPairs({ data: new Float32Array(4), shape: [1, 4] }),
    'nextTokenPairs: tokens.data is a Float32Array(4); expected an Int32Array'],
  ['data of the wrong length', (b) => b.selfAttention({ data: new Float32Array(11), shape: [2, 2, 3] }, eye3),
    'selfAttention: x.data has 11 values; expected 12 for shape [2, 2, 3]'],
  ['a shape with a negative size', (b) => b.softmax({ data: new Float32Array(3), shape: [-3] }),
    'softmax: x.shape is [-3]; expected an array of non-negative integers'],
  ['a fractional size', (b) => b.softmax({ data: new Float32Array(3), shape: [1.5, 2] }),
    'softmax: x.shape is [1.5,2]; expected an array of non-negative integers'],
  ['a shape that is not an array', (b) => b.softmax({ data: new Float32Array(3), shape: '3' }),
    "softmax: x.shape is '3'; expected an array of non-negative integers"],
  ['no tensor at all', (b) => b.causalAverageLoop(undefined),
    'causalAverageLoop: x is undefined; expected a tensor {data: Float32Array, shape: number[]}'],
  ['a bare typed array for a tensor', (b) => b.causalAverageLoop(new Float32Array(3)),
    'causalAverageLoop: x is a Float32Array(3); expected a tensor {data: Float32Array, shape: number[]}'],
  ['a scalar shape', (b) => b.softmax({ data: new Float32Array(1), shape: [] }),
    'softmax: x has shape []; expected a tensor of rank ≥ 1'],
  ['a missing weight', (b) => b.selfAttention(JOURNEY, { query: identity(3), key: identity(3) }),
    /^selfAttention: weights\.value is undefined; expected a tensor/],
  ['weights that are not an object', (b) => b.selfAttention(JOURNEY, 7),
    'selfAttention: weights is 7; expected an object {query, key, value, …}'],
  ['options that are not an object', (b) => b.selfAttention(JOURNEY, eye3, 'causal'),
    "selfAttention: options is 'causal'; expected an object"],
  ['a boolean option given as a number', (b) => b.selfAttention(JOURNEY, eye3, { causal: 1 }),
    'selfAttention: options.causal=1; expected true or false'],
  // Rank, shapes, sizes: the core's checks, passed through.
  ['a wrong rank', (b) => b.selfAttention(waveTensor([6, 3]), eye3),
    /^selfAttention: x has shape \[6, 3\]; expected rank 3/],
  ['mismatched weights', (b) => b.selfAttention(JOURNEY, { ...eye3, query: waveTensor([4, 2]) }),
    'selfAttention: weights.query has shape [4, 2]; expected [d_in=3, d_out]'],
  ['a size of 0 (T=0)', (b) => b.selfAttention({ data: new Float32Array(0), shape: [1, 0, 3] }, eye3),
    'selfAttention: x has shape [1, 0, 3]; expected every size ≥ 1 (T=0)'],
  ['H=0', (b) => b.multiheadAttentionSplit(x, split, { heads: 0 }),
    'multiheadAttentionSplit: options.heads=0; expected an integer ≥ 1'],
  ['a fractional heads', (b) => b.multiheadAttentionSplit(x, split, { heads: 1.5 }),
    'multiheadAttentionSplit: options.heads=1.5; expected an integer from 1 to 2147483647'],
  ['d_out not divisible by heads', (b) => b.multiheadAttentionSplit(x, split, { heads: 4 }),
    'multiheadAttentionSplit: d_out=6 is not divisible by heads=4'],
  ['stacked heads that disagree with options.heads', (b) => b.multiheadAttentionStacked(JOURNEY, { heads: [eye3] }, { heads: 2 }),
    'multiheadAttentionStacked: options.heads=2; expected 1, the length of weights.heads'],
  ['cross-attention batches that differ', (b) => b.crossAttention(waveTensor([2, 3, 3]), waveTensor([1, 5, 3]), eye3),
    'crossAttention: xContext has shape [1, 5, 3]; expected [B=2, Tk, d_kv] (the batch size of xQuery)'],
  ['matmul with mismatched inner sizes', (b) => b.matmul(waveTensor([2, 2]), waveTensor([3, 2])),
    'matmul: b has shape [3, 2]; expected [K=2, N]'],
  // matmul's axes are the registry's (a (B, M, K) or unbatched (M, K); b (K, N)), as the other checks'.
  ['matmul with a of rank 4', (b) => b.matmul(waveTensor([1, 1, 2, 3]), waveTensor([3, 2])),
    'matmul: a has shape [1, 1, 2, 3]; expected (M, K) or (B, M, K)'],
  ['matmul with b of rank 1', (b) => b.matmul(waveTensor([5, 2, 3]), waveTensor([3])),
    'matmul: b has shape [3]; expected [K=3, N]'],
  ['matmul with a transposed b of rank 3', (b) => b.matmul(waveTensor([2, 3]), waveTensor([1, 3, 2]), { transposeB: true }),
    'matmul: b has shape [1, 3, 2]; expected [N, K=3]'],
  ['matmul with a transposed b of the wrong K', (b) => b.matmul(waveTensor([2, 3]), waveTensor([2, 4]), { transposeB: true }),
    'matmul: b has shape [2, 4]; expected [N, K=3]'],
  ['matmul with an unbatched a of M=0', (b) => b.matmul({ data: new Float32Array(0), shape: [0, 3] }, waveTensor([3, 2])),
    'matmul: a has shape [0, 3]; expected every size ≥ 1 (M=0)'],
  ['matmul with B=0', (b) => b.matmul({ data: new Float32Array(0), shape: [0, 2, 3] }, waveTensor([3, 2])),
    'matmul: a has shape [0, 2, 3]; expected every size ≥ 1 (B=0)'],
  ['matmul with NaN in b', (b) => b.matmul(waveTensor([2, 3]), withValue(waveTensor([3, 2]), 1, NaN)),
    'matmul: b[1] is NaN; expected finite numbers'],
  // Option values.
  ['dropout = 1', (b) => b.selfAttention(JOURNEY, eye3, { dropout: 1 }),
    'selfAttention: options.dropout=1; expected a number in [0, 1)'],
  ['a negative dropout', (b) => b.attentionDropout(x, { dropout: -0.1 }),
    'attentionDropout: options.dropout=-0.1; expected a number in [0, 1)'],
  ['a non-integer seed', (b) => b.attentionDropout(x, { dropout: 0.1, seed: 1.5 }),
    'attentionDropout: options.seed=1.5; expected an integer in [0, 2^32)'],
  ['a negative seed', (b) => b.selfAttention(JOURNEY, eye3, { seed: -1 }),
    'selfAttention: options.seed=-1; expected an integer in [0, 2^32)'],
  ['a seed of 2³²', (b) => b.selfAttention(JOURNEY, eye3, { seed: 2 ** 32 }),
    'selfAttention: options.seed=4294967296; expected an integer in [0, 2^32)'],
  ['an unknown mask', (b) => b.selfAttention(JOURNEY, eye3, { causal: true, mask: 'none' }),
    "selfAttention: options.mask='none'; expected 'neg_inf', 'renormalize' or 'zero'"],
  ['a mask that is not a string', (b) => b.selfAttention(JOURNEY, eye3, { mask: 3 }),
    "selfAttention: options.mask=3; expected 'neg_inf', 'renormalize' or 'zero'"],
  ['an unknown normalization', (b) => b.softmax(x, { normalization: 'softest' }),
    "softmax: options.normalization='softest'; expected 'stable', 'naive' or 'sum'"],
  ['an unknown layout', (b) => b.selfAttention(JOURNEY, eye3, { layout: 'transposed' }),
    "selfAttention: options.layout='transposed'; expected 'matrix' or 'linear'"],
  ['a zero temperature', (b) => b.selfAttention(JOURNEY, eye3, { temperature: 0 }),
    'selfAttention: options.temperature=0; expected a finite number > 0'],
  // Values.
  ['NaN in x', (b) => b.selfAttention(withValue(JOURNEY, 4, NaN), eye3),
    'selfAttention: x[4] is NaN; expected finite numbers'],
  ['Infinity in a weight', (b) => b.selfAttention(JOURNEY, { ...eye3, key: withValue(identity(3), 2, Infinity) }),
    'selfAttention: weights.key[2] is Infinity; expected finite numbers'],
  ['−∞ outside softmax', (b) => b.causalAverageLoop(withValue(JOURNEY, 0, -Infinity)),
    'causalAverageLoop: x[0] is -Infinity; expected finite numbers'],
  ['+∞ in softmax', (b) => b.softmax(tensor([0, Infinity], [2])),
    'softmax: x[1] is Infinity; expected finite numbers or -Infinity'],
  // Memory: the estimate beyond 2 GiB is refused before anything is allocated.
  ['a (T, T) beyond the 2 GiB heap', (b) => b.selfAttention(waveTensor([1, 20000, 1]), { query: one, key: one, value: one }),
    /^selfAttention: B=1, T=20000 needs 4\.8 GB for its results and workspace; the memory limit is 2 GiB$/],
  ['sizes whose byte count overflows 32 bits', (b) => b.selfAttention(waveTensor([4, 30000, 1]), { query: one, key: one, value: one }),
    /^selfAttention: B=4, T=30000 needs 43\.2 GB for its results and workspace; the memory limit is 2 GiB$/],
  ['a batched matmul output beyond the 2 GiB heap', (b) => b.matmul({ data: new Float32Array(24000), shape: [24000, 1, 1] }, { data: new Float32Array(24000), shape: [1, 24000] }),
    'matmul: M=1, N=24000 needs 2.3 GB for its results and workspace; the memory limit is 2 GiB'],
];

describe.each(BUILDS)('the %s build', (build) => {
  test.each(BAD_INPUTS)('%s is an Error naming it, and the module keeps working', async (_, call, message) => {
    const backend = await backendFor(build);
    let thrown;
    try {
      call(backend);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    if (message instanceof RegExp) expect(thrown.message).toMatch(message);
    else expect(thrown.message).toBe(message);
    expectJourney(backend);
  });

  test('−∞ is allowed in softmax, and a fully masked row gets zeros, not NaN', async () => {
    const { output } = (await backendFor(build)).softmax(tensor([-Infinity, 0, -Infinity, -Infinity], [2, 2]));
    expect(Array.from(output.data)).toEqual([0, 1, 0, 0]);
  });
});
