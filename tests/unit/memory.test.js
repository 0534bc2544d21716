// Memory that comes back (docs/api.md "Memory"): a call that will be refused is refused before anything is
// allocated in the WASM module — its inputs' copies counted — so the module's memory stays as it was;
// `attention.memory` reports {bytes, peak}; `attention.compact()` re-instantiates the module and gives the
// memory of a large call back. The worker pool's side runs in Chromium: tests/e2e/threads.spec.js.
import { describe, expect, test } from 'vitest';
import { loadAttention } from '../../web/src/core/index.js';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';
import { JOURNEY, JOURNEY_CONTEXT, waveTensor } from './wasm-helpers.js';

const MiB = 2 ** 20;
const TOLERANCE = 64 * MiB;
const LIMIT = 64 * MiB;

/** x (1, T, d) and (d, d) projections: inputs of 4·T·d + 12·d² bytes. */
function projectionCall(T, d) {
  const weights = { query: waveTensor([d, d], 1, 0.1), key: waveTensor([d, d], 2, 0.1), value: waveTensor([d, d], 3, 0.1) };
  return [waveTensor([1, T, d]), weights];
}

const journeyContext = (attention) => {
  const { weights } = attention.attentionWithoutWeights(JOURNEY);
  return weights.data.slice(6, 12);
};

describe('loadAttention({memoryLimit})', () => {
  test.each([0, 1000, 2 ** 31 + 1, MiB - 1, 1.5, '64MB', null, NaN])('memoryLimit=%s is an Error naming the option, the value and what is expected', async (value) => {
    await expect(loadAttention({ backend: 'js', memoryLimit: value })).rejects.toThrow(
      /^loadAttention: options\.memoryLimit=.*; expected an integer number of bytes from 1048576 \(1 MiB\) to 2147483648 \(2 GiB\)$/);
  });

  test('the default is 2 GiB, the WASM module\'s maximum; a limit given is kept', async () => {
    expect((await loadAttention({ backend: 'js' })).memoryLimit).toBe(2 ** 31);
    expect((await loadAttention({ backend: 'wasm-baseline', threads: 1, memoryLimit: LIMIT })).memoryLimit).toBe(LIMIT);
  });
});

describe.each(['wasm-simd', 'wasm-baseline'])('%s: a refused call leaves the memory as it was', (backend) => {
  test('over memoryLimit through the API: inputs and working memory counted, refused before any allocation', async () => {
    const attention = await loadAttention({ backend, threads: 1, memoryLimit: LIMIT });
    const before = attention.memory.bytes;
    // Inputs of 48 MiB and the teaching path's (1024, 1024) stages: each fits the 64 MiB alone, not together.
    const x = waveTensor([1, 1024, 12288]);
    const weights = { query: waveTensor([12288, 8], 1), key: waveTensor([12288, 8], 2), value: waveTensor([12288, 8], 3) };
    expect(() => attention.selfAttention(x, weights, { causal: true }))
      .toThrow(/^selfAttention: B=1, T=1024 needs [\d.]+ MB for its results and workspace and [\d.]+ MB for the copies of its inputs; the memory limit is \d+ MiB$/);
    expect(attention.memory.bytes - before).toBeLessThanOrEqual(TOLERANCE);
    expect(attention.memory.bytes).toBe(before);
    expect(journeyContext(attention)[0]).toBeGreaterThan(0); // still computes
  });

  test('the binding itself refuses on the shapes before it copies the inputs (memory limit set in the module)', async () => {
    const core = await loadWasmBackend({ build: backend.slice(5), memoryLimit: LIMIT });
    const eye = { data: Float32Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), shape: [3, 3] };
    core.selfAttention(JOURNEY, { query: eye, key: eye, value: eye }, {}); // the binding's first-call allocations
    const before = core.heapStats().heapBytes;
    // 40 MB of inputs, fitting the limit alone; a teaching call whose (T, T) stages do not fit beside them.
    const x = waveTensor([1, 1000, 10000]);
    const weights = { query: waveTensor([10000, 4], 1), key: waveTensor([10000, 4], 2), value: waveTensor([10000, 4], 3) };
    expect(() => core.selfAttention(x, weights, { causal: true }))
      .toThrow(/^selfAttention: B=1, T=1000 needs [\d.]+ MB for its results and workspace; the memory limit is \d+ MiB$/);
    expect(core.heapStats().heapBytes).toBe(before);
    expect(core.heapStats().heapLimitBytes).toBe(LIMIT);
  }, 60_000);
});

describe('attention.memory and attention.compact()', () => {
  test('the js backend has no module: {bytes: 0, peak: 0}; compact() resolves', async () => {
    const attention = await loadAttention({ backend: 'js' });
    expect(attention.memory).toEqual({ bytes: 0, peak: 0 });
    await expect(attention.compact()).resolves.toBeUndefined();
    expect(journeyContext(attention)[0]).toBeGreaterThan(0);
  });

  test.each(['wasm-simd', 'wasm-baseline'])('%s: a large call grows bytes; compact() gives it back and keeps the peak; calls still compute', async (backend) => {
    const attention = await loadAttention({ backend, threads: 1 });
    const initial = attention.memory;
    expect(initial.bytes).toBeGreaterThan(0);
    expect(initial.peak).toBe(initial.bytes);
    // Causal MHA, T=1024, d=256, 4 heads with its intermediates: five (1, 4, 1024, 1024) stages.
    const [x, weights] = projectionCall(1024, 256);
    const { weights: stage } = attention.multiheadAttentionSplit(x, weights, { heads: 4, causal: true, intermediates: true });
    expect(stage.shape).toEqual([1, 4, 1024, 1024]);
    const grown = attention.memory;
    expect(grown.bytes).toBeGreaterThan(initial.bytes + 64 * MiB);
    expect(grown.peak).toBe(grown.bytes);
    const compacting = attention.compact();
    expect(compacting).toBeInstanceOf(Promise);
    await compacting;
    const after = attention.memory;
    expect(after.bytes).toBeLessThanOrEqual(initial.bytes + MiB);
    expect(after.peak).toBe(grown.bytes);
    const context = attention.selfAttention(JOURNEY, {
      query: { data: Float32Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), shape: [3, 3] },
      key: { data: Float32Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), shape: [3, 3] },
      value: { data: Float32Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), shape: [3, 3] },
    }, { scale: false }).output.data.slice(3, 6);
    JOURNEY_CONTEXT.forEach((value, k) => expect(context[k]).toBeCloseTo(value, 4));
  }, 60_000);
});
