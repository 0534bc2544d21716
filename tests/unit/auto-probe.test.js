// 'auto' with the in-browser crossover probe (backends/auto.js over gpu/crossover-probe.js), driven by a
// fake adapter: real-looking adapterInfo, fake gpu and cpu backends whose calls advance a fake clock, an
// injected idle scheduler, and storage in memory (or refused).
import { describe, expect, test } from 'vitest';
import { createAttention } from '../../web/src/core/api.js';
import { createRoutingBackend, loadAutoBackend } from '../../web/src/core/backends/auto.js';
import { gpuCrossoverDecision } from '../../web/src/core/gpu-crossover.js';
import { withDeviceLossFallback } from '../../web/src/core/backends/device-loss.js';
import { shapesOf, workOf } from '../../web/src/core/planner.js';
import { ENTRIES } from '../../web/src/core/registry.js';
import { loadAttention } from '../../web/src/core/index.js';
import { GpuKernelError, GpuUnavailableError, describeAdapter } from '../../web/src/gpu/device.js';
import { PROBE_BUDGET_MS, createCrossoverStore, crossoverKey } from '../../web/src/gpu/crossover-probe.js';

const BROWSER = 'Chrome/156.0.8078.73';

class MemoryStorage {
  #items = new Map();
  get length() { return this.#items.size; }
  key(i) { return [...this.#items.keys()][i] ?? null; }
  getItem(key) { return this.#items.has(key) ? this.#items.get(key) : null; }
  setItem(key, value) { this.#items.set(key, String(value)); }
  removeItem(key) { this.#items.delete(key); }
}
const refusingStorage = {
  get length() { throw new Error('denied'); },
  key() { throw new Error('denied'); },
  getItem() { throw new Error('denied'); },
  setItem() { throw new Error('denied'); },
  removeItem() { throw new Error('denied'); },
};

const hardwareInfo = () => describeAdapter({ info: { vendor: 'nvidia', architecture: 'hopper', device: '0x2330', description: 'NVIDIA H100 80GB HBM3' } });

/**
 * A world of one fake clock: a CPU backend at 40 M multiply-adds/ms·½ and a GPU backend with a 1.5 ms
 * dispatch cost, 1000× the throughput and a 40 ms pipeline compile on each function's first call.
 */
function fakeWorld() {
  let clock = 0;
  const calls = { cpu: [], gpu: [] };
  const compiled = new Set();
  const answer = (fn, args) => {
    const [first] = args;
    const rows = first.shape.slice(0, -1);
    const columns = fn === 'matmul' ? args[1].shape[1] : args[1].query.shape[1];
    return { output: { data: new Float32Array(rows.reduce((p, s) => p * s, 1) * columns), shape: [...rows, columns] } };
  };
  const work = (fn, args) => workOf(fn, shapesOf(fn, args), ENTRIES[fn].options ? args[args.length - 1] : {});
  const cpu = { name: 'wasm-simd', build: 'simd' };
  const gpu = {
    name: 'webgpu',
    build: null,
    supportsOp: () => ({ supported: true }),
    onLost: () => () => {},
    isLost: () => false,
  };
  for (const fn of ['matmul', 'multiheadAttentionSplit']) {
    cpu[fn] = (...args) => {
      calls.cpu.push({ fn, shape: args[0].shape });
      clock += (2 * work(fn, args)) / 40e6;
      return answer(fn, args);
    };
    gpu[fn] = async (...args) => {
      calls.gpu.push({ fn, shape: args[0].shape });
      clock += 1.5 + (2 * work(fn, args)) / 40e9 + (compiled.has(fn) ? 0 : 40);
      compiled.add(fn);
      return answer(fn, args);
    };
  }
  const scheduled = [];
  const devices = [];
  return {
    cpu, gpu, calls, scheduled, devices,
    now: () => clock,
    schedule: (task) => scheduled.push(task),
    /** Runs the idle tasks scheduled so far. */
    idle: () => { for (const task of scheduled.splice(0)) task(); },
    loadGpu: async () => { devices.push(1); clock += 20; return withDeviceLossFallback(gpu, async () => cpu); },
  };
}

function routed(world, { adapterInfo = hardwareInfo(), storage = new MemoryStorage(), ...rest } = {}) {
  const backend = createRoutingBackend(world.cpu, {
    adapterInfo, loadGpu: world.loadGpu, store: createCrossoverStore(storage), browser: BROWSER,
    schedule: world.schedule, now: world.now, ...rest,
  });
  return { backend, attention: createAttention(backend), storage, key: crossoverKey(adapterInfo, BROWSER) };
}

const square = (n) => ({ data: new Float32Array(n * n).fill(0.5), shape: [n, n] });

describe("'auto' measures the crossover on a real adapter", () => {
  test('the probe runs once in idle time, stores its record, then large calls go to the GPU and small ones to WASM', async () => {
    const world = fakeWorld();
    const { attention, backend, storage, key } = routed(world);
    expect(attention.gpuCrossover).toMatchObject({ thresholdN: null, source: 'none' });

    // The first call that could go to the GPU: WASM, synchronously, and the probe is scheduled, not run.
    const first = attention.matmul(square(512), square(512));
    expect(first).not.toBeInstanceOf(Promise);
    expect(attention.lastCall).toMatchObject({ fn: 'matmul', backend: 'wasm-simd' });
    expect(attention.lastCall.reason).toMatch(/crossover for nvidia hopper NVIDIA H100 80GB HBM3 is being measured/);
    expect(attention.gpuCrossover.source).toBe('probing');
    expect(world.scheduled).toHaveLength(1);
    expect(world.devices).toHaveLength(0);
    // A second call meanwhile schedules nothing more.
    attention.matmul(square(512), square(512));
    expect(world.scheduled).toHaveLength(1);

    world.idle();
    const record = await backend.probing;
    // GPU: 1.5 ms + compile; WASM: 2·n³/40e6 ms — the GPU wins both workloads from n=512.
    expect(record.thresholdN).toBe(512);
    expect(record.spentMs).toBeLessThanOrEqual(PROBE_BUDGET_MS);
    expect(new Set(world.calls.gpu.map((call) => call.fn))).toEqual(new Set(['matmul', 'multiheadAttentionSplit']));
    expect(world.devices).toHaveLength(1);
    expect(JSON.parse(storage.getItem(key)).thresholdN).toBe(512);
    expect(attention.gpuCrossover).toMatchObject({ thresholdN: 512, source: 'stored' });
    expect(attention.gpuCrossover.reason).toMatch(/measured in this browser on nvidia hopper .*: the GPU was faster from n=512/);

    const gpuCalls = world.calls.gpu.length;
    const large = attention.matmul(square(512), square(512));
    expect(large).toBeInstanceOf(Promise);
    expect((await large).output.shape).toEqual([512, 512]);
    expect(attention.lastCall).toMatchObject({ fn: 'matmul', backend: 'webgpu', path: 'webgpu' });
    expect(attention.lastCall.reason).toMatch(/measured in this browser .*faster from n=512; matmul does 134217728 multiply-adds, at or above the crossover 512³/);
    expect(world.calls.gpu.length).toBe(gpuCalls + 1);

    const small = attention.matmul(square(64), square(64));
    expect(small).not.toBeInstanceOf(Promise);
    expect(attention.lastCall).toMatchObject({ fn: 'matmul', backend: 'wasm-simd' });
    expect(attention.lastCall.reason).toMatch(/measured in this browser .*; matmul does 262144 multiply-adds, below the crossover 512³/);
    expect(world.scheduled).toHaveLength(0); // measured once

    // A page loaded later with the same adapter and browser reads the record: no probe.
    const again = fakeWorld();
    const later = routed(again, { storage });
    expect(later.attention.gpuCrossover).toMatchObject({ thresholdN: 512, source: 'stored' });
    await later.attention.matmul(square(512), square(512));
    expect(later.attention.lastCall.backend).toBe('webgpu');
    expect(again.scheduled).toHaveLength(0);
  });

  test('SwiftShader and fallback adapters are never probed', async () => {
    const swiftshader = describeAdapter({ info: { vendor: 'google', architecture: 'swiftshader', description: 'SwiftShader Device (Subzero)' } });
    // The old attribute on the adapter, and GPUAdapterInfo's (Chromium 156), each with a name that is not SwiftShader's.
    const oldFallback = describeAdapter({ info: { vendor: 'acme', architecture: 'cpu', description: 'software' }, isFallbackAdapter: true });
    const infoFallback = describeAdapter({ info: { vendor: 'acme', architecture: 'cpu', description: 'software', isFallbackAdapter: true } });
    expect(infoFallback).toMatchObject({ emulated: true, label: 'acme cpu software — fallback adapter (CPU-emulated)' });
    expect(oldFallback).toMatchObject({ emulated: true, label: 'acme cpu software — fallback adapter (CPU-emulated)' });
    expect(describeAdapter({ info: { vendor: 'acme', architecture: 'cpu', description: 'software', isFallbackAdapter: false } }).emulated).toBe(false);
    for (const adapterInfo of [swiftshader, oldFallback, infoFallback]) {
      const world = fakeWorld();
      const { attention, storage } = routed(world, { adapterInfo });
      const result = attention.matmul(square(512), square(512));
      expect(result).not.toBeInstanceOf(Promise);
      expect(world.scheduled).toHaveLength(0);
      expect(world.devices).toHaveLength(0);
      expect(storage.length).toBe(0);
      // Exactly the CPU backend: the planner's record, the committed SwiftShader crossover (null) in gpuCrossover.
      expect(attention.lastCall).toEqual({ fn: 'matmul', backend: 'wasm-simd', path: 'teaching', reason: 'matmul has only the teaching code', threads: 1 });
      expect(attention.gpuCrossover).toMatchObject({ thresholdN: null, source: 'committed' });
      expect(attention.gpuCrossover.reason).toMatch(/committed for SwiftShader .*WASM was faster at every size/);
      expect(attention.onBackendChange).toBeUndefined();
    }
    // Through loadAutoBackend, from the adapter itself: neither form of the flag gets a device or a probe.
    for (const adapter of [
      { info: { vendor: 'acme', architecture: 'cpu', description: 'software', isFallbackAdapter: true } },
      { info: { vendor: 'acme', architecture: 'cpu', description: 'software' }, isFallbackAdapter: true },
    ]) {
      adapter.limits = new Proxy({}, { get: () => 1 << 30 });
      const world = fakeWorld();
      const storage = new MemoryStorage();
      const backend = await loadAutoBackend(world.cpu, { gpu: { requestAdapter: async () => adapter }, crossoverStore: createCrossoverStore(storage) });
      const attention = createAttention(backend);
      attention.matmul(square(512), square(512));
      attention.matmul(square(512), square(512));
      expect(attention.lastCall.backend).toBe('wasm-simd');
      expect(world.scheduled).toHaveLength(0);
      expect(world.devices).toHaveLength(0);
      expect(storage.length).toBe(0);
    }
  });

  test('gpuProbe false (probe: false) never probes', () => {
    const world = fakeWorld();
    const { attention } = routed(world, { probe: false });
    attention.matmul(square(512), square(512));
    attention.matmul(square(512), square(512));
    expect(world.scheduled).toHaveLength(0);
    expect(world.devices).toHaveLength(0);
    expect(attention.gpuCrossover).toMatchObject({ thresholdN: null, source: 'none' });
  });

  test('loadAutoBackend passes gpuProbe false on, and a forced crossover is never probed over', async () => {
    const adapter = {
      info: { vendor: 'nvidia', architecture: 'hopper', device: '0x2330', description: 'NVIDIA H100' },
      limits: new Proxy({}, { get: () => 1 << 30 }),
    };
    const requests = [];
    const gpu = { requestAdapter: async () => { requests.push(1); return adapter; } };
    const world = fakeWorld();
    const store = createCrossoverStore(new MemoryStorage());
    // Probing off and nothing measured for any adapter kind: the CPU backend itself, the adapter not asked.
    expect(await loadAutoBackend(world.cpu, { gpu, gpuProbe: false, crossoverStore: store })).toBe(world.cpu);
    expect(requests).toHaveLength(0);
    // Probing on (the default): a routing backend for this adapter, nothing measured yet, nothing scheduled at load.
    const on = await loadAutoBackend(world.cpu, { gpu, crossoverStore: store });
    expect(requests).toHaveLength(1);
    expect(on.gpuCrossover).toMatchObject({ thresholdN: null, source: 'none', reason: 'no GPU crossover measured for nvidia hopper NVIDIA H100' });
    expect(on.probing).toBeNull();

    // A crossover stored in this browser (set on the page, or measured) is a reason to ask, probing off too:
    // it routes after a reload.
    const key = crossoverKey(describeAdapter(adapter), BROWSER);
    store.set(key, { thresholdN: 256, rows: [], measuredAt: '2026-11-23T00:00:00Z', spentMs: 0, complete: true, source: 'set' });
    expect(store.hasAny()).toBe(true);
    requests.length = 0;
    const stored = await loadAutoBackend(world.cpu, { gpu, gpuProbe: false, crossoverStore: store });
    expect(requests).toHaveLength(1);
    expect(stored).not.toBe(world.cpu);
    store.clear(key);
    expect(store.hasAny()).toBe(false);

    const forced = routed(world, { forced: { thresholdN: 8 } });
    forced.attention.matmul(square(4), square(4));
    expect(forced.attention.gpuCrossover).toMatchObject({ thresholdN: 8, source: 'forced' });
    expect(forced.attention.lastCall.reason).toBe('matmul does 64 multiply-adds, below the crossover 8³');
    expect(world.scheduled).toHaveLength(0);
  });

  test('setGpuCrossover stores a record with source set; clearGpuCrossover removes it and the next call measures again', async () => {
    const world = fakeWorld();
    const { attention, backend, storage, key } = routed(world);
    attention.setGpuCrossover(256);
    expect(JSON.parse(storage.getItem(key))).toMatchObject({ thresholdN: 256, source: 'set' });
    expect(attention.gpuCrossover).toMatchObject({ thresholdN: 256, source: 'set' });
    await attention.matmul(square(256), square(256));
    expect(attention.lastCall).toMatchObject({ backend: 'webgpu' });
    expect(attention.lastCall.reason).toMatch(/^the crossover set for nvidia hopper .*\(thresholdN 256\); matmul does/);
    expect(world.scheduled).toHaveLength(0);

    attention.setGpuCrossover(null);
    expect(attention.gpuCrossover).toMatchObject({ thresholdN: null, source: 'set' });
    attention.matmul(square(256), square(256));
    expect(attention.lastCall).toMatchObject({ backend: 'wasm-simd' });
    expect(attention.lastCall.reason).toMatch(/the crossover set for .*thresholdN null/);

    expect(() => attention.setGpuCrossover(0)).toThrow('setGpuCrossover: thresholdN=0; expected a positive integer or null');
    expect(() => attention.setGpuCrossover('512')).toThrow("setGpuCrossover: thresholdN='512'; expected a positive integer or null");

    attention.clearGpuCrossover();
    expect(storage.getItem(key)).toBeNull();
    expect(attention.gpuCrossover.source).toBe('none');
    attention.matmul(square(256), square(256));
    expect(attention.gpuCrossover.source).toBe('probing');
    world.idle();
    expect((await backend.probing).thresholdN).toBe(512);
    expect(attention.gpuCrossover.source).toBe('stored');
  });

  test('with storage refused the probe still runs and routes for this page', async () => {
    const world = fakeWorld();
    const { attention, backend } = routed(world, { storage: refusingStorage });
    attention.matmul(square(512), square(512));
    world.idle();
    expect((await backend.probing).thresholdN).toBe(512);
    await attention.matmul(square(1024), square(1024));
    expect(attention.lastCall.backend).toBe('webgpu');
    attention.setGpuCrossover(2048);
    expect(attention.gpuCrossover).toMatchObject({ thresholdN: 2048, source: 'set' });
    attention.clearGpuCrossover();
    expect(attention.gpuCrossover.source).toBe('none');
  });

  test('a GPU backend that fails to load with a bug (not a missing device) rejects the call; nothing falls back', async () => {
    const world = fakeWorld();
    const { attention, backend } = routed(world, { forced: { thresholdN: 8 }, loadGpu: async () => { throw new TypeError('runtime is not a constructor'); } });
    await expect(attention.matmul(square(64), square(64))).rejects.toThrow('matmul: the WebGPU kernels failed (a bug, not a device failure): runtime is not a constructor');
    expect(backend.fallbackReason).toBeNull();
  });

  test('a probe that meets a kernel bug leaves every call on WASM and names the bug in gpuCrossover', async () => {
    const world = fakeWorld();
    world.gpu.matmul = async () => { throw new GpuKernelError('matmul', "WebGPU validation error (a bug in the kernels or their bindings): unresolved identifier 'acc'"); };
    const { attention, backend } = routed(world);
    attention.matmul(square(512), square(512));
    world.idle();
    expect(await backend.probing).toBeNull();
    attention.matmul(square(512), square(512));
    expect(attention.gpuCrossover.source).toBe('none');
    expect(attention.gpuCrossover.reason).toBe("the GPU crossover probe failed: matmul: WebGPU validation error (a bug in the kernels or their bindings): unresolved identifier 'acc'; every call runs on WASM");
    expect(attention.lastCall.backend).toBe('wasm-simd');
    expect(backend.fallbackReason).toBeNull();
  });

  test('a probe that fails (no device) leaves every call on WASM and says why', async () => {
    const world = fakeWorld();
    const { attention, backend } = routed(world, { loadGpu: async () => { throw new GpuUnavailableError('device-request-failed', 'adapter.requestDevice() failed'); } });
    attention.matmul(square(512), square(512));
    world.idle();
    expect(await backend.probing).toBeNull();
    attention.matmul(square(512), square(512));
    expect(attention.lastCall.backend).toBe('wasm-simd');
    expect(attention.lastCall.reason).toMatch(/WebGPU is unavailable: adapter.requestDevice\(\) failed/);
    expect(world.scheduled).toHaveLength(0);
  });

  test('the planner looks the crossover up in order: forced or set > stored > committed > none', () => {
    const info = hardwareInfo();
    const stored = { thresholdN: 256, rows: [], measuredAt: '2026-11-23T00:00:00Z', source: 'probe' };
    expect(gpuCrossoverDecision(info, { override: { thresholdN: 8, source: 'forced' }, stored }).source).toBe('forced');
    expect(gpuCrossoverDecision(info, { stored })).toMatchObject({ thresholdN: 256, source: 'stored' });
    expect(gpuCrossoverDecision(info, { probing: true }).source).toBe('probing');
    expect(gpuCrossoverDecision(info)).toMatchObject({ thresholdN: null, source: 'none' });
    expect(gpuCrossoverDecision({ ...info, emulated: true })).toMatchObject({ thresholdN: null, source: 'committed' });
  });

  test("loadAttention: gpuProbe is a boolean, and without WebGPU (Node) 'auto' says there is no crossover", async () => {
    await expect(loadAttention({ gpuProbe: 'yes' })).rejects.toThrow("loadAttention: options.gpuProbe='yes'; expected true or false");
    const attention = await loadAttention({ backend: 'auto', gpuProbe: false });
    expect(attention.gpuCrossover).toMatchObject({ thresholdN: null, source: 'none' });
    expect(attention.gpuCrossover.reason).toMatch(/no WebGPU/);
    expect(() => attention.setGpuCrossover(-1)).toThrow('setGpuCrossover: thresholdN=-1; expected a positive integer or null');
    attention.setGpuCrossover(512);
    attention.clearGpuCrossover();
    expect(attention.gpuCrossover.source).toBe('none');
  });
});
