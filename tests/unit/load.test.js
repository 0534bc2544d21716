// loadAttention: which backend it picks, how it falls back and says why, and how it refuses nonsense.
// Plus the API layer's handling of an asynchronous backend (the shape WebGPU has), tested with the
// reference wrapped in Promises so it runs in Node.
import { describe, expect, test } from 'vitest';
import { createAttention } from '../../web/src/core/api.js';
import { createRoutingBackend, loadAutoBackend } from '../../web/src/core/backends/auto.js';
import { withDeviceLossFallback } from '../../web/src/core/backends/device-loss.js';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';
import * as entry from '../../web/src/core/index.js';
import { FUNCTION_NAMES, loadAttention } from '../../web/src/core/index.js';
import { createReferenceBackend } from '../../web/src/core/reference/index.js';
import { GpuKernelError, GpuUnavailableError } from '../../web/src/gpu/device.js';
import { JOURNEY, randomTensor } from './make-tensors.js';

const NOT_WASM = new Uint8Array([0x00, 0x61, 0x73]);

describe('loadAttention', () => {
  test("'auto' loads the SIMD WebAssembly build where SIMD is supported (Node 20 has it)", async () => {
    const attention = await loadAttention();
    expect(attention.backend).toBe('wasm-simd');
    expect(attention.build).toBe('simd');
    expect(attention.fallbackReason).toBeNull();
  });

  test("'js' loads the reference, and every function of docs/api.md is there", async () => {
    const attention = await loadAttention({ backend: 'js' });
    expect(attention.backend).toBe('js');
    expect(attention.build).toBeNull();
    for (const fn of FUNCTION_NAMES) expect(typeof attention[fn], fn).toBe('function');
  });

  test("'auto' falls back to the JS reference when WebAssembly cannot load, and says why", async () => {
    const attention = await loadAttention({ backend: 'auto', wasmBinary: NOT_WASM });
    expect(attention.backend).toBe('js');
    expect(attention.fallbackReason).toMatch(/^WebAssembly could not load: loadWasmBackend: could not instantiate .*attention-simd\.wasm/);
    expect(attention.attentionWithoutWeights(JOURNEY).weights.data[7]).toBeCloseTo(0.2379, 4);
  });

  test('an explicitly requested WASM build that cannot load is an Error, not a silent fallback', async () => {
    await expect(loadAttention({ backend: 'wasm-baseline', wasmBinary: NOT_WASM }))
      .rejects.toThrow(/^loadWasmBackend: could not instantiate .*attention-baseline\.wasm \(.*CompileError/);
  });

  test("'webgpu' without WebGPU (Node) falls back to WebAssembly and says why", async () => {
    const attention = await loadAttention({ backend: 'webgpu' });
    expect(attention.backend).toBe('wasm-simd');
    expect(attention.fallbackReason).toMatch(/^WebGPU is unavailable: .*navigator\.gpu/);
  });

  test("'webgpu' with neither WebGPU nor WebAssembly falls back to the JS reference, on one thread, with both reasons", async () => {
    const attention = await loadAttention({ backend: 'webgpu', wasmBinary: NOT_WASM, threads: 4 });
    expect(attention.backend).toBe('js');
    expect(attention.fallbackReason).toMatch(/^WebGPU is unavailable: .*navigator\.gpu.*; WebAssembly could not load: loadWasmBackend: could not instantiate .*attention-simd\.wasm/);
    expect([attention.threads, attention.threadsReason]).toEqual([1, "backend 'webgpu' does not use workers"]);
    expect(attention.attentionWithoutWeights(JOURNEY).weights.data[7]).toBeCloseTo(0.2379, 4);
  });

  test("'auto' without navigator.gpu (Node) is plain WebAssembly, as before WebGPU routing: the planner's record", async () => {
    expect(globalThis.navigator?.gpu).toBeUndefined();
    const attention = await loadAttention({ backend: 'auto', gpuCrossover: { thresholdN: 8 } });
    expect(attention.backend).toBe('wasm-simd');
    expect(attention.fallbackReason).toBeNull();
    expect(attention.onBackendChange).toBeUndefined();
    const a = randomTensor([64, 64], 1);
    const result = attention.matmul(a, a); // far above the forced crossover: still WASM, still synchronous
    expect(result).not.toBeInstanceOf(Promise);
    expect(result.output.shape).toEqual([64, 64]);
    expect(attention.backend).toBe('wasm-simd');
    expect(attention.lastCall).toEqual({ fn: 'matmul', backend: 'wasm-simd', path: 'teaching', reason: 'matmul has only the teaching code', threads: 1 });
  });

  test('gpuCrossover must be {thresholdN: a positive integer or null}', async () => {
    for (const bad of [null, 8, { thresholdN: 0 }, { thresholdN: 2.5 }, { thresholdN: '8' }, { thresholdN: 8, extra: 1 }]) {
      await expect(loadAttention({ gpuCrossover: bad })).rejects.toThrow(
        /^loadAttention: options\.gpuCrossover is .*; expected \{thresholdN: a positive integer or null\}$/);
    }
    await expect(loadAttention({ gpuCrossover: { thresholdN: null } })).resolves.toBeTruthy();
  });

  test('unknown backends and options are Errors', async () => {
    await expect(loadAttention({ backend: 'cuda' })).rejects.toThrow(
      "loadAttention: options.backend='cuda'; expected one of 'auto', 'wasm', 'wasm-simd', 'wasm-baseline', 'js', 'webgpu'");
    await expect(loadAttention({ backnd: 'js' })).rejects.toThrow(
      "loadAttention: unknown option 'backnd'; expected one of backend, threads, wasmBinary, locateFile, gpuCrossover");
    await expect(loadAttention('js')).rejects.toThrow("loadAttention: options is 'js'; expected an object");
  });
});

describe("the package entry's WebGPU error classes", () => {
  test('are the classes the GPU code throws, for instanceof in a catch', () => {
    expect(entry.GpuKernelError).toBe(GpuKernelError);
    expect(entry.GpuUnavailableError).toBe(GpuUnavailableError);
    const kernel = new entry.GpuKernelError('matmul', 'WebGPU validation error');
    expect([kernel instanceof Error, kernel.name, kernel.fn, kernel.message]).toEqual([true, 'GpuKernelError', 'matmul', 'matmul: WebGPU validation error']);
    const lost = new entry.GpuUnavailableError('device-lost', 'the device was lost');
    expect([lost instanceof Error, lost.name, lost.reason]).toEqual([true, 'GpuUnavailableError', 'device-lost']);
  });
});

describe('the API over an asynchronous backend', () => {
  const reference = createReferenceBackend();
  const asynchronous = Object.fromEntries(Object.entries(reference).map(([key, value]) => [
    key, typeof value === 'function' ? async (...args) => value(...args) : value,
  ]));
  const attention = createAttention({ ...asynchronous, name: 'async-test' });

  test('returns a Promise of the same normalised results (batch axis dropped for (T, C) input)', async () => {
    const pending = attention.attentionWithoutWeights(JOURNEY);
    expect(pending).toBeInstanceOf(Promise);
    const { weights, output } = await pending;
    expect(weights.shape).toEqual([6, 6]);
    expect(output.shape).toEqual([6, 3]);
    expect(weights.data[7]).toBeCloseTo(0.2379, 4);
  });

  test('argument errors, semantic ones included, are thrown before the backend is called', async () => {
    expect(() => attention.softmax({ data: [1], shape: [1] })).toThrow('softmax: x.data is an Array(1); expected a Float32Array');
    const withNaN = randomTensor([2, 2], 1);
    withNaN.data[3] = NaN;
    expect(() => attention.softmax(withNaN)).toThrow('softmax: x[3] is NaN; expected finite numbers or -Infinity');
  });

  test('a backend without a function says so', () => {
    const partial = createAttention({ name: 'partial', softmax: reference.softmax });
    expect(() => partial.matmul(randomTensor([2, 2], 1), randomTensor([2, 2], 2))).toThrow(
      'matmul: the partial backend does not provide matmul');
  });
});

describe("'auto' routing (backends/auto.js) over a stand-in GPU backend", () => {
  const reference = createReferenceBackend();
  /** The reference, asynchronous and named webgpu, with the webgpu backend's supportsOp and loss hooks. */
  function fakeGpu({ maxElements = Infinity } = {}) {
    const gpu = Object.fromEntries(Object.entries(reference).map(([key, value]) => [
      key, typeof value === 'function' ? async (...args) => value(...args) : value,
    ]));
    return Object.assign(gpu, {
      name: 'webgpu',
      supportsOp: (fn, shapes) => (shapes[0].reduce((p, s) => p * s, 1) > maxElements
        ? { supported: false, reason: `webgpu: ${fn} is too large for this device` } : { supported: true }),
      onLost: () => () => {},
      isLost: () => false,
    });
  }
  const loadRouted = (loadGpu) => {
    const requests = [];
    const backend = createRoutingBackend(reference, {
      adapterInfo: { emulated: false, label: 'test adapter' },
      thresholdN: 8,
      loadGpu: async () => { requests.push(1); return withDeviceLossFallback(await loadGpu(), async () => reference); },
    });
    return { attention: createAttention(backend), requests };
  };
  const small = randomTensor([4, 4], 1);
  const large = randomTensor([16, 16], 2);

  test('with probing off and no crossover measured for any adapter kind, the adapter is not even asked for', async () => {
    const requests = [];
    const gpu = { requestAdapter: async () => { requests.push(1); return null; } };
    expect(await loadAutoBackend(reference, { gpu, gpuProbe: false })).toBe(reference);
    expect(requests).toEqual([]);
    // Probing on (the default) asks for the adapter; none: the CPU backend.
    expect(await loadAutoBackend(reference, { gpu })).toBe(reference);
    expect(requests).toEqual([1]);
    requests.length = 0;
    // A crossover given by the caller (tests) is a reason to ask.
    expect(await loadAutoBackend(reference, { gpu, gpuCrossover: { thresholdN: 8 } })).toBe(reference);
    expect(requests).toEqual([1]);
  });

  test('below the crossover: the CPU backend, synchronously, and no device is requested', () => {
    const { attention, requests } = loadRouted(async () => fakeGpu());
    const result = attention.matmul(small, small);
    expect(result).not.toBeInstanceOf(Promise);
    expect(attention.backend).toBe('js');
    expect(attention.lastCall).toEqual({ fn: 'matmul', backend: 'js', path: 'teaching', reason: 'matmul does 64 multiply-adds, below the crossover 8³', threads: 1 });
    expect(requests).toHaveLength(0);
  });

  test('above it: the GPU backend, whose device is requested once, on first need', async () => {
    const { attention, requests } = loadRouted(async () => fakeGpu());
    const first = attention.matmul(large, large);
    expect(first).toBeInstanceOf(Promise);
    expect((await first).output.data).toEqual(reference.matmul(large, large, { transposeB: false }).output.data);
    expect(attention.backend).toBe('webgpu');
    await attention.matmul(large, large);
    expect(requests).toHaveLength(1);
    attention.matmul(small, small);
    expect(attention.backend).toBe('js');
  });

  test('a call the GPU backend does not support (supportsOp) goes to the CPU backend, with its reason', async () => {
    const { attention } = loadRouted(async () => fakeGpu({ maxElements: 100 }));
    await attention.matmul(large, large);
    expect(attention.lastCall).toEqual({ fn: 'matmul', backend: 'js', path: 'teaching', reason: 'webgpu: matmul is too large for this device', threads: 1 });
    expect(attention.fallbackReason).toBeNull();
  });

  test('a device request that fails moves every call to the CPU backend, and says why', async () => {
    const { attention, requests } = loadRouted(async () => { throw new GpuUnavailableError('device-request-failed', 'the GPU process crashed'); });
    const changes = [];
    attention.onBackendChange((change) => changes.push(change));
    await attention.matmul(large, large);
    expect(attention.backend).toBe('js');
    expect(attention.fallbackReason).toBe('WebGPU is unavailable: the GPU process crashed; now on js');
    expect(changes).toEqual([{ backend: 'js', reason: attention.fallbackReason }]);
    expect(attention.matmul(large, large)).not.toBeInstanceOf(Promise);
    expect(requests).toHaveLength(1);
  });

  test('bad arguments throw the one check\'s error before any routing, above the crossover too', () => {
    const { attention } = loadRouted(async () => fakeGpu());
    expect(() => attention.selfAttention(large, { key: large, value: large })).toThrow(/^selfAttention: weights\.query/);
    expect(() => attention.matmul(large, randomTensor([3, 16], 3))).toThrow('matmul: b has shape [3, 16]; expected [K=16, N]');
  });

  test("the memory estimate follows the backend this call is routed to, not the one the last call ran on", async () => {
    // scaledDotProductAttention with Ev ≠ E and intermediates false: WASM runs the teaching code with one
    // (L, S) stage, the webgpu backend the JS reference's fused rows (planner.js sdpaRoute). 512² floats
    // do not fit 1 MiB.
    const cpu = await loadWasmBackend({ build: 'simd' });
    const routed = createRoutingBackend(cpu, { adapterInfo: { emulated: false, label: 'test adapter' }, thresholdN: 8, loadGpu: async () => withDeviceLossFallback(fakeGpu(), async () => cpu) });
    const attention = createAttention(routed, { memoryLimit: 2 ** 20 });
    const [query, key, value] = [randomTensor([512, 4], 3), randomTensor([512, 4], 4), randomTensor([512, 2], 5)];
    const call = (api) => () => api.scaledDotProductAttention(query, key, value, { intermediates: false });
    let onWasm;
    try {
      call(createAttention(cpu, { memoryLimit: 2 ** 20 }))();
    } catch (error) {
      onWasm = error.message;
    }
    expect(onWasm).toMatch(/^scaledDotProductAttention: L=512, S=512 needs /);
    expect(routed.backendFor('scaledDotProductAttention', [query, key, value, {}])).toBe('wasm-simd');
    expect(call(attention)).toThrow(onWasm);
    await attention.matmul(large, large); // above the crossover: the GPU side answers, and is the last backend
    expect(attention.backend).toBe('webgpu');
    expect(routed.backendFor('matmul', [large, large, { transposeB: false }])).toBe('webgpu');
    expect(routed.backendFor('matmul', [small, small, { transposeB: false }])).toBe('wasm-simd');
    expect(call(attention)).toThrow(onWasm);
    expect(attention.lastCall).toMatchObject({ fn: 'matmul', backend: 'webgpu' });
  });
});
