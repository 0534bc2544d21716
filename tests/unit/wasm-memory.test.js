// The WASM heap is not garbage-collected: every call must free what it allocates, on success and on
// error, and a request beyond the 2 GiB limit must be refused before it is allocated (running out
// inside the module would abort it for good).
import { describe, expect, test } from 'vitest';
import { backendFor, BUILDS, expectJourney, waveTensor } from './wasm-helpers.js';

const CALLS = 10_000;

const x = waveTensor([2, 8, 4]);
const weights = { query: waveTensor([4, 4], 1), key: waveTensor([4, 4], 2), value: waveTensor([4, 4], 3) };
const options = { causal: true, dropout: 0.1, seed: 7 };

describe.each(BUILDS)('the %s build', (build) => {
  test(`the heap stays flat over ${CALLS} selfAttention calls`, async () => {
    const backend = await backendFor(build);
    for (let i = 0; i < 100; i++) backend.selfAttention(x, weights, options);  // warm-up
    const before = backend.heapStats();
    let result;
    for (let i = 0; i < CALLS; i++) result = backend.selfAttention(x, weights, options);
    const after = backend.heapStats();
    expect(after.bytesInUse).toBe(before.bytesInUse);
    expect(after.heapBytes).toBe(before.heapBytes);
    expect(result.dropped.shape).toEqual([2, 8, 8]);
  }, 120_000);

  test(`${CALLS} rejected calls leave the heap as it was`, async () => {
    const backend = await backendFor(build);
    const bad = { ...weights, value: waveTensor([5, 4]) };  // d_in = 5, x has 4
    // Warm-up: the binding interns the JS names it meets once, for the life of the module.
    for (let i = 0; i < 100; i++) expect(() => backend.selfAttention(x, bad, options)).toThrow();
    const before = backend.heapStats();
    for (let i = 0; i < CALLS; i++) {
      expect(() => backend.selfAttention(x, bad, options)).toThrow('weights.value has shape [5, 4]');
    }
    const after = backend.heapStats();
    expect(after.bytesInUse).toBe(before.bytesInUse);
    expect(after.heapBytes).toBe(before.heapBytes);
    expectJourney(backend);
  }, 120_000);

  test('a call of about 200 MB grows the heap, frees it all, and later calls still compute', async () => {
    const backend = await backendFor(build);
    const before = backend.heapStats();
    const one = { data: new Float32Array([1]), shape: [1, 1] };
    // T = 3000: each (T, T) stage is 36 MB; scores, scaled, masked and weights, plus their JS copies.
    const { weights: w } = backend.selfAttention(waveTensor([1, 3000, 1]), { query: one, key: one, value: one }, { causal: true });
    expect(w.data.length).toBe(3000 * 3000);
    expect(w.data[1]).toBe(0);  // row 0 sees only key 0
    const after = backend.heapStats();
    expect(after.heapBytes).toBeGreaterThan(before.heapBytes);
    expect(after.heapBytes).toBeLessThanOrEqual(after.heapLimitBytes);
    expect(after.bytesInUse).toBe(before.bytesInUse);
    expectJourney(backend);
  }, 120_000);

  test('a size over the memory limit is an Error, not an abort', async () => {
    const backend = await backendFor(build);
    const one = { data: new Float32Array([1]), shape: [1, 1] };
    expect(() => backend.multiheadAttentionSplit(waveTensor([2, 40000, 1]), { query: one, key: one, value: one }))
      .toThrow(/^multiheadAttentionSplit: B=2, .*T=40000 needs [\d.]+ GB for its results and workspace; the memory limit is 2 GiB$/);
    expectJourney(backend);
  });
});
