// loadAttention({backend: 'auto'}) where the browser has WebGPU (SwiftShader here): each call goes to the GPU
// when it is above the crossover and supported, to WASM SIMD below it; the measured crossover on SwiftShader
// is "never", so there 'auto' stays on WASM and never creates a device; a device lost while routing moves
// every call to WASM. The crossover is forced small with the test-only option gpuCrossover.
import { test, expect } from '@playwright/test';

const TOLERANCE = 1e-4;

test.describe('auto: WebGPU above the crossover, WASM below', () => {
  test.beforeEach(async ({ page }) => {
    // Count (and keep) every device the page creates: 'auto' must create one only when a call routes to it.
    await page.addInitScript(() => {
      const requestDevice = GPUAdapter.prototype.requestDevice;
      window.devices = [];
      GPUAdapter.prototype.requestDevice = async function (...args) {
        const device = await requestDevice.apply(this, args);
        window.devices.push(device);
        return device;
      };
    });
    await page.goto('/tests/e2e/pages/webgpu.html');
  });

  test('with the crossover forced to 8, a large matmul runs on webgpu and a small one on wasm, both matching WASM', async ({ page }) => {
    const result = await page.evaluate(async () => {
      const { loadAttention } = await import('/web/src/core/index.js');
      const { randomTensor } = window.harness;
      const auto = await loadAttention({ backend: 'auto', gpuCrossover: { thresholdN: 8 } });
      const wasm = await loadAttention({ backend: 'wasm-simd' });
      const devicesAtLoad = window.devices.length;
      const initial = auto.backend;
      const maxDiff = (a, b) => a.reduce((worst, v, i) => Math.max(worst, Math.abs(v - b[i])), 0);
      const tensor = (shape, seed) => ({ data: randomTensor(shape.reduce((p, s) => p * s, 1), seed), shape });

      // 4·4·4 = 64 multiply-adds < 8³: WASM, synchronously, and no device yet.
      const smallA = tensor([4, 4], 1);
      const smallB = tensor([4, 4], 2);
      const small = auto.matmul(smallA, smallB);
      const smallCall = { backend: auto.backend, lastCall: auto.lastCall, isPromise: small instanceof Promise, devices: window.devices.length };
      const smallDiff = maxDiff(small.output.data, wasm.matmul(smallA, smallB).output.data);

      // 67·37·65 multiply-adds ≥ 8³: webgpu (the device is requested now).
      const largeA = tensor([67, 37], 3);
      const largeB = tensor([37, 65], 4);
      const pending = auto.matmul(largeA, largeB);
      const isPromise = pending instanceof Promise;
      const large = await pending;
      const largeCall = { backend: auto.backend, lastCall: auto.lastCall, isPromise, devices: window.devices.length, shape: large.output.shape };
      const largeDiff = maxDiff(large.output.data, wasm.matmul(largeA, largeB).output.data);

      // Small again after the device exists: still WASM.
      auto.matmul(smallA, smallB);
      return { devicesAtLoad, initial, smallCall, smallDiff, largeCall, largeDiff, backendAfterSmall: auto.backend, fallbackReason: auto.fallbackReason };
    });
    expect(result.devicesAtLoad).toBe(0); // the device is requested lazily
    expect(result.initial).toBe('wasm-simd');
    expect(result.smallCall).toMatchObject({ backend: 'wasm-simd', isPromise: false, devices: 0 });
    expect(result.smallCall.lastCall).toMatchObject({ fn: 'matmul', backend: 'wasm-simd' });
    expect(result.smallCall.lastCall.reason).toMatch(/64 multiply-adds, below the crossover 8³/);
    expect(result.largeCall).toMatchObject({ backend: 'webgpu', isPromise: true, devices: 1, shape: [67, 65] });
    expect(result.largeCall.lastCall).toMatchObject({ fn: 'matmul', backend: 'webgpu' });
    expect(result.largeCall.lastCall.reason).toMatch(/at or above the crossover 8³/);
    expect(result.smallDiff).toBeLessThanOrEqual(TOLERANCE);
    expect(result.largeDiff).toBeLessThanOrEqual(TOLERANCE);
    expect(result.backendAfterSmall).toBe('wasm-simd');
    expect(result.fallbackReason).toBeNull();
  });

  test('with the measured crossover.json on SwiftShader (null: never), auto stays on WASM and creates no device', async ({ page }) => {
    const result = await page.evaluate(async () => {
      const { loadAttention } = await import('/web/src/core/index.js');
      const { default: crossover } = await import('/web/src/gpu/crossover.json', { with: { type: 'json' } });
      const { randomTensor } = window.harness;
      const auto = await loadAttention({ backend: 'auto' });
      const a = { data: randomTensor(256 * 256, 5), shape: [256, 256] };
      const product = auto.matmul(a, a);
      return {
        thresholdN: crossover.swiftshader.thresholdN,
        backend: auto.backend,
        build: auto.build,
        isPromise: product instanceof Promise,
        lastCall: auto.lastCall,
        hasOnBackendChange: typeof auto.onBackendChange === 'function',
        devices: window.devices.length,
      };
    });
    expect(result.thresholdN).toBeNull();
    // Exactly 'auto' without WebGPU: the plain WASM SIMD backend, synchronous, the planner's record, no device.
    expect(result).toMatchObject({ backend: 'wasm-simd', build: 'simd', isPromise: false, hasOnBackendChange: false, devices: 0 });
    expect(result.lastCall).toEqual({ fn: 'matmul', backend: 'wasm-simd', path: 'teaching', reason: 'matmul has only the teaching code', threads: 1 });
  });

  test('a device destroyed mid-session while routing moves every call to WASM, with the same numbers, and says so', async ({ page }) => {
    const result = await page.evaluate(async () => {
      const { loadAttention } = await import('/web/src/core/index.js');
      const { randomTensor } = window.harness;
      const auto = await loadAttention({ backend: 'auto', gpuCrossover: { thresholdN: 8 } });
      const changes = [];
      auto.onBackendChange((change) => changes.push(change));
      const a = { data: randomTensor(40 * 24, 6), shape: [40, 24] };
      const b = { data: randomTensor(24 * 33, 7), shape: [24, 33] };
      const before = Array.from((await auto.matmul(a, b)).output.data);
      const beforeBackend = auto.backend;
      // Lost while a pass is in flight: that very call is answered by WASM.
      const pending = auto.matmul(a, b);
      await new Promise((done) => setTimeout(done, 0));
      window.devices.at(-1).destroy();
      const during = Array.from((await pending).output.data);
      const duringBackend = auto.backend;
      const after = auto.matmul(a, b); // above the crossover, but the GPU is gone: WASM, synchronously
      return {
        beforeBackend, duringBackend, changes, before, during,
        after: Array.from(after.output.data), afterIsPromise: after instanceof Promise,
        afterBackend: auto.backend, lastCall: auto.lastCall, reason: auto.fallbackReason, devices: window.devices.length,
      };
    });
    expect(result.beforeBackend).toBe('webgpu');
    expect(result.duringBackend).toBe('wasm-simd');
    expect(result.afterBackend).toBe('wasm-simd');
    expect(result.afterIsPromise).toBe(false);
    expect(result.devices).toBe(1);
    expect(result.reason).toMatch(/device was lost \(destroyed.*now on wasm-simd/);
    expect(result.lastCall).toEqual({ fn: 'matmul', backend: 'wasm-simd', path: 'teaching', reason: result.reason, threads: 1 });
    expect(result.changes).toEqual([{ backend: 'wasm-simd', reason: result.reason }]);
    result.before.forEach((value, i) => {
      expect(Math.abs(result.during[i] - value)).toBeLessThanOrEqual(TOLERANCE);
      expect(Math.abs(result.after[i] - value)).toBeLessThanOrEqual(TOLERANCE);
    });
  });

  test('explicit backends still override auto: wasm-simd is never routed, webgpu always is', async ({ page }) => {
    const result = await page.evaluate(async () => {
      const { loadAttention } = await import('/web/src/core/index.js');
      const { randomTensor } = window.harness;
      const small = { data: randomTensor(4, 8), shape: [2, 2] };
      const large = { data: randomTensor(64 * 64, 9), shape: [64, 64] };
      const wasm = await loadAttention({ backend: 'wasm-simd', gpuCrossover: { thresholdN: 8 } });
      wasm.matmul(large, large);
      const wasmBackend = wasm.backend;
      const devicesAfterWasm = window.devices.length;
      const gpu = await loadAttention({ backend: 'webgpu' });
      await gpu.matmul(small, small);
      return { wasmBackend, devicesAfterWasm, gpuBackend: gpu.backend };
    });
    expect(result).toEqual({ wasmBackend: 'wasm-simd', devicesAfterWasm: 0, gpuBackend: 'webgpu' });
  });

  test('SwiftShader is never probed: the committed crossover stands, nothing is stored, no device', async ({ page }) => {
    const result = await page.evaluate(async () => {
      localStorage.clear();
      const { loadAttention } = await import('/web/src/core/index.js');
      const { randomTensor } = window.harness;
      const auto = await loadAttention({ backend: 'auto' });
      const a = { data: randomTensor(512 * 512, 3), shape: [512, 512] };
      auto.matmul(a, a);
      await new Promise((done) => setTimeout(done, 300));
      return { crossover: auto.gpuCrossover, stored: localStorage.length, devices: window.devices.length };
    });
    expect(result.crossover).toMatchObject({ thresholdN: null, source: 'committed' });
    expect(result.crossover.reason).toMatch(/SwiftShader/);
    expect(result).toMatchObject({ stored: 0, devices: 0 });
  });

  test('the probe over the real webgpu and WASM backends (adapter taken as real) times both workloads and stores its record', async ({ page }) => {
    const result = await page.evaluate(async () => {
      localStorage.clear();
      const { createRoutingBackend } = await import('/web/src/core/backends/auto.js');
      const { loadWebGpuOverCpu } = await import('/web/src/core/backends/webgpu.js');
      const { probeAdapter } = await import('/web/src/gpu/device.js');
      const { loadWasmBackend } = await import('/web/src/core/backends/wasm.js');
      const { createAttention } = await import('/web/src/core/api.js');
      const { adapter, adapterInfo } = await probeAdapter();
      const cpu = await loadWasmBackend({ build: 'simd' });
      // SwiftShader taken for a real adapter, so that the probe runs here.
      const backend = createRoutingBackend(cpu, {
        adapterInfo: { ...adapterInfo, emulated: false },
        loadGpu: (thresholdN) => loadWebGpuOverCpu({ adapter, gpuCrossover: { thresholdN } }, async () => cpu),
        // On SwiftShader, on a loaded machine, the device request and the compiles alone can spend 300 ms and
        // leave no row: a larger budget, so that the real backends are timed (the budget is tested with fakes).
        budgetMs: 5000,
      });
      const attention = createAttention(backend);
      const { randomTensor } = window.harness;
      const a = { data: randomTensor(64 * 64, 4), shape: [64, 64] };
      attention.matmul(a, a);
      const during = { lastCall: attention.lastCall, source: attention.gpuCrossover.source };
      const record = await backend.probing;
      return { during, record, after: attention.gpuCrossover, stored: Object.keys(localStorage) };
    });
    expect(result.during.lastCall.backend).toBe('wasm-simd');
    expect(result.during.lastCall.reason).toMatch(/is being measured/);
    expect(result.during.source).toBe('probing');
    expect(result.record.rows.length).toBeGreaterThan(0);
    for (const row of result.record.rows) {
      expect(['matmul', 'attention']).toContain(row.workload);
      expect(row.gpuMs).toBeGreaterThanOrEqual(0);
      expect(row.wasmMs).toBeGreaterThanOrEqual(0);
    }
    expect(result.after.source).toBe('stored');
    expect(result.after.thresholdN).toBe(result.record.thresholdN);
    expect(result.stored).toHaveLength(1);
    expect(result.stored[0]).toMatch(/^attention-playground:crossover:/);
  });
});
