// Memory that comes back (docs/api.md "Memory"): a call that will be refused is refused before anything is
// allocated in the WASM module — its inputs' copies counted — so the module's memory stays as it was;
// `attention.memory` reports {bytes, peak}; `attention.compact()` re-instantiates the module and gives the
// memory of a large call back. The worker pool's side runs in Chromium: tests/e2e/threads.spec.js.
import { describe, expect, test } from 'vitest';
import { loadAttention } from '../../web/src/core/index.js';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';
import { createAttention } from '../../web/src/core/api.js';
import { createRoutingBackend } from '../../web/src/core/backends/auto.js';
import { createThreadedBackend } from '../../web/src/core/backends/threads.js';
import { withDeviceLossFallback } from '../../web/src/core/backends/webgpu.js';
import { createReferenceBackend } from '../../web/src/core/reference/index.js';
import { FUNCTION_NAMES } from '../../web/src/core/registry.js';
import { GpuUnavailableError } from '../../web/src/gpu/device.js';
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
    // Inputs of 44.0 MB and a teaching-path estimate of 29.4 MB: each fits what the module has left of the
    // 64 MiB (53 MiB) alone, not together.
    const x = waveTensor([1, 512, 3072]);
    const weights = { query: waveTensor([3072, 1024], 1, 0.01), key: waveTensor([3072, 1024], 2, 0.01), value: waveTensor([3072, 1024], 3, 0.01) };
    expect(() => attention.selfAttention(x, weights, { causal: true }))
      .toThrow(/^selfAttention: B=1, T=512 needs 29\.4 MB for its results and workspace and 44\.0 MB for the copies of its inputs; the memory limit is \d+ MiB$/);
    expect(attention.memory.bytes - before).toBeLessThanOrEqual(TOLERANCE);
    expect(attention.memory.bytes).toBe(before);
    expect(journeyContext(attention)[0]).toBeGreaterThan(0); // still computes
  }, 60_000);

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

describe('one composition of backends (backends/compose.js): the threads wrapper, auto and the device-loss fallback', () => {
  /** A pool of two "workers" that answer every message with their memory, as attention-worker.js does. */
  function fakePool() {
    const asked = [];
    const pool = {
      workers: [{}, {}],
      failed: null,
      memory: [{ bytes: 17 * MiB, peak: 40 * MiB }, { bytes: 18 * MiB, peak: 41 * MiB }],
      ask(k, message) {
        asked.push([k, message.type]);
        if (message.type === 'compact') pool.memory[k] = { bytes: 16 * MiB, peak: pool.memory[k].peak };
        return Promise.resolve({ memory: pool.memory[k] });
      },
      terminate() {},
    };
    return { pool, asked };
  }

  test('threads: memory is the main module plus workers; compact() renews the main module and asks every worker', async () => {
    const cpu = await loadWasmBackend({ build: 'baseline' });
    const { pool, asked } = fakePool();
    const attention = createAttention(createThreadedBackend(cpu, pool));
    expect(attention.memory).toEqual({ ...cpu.memory, workers: pool.memory });
    await attention.compact();
    expect(asked).toEqual([[0, 'compact'], [1, 'compact']]);
    expect(attention.memory.workers).toEqual([{ bytes: 16 * MiB, peak: 40 * MiB }, { bytes: 16 * MiB, peak: 41 * MiB }]);
    expect(Object.keys(attention).filter((key) => FUNCTION_NAMES.includes(key))).toEqual(FUNCTION_NAMES);
    expect(journeyContext(attention)[0]).toBeGreaterThan(0);
  });

  test("auto: memory and compact() are its WASM side's", async () => {
    const cpu = await loadWasmBackend({ build: 'baseline' });
    let compacted = 0;
    const counting = { ...cpu, compact: () => { compacted++; return cpu.compact(); } };
    Object.defineProperty(counting, 'memory', { get: () => cpu.memory });
    const routed = createRoutingBackend(counting, {
      adapterInfo: { emulated: false, label: 'test adapter' }, thresholdN: null, probe: false,
      loadGpu: () => Promise.reject(new Error('no GPU here')),
    });
    const attention = createAttention(routed);
    expect(attention.memory).toEqual(cpu.memory);
    await attention.compact();
    expect(compacted).toBe(1);
    expect(journeyContext(attention)[0]).toBeGreaterThan(0);
    expect(attention.lastCall.backend).toBe('wasm-baseline');
  });

  test('device-loss fallback: no module on the GPU ({bytes: 0, peak: 0}); the WASM module once the device is lost', async () => {
    const cpu = await loadWasmBackend({ build: 'baseline' });
    const reference = createReferenceBackend();
    let lose = null;
    const gpu = { name: 'webgpu', onLost: (listener) => { lose = listener; } };
    for (const fn of FUNCTION_NAMES) gpu[fn] = async (...args) => reference[fn](...args);
    const attention = createAttention(withDeviceLossFallback(gpu, async () => cpu));
    expect(attention.memory).toEqual({ bytes: 0, peak: 0 });
    await attention.compact();
    lose(new GpuUnavailableError('device-lost', 'WebGPU: the device was lost (test)'));
    await attention.attentionWithoutWeights(JOURNEY);
    expect(attention.backend).toBe('wasm-baseline');
    expect(attention.memory).toEqual(cpu.memory);
    expect(attention.fallbackReason).toMatch(/^WebGPU: the device was lost \(test\); now on wasm-baseline$/);
  });
});
