// Real numbers out of each WASM build, through the binding's conversions: known values, identities
// between steps, the dropout hash of docs/api.md, and the two builds agreeing with each other.
// (The PyTorch fixtures on every backend are tests/unit/steps.test.js.)
import { describe, expect, test } from 'vitest';
import {
  backendFor, BUILDS, expectClose, identity, JOURNEY, JOURNEY_CONTEXT, JOURNEY_WEIGHTS, row, tensor, waveTensor,
} from './wasm-helpers.js';

// docs/api.md "Dropout's random numbers", written out independently of the reference backend.
function lowbias32(x) {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}
const uniform = (seed, index) => (lowbias32((index ^ lowbias32(seed)) >>> 0) >>> 8) / 2 ** 24;

const eye3 = { query: identity(3), key: identity(3), value: identity(3) };

describe.each(BUILDS)('the %s build', (build) => {
  test("the second token's weights and context are the six-token example's", async () => {
    const { scores, weights, output } = (await backendFor(build)).attentionWithoutWeights(JOURNEY);
    expect(scores.shape).toEqual([1, 6, 6]);
    expect(weights.shape).toEqual([1, 6, 6]);
    expect(output.shape).toEqual([1, 6, 3]);
    expect(weights.data).toBeInstanceOf(Float32Array);
    expectClose(row(weights, 1), JOURNEY_WEIGHTS, 1e-4);
    expectClose(row(output, 1), JOURNEY_CONTEXT, 1e-4);
    // scores = X·Xᵀ: journey·journey = 0.55² + 0.87² + 0.66².
    expectClose([scores.data[7]], [0.55 * 0.55 + 0.87 * 0.87 + 0.66 * 0.66], 1e-6);
  });

  test('self-attention with identity projections and no scale is attention without weights', async () => {
    const backend = await backendFor(build);
    const plain = backend.attentionWithoutWeights(JOURNEY);
    const projected = backend.selfAttention(JOURNEY, eye3, { scale: false });
    expectClose(projected.weights.data, plain.weights.data, 1e-6);
    expectClose(projected.output.data, plain.output.data, 1e-6);
    expect(Object.keys(projected).sort()).toEqual(['key', 'output', 'query', 'scaled', 'scores', 'value', 'weights']);
  });

  test('scaled weights are the softmax of scores / √d_k', async () => {
    const backend = await backendFor(build);
    const { scores, scaled, weights } = backend.selfAttention(JOURNEY, eye3);
    expectClose(scaled.data, Array.from(scores.data, (s) => s / Math.sqrt(3)), 1e-6);
    const { output } = backend.softmax(scores, { scale: 1 / Math.sqrt(3) });
    expectClose(weights.data, output.data, 1e-6);
  });

  test('causal weights are zero above the diagonal and the first token sees only itself', async () => {
    const { masked, weights, output } = (await backendFor(build)).selfAttention(JOURNEY, eye3, { causal: true });
    expect(masked.shape).toEqual([1, 6, 6]);
    for (let i = 0; i < 6; i++) {
      for (let j = i + 1; j < 6; j++) {
        expect(weights.data[i * 6 + j]).toBe(0);
        expect(masked.data[i * 6 + j]).toBe(-Infinity);
      }
    }
    expectClose(row(weights, 0), [1, 0, 0, 0, 0, 0], 0);
    expectClose(row(output, 0), Array.from(JOURNEY.data.subarray(0, 3)), 1e-7);
  });

  test('dropout keeps element i exactly when u(seed, i) ≥ p, and scales it by 1/(1 − p)', async () => {
    const ones = tensor(new Array(4 * 8 * 8).fill(1), [4, 8, 8]);
    const { mask, output } = (await backendFor(build)).attentionDropout(ones, { dropout: 0.3, seed: 42 });
    let kept = 0;
    for (let i = 0; i < ones.data.length; i++) {
      const keep = uniform(42, i) >= 0.3;
      kept += keep;
      expect(mask.data[i], `mask[${i}]`).toBe(keep ? 1 : 0);
      expectClose([output.data[i]], [keep ? 1 / 0.7 : 0], 1e-6);
    }
    expect(kept).toBeGreaterThan(0.6 * 256);
    expect(kept).toBeLessThan(0.8 * 256);
  });

  test('next-token pairs: each position predicts the following token', async () => {
    const tokens = { data: Int32Array.from([5, 7, 9, 11, 2, 4, 6, 8]), shape: [2, 4] };
    const { contexts, targets } = (await backendFor(build)).nextTokenPairs(tokens);
    expect(contexts.data).toBeInstanceOf(Int32Array);
    expect(contexts.shape).toEqual([2, 3]);
    expect(Array.from(contexts.data)).toEqual([5, 7, 9, 2, 4, 6]);
    expect(Array.from(targets.data)).toEqual([7, 9, 11, 4, 6, 8]);
  });

  test('the causal average is the same by loop, matrix and softmax', async () => {
    const backend = await backendFor(build);
    const x = waveTensor([2, 5, 3]);
    const loop = backend.causalAverageLoop(x).output;
    // y[0, 1] = mean(x[0, 0], x[0, 1]).
    expectClose(Array.from(loop.data.subarray(3, 6)), [0, 1, 2].map((c) => (x.data[c] + x.data[3 + c]) / 2), 1e-6);
    expectClose(backend.causalAverageMatmul(x).output.data, loop.data, 1e-6);
    expectClose(backend.causalAverageSoftmax(x).output.data, loop.data, 1e-6);
  });

  test('matmul multiplies, with b transposed on request', async () => {
    const backend = await backendFor(build);
    const a = tensor([1, 2, 3, 4], [1, 2, 2]);
    const { output } = backend.matmul(a, tensor([1, 2, 3, 4, 5, 6], [2, 3]));
    expect(output.shape).toEqual([1, 2, 3]);
    expect(Array.from(output.data)).toEqual([9, 12, 15, 19, 26, 33]);
    const transposed = backend.matmul(a, tensor([1, 4, 2, 5, 3, 6], [3, 2]), { transposeB: true });
    expect(Array.from(transposed.output.data)).toEqual([9, 12, 15, 19, 26, 33]);
  });

  test('compare reports plain numbers', async () => {
    const backend = await backendFor(build);
    const result = backend.compare(tensor([1, 2, 3], [3]), tensor([1, 2.5, 3], [3]));
    expect(result).toEqual({ maxAbsError: 0.5, maxRelError: 0.2, allclose: false, firstMismatch: 1 });
  });

  test('results are fresh arrays the caller owns, not views of the WASM heap', async () => {
    const backend = await backendFor(build);
    const first = backend.attentionWithoutWeights(JOURNEY).output;
    const kept = Float32Array.from(first.data);
    expect(first.data.buffer).not.toBeInstanceOf(WebAssembly.Memory);
    expect(first.data.buffer.byteLength).toBe(first.data.byteLength);
    // A call big enough to grow the heap, then another small one: the first result is untouched.
    backend.selfAttention(waveTensor([1, 1024, 4]), { query: waveTensor([4, 4]), key: waveTensor([4, 4], 1), value: waveTensor([4, 4], 2) });
    backend.attentionWithoutWeights(waveTensor([1, 6, 3]));
    expect(Array.from(first.data)).toEqual(Array.from(kept));
  });
});

describe('the two builds', () => {
  test('agree on multi-head attention to 1e-6', async () => {
    const [simd, baseline] = await Promise.all(BUILDS.map(backendFor));
    const x = waveTensor([2, 16, 8]);
    const weights = { query: waveTensor([8, 8], 1), key: waveTensor([8, 8], 2), value: waveTensor([8, 8], 3), outWeight: waveTensor([8, 8], 4) };
    const options = { heads: 2, causal: true };
    const a = simd.multiheadAttentionSplit(x, weights, options);
    const b = baseline.multiheadAttentionSplit(x, weights, options);
    for (const name of ['query', 'weights', 'context', 'output']) {
      expect(a[name].shape).toEqual(b[name].shape);
      expectClose(a[name].data, b[name].data, 1e-6);
    }
  });

  test('agree on the fast path (intermediates: false) and it matches the teaching path', async () => {
    const [simd, baseline] = await Promise.all(BUILDS.map(backendFor));
    const x = waveTensor([2, 64, 16]);
    // Weights of size 1/√d_in, as an initialised layer has: the float32 rounding of both paths then
    // stays well inside the contract's 1e-5.
    const weights = { query: waveTensor([16, 16], 1, 0.25), key: waveTensor([16, 16], 2, 0.25), value: waveTensor([16, 16], 3, 0.25) };
    const teaching = simd.multiheadAttentionSplit(x, weights, { heads: 4, causal: true });
    for (const backend of [simd, baseline]) {
      const fast = backend.multiheadAttentionSplit(x, weights, { heads: 4, causal: true, intermediates: false });
      expect(Object.keys(fast)).toEqual(['output']);
      expectClose(fast.output.data, teaching.output.data, 1e-5, 1e-5);
    }
  });
});
