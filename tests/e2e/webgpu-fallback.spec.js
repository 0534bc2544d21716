// What happens where WebGPU is missing or goes away: no navigator.gpu, an adapter of null, and a device
// destroyed mid-session. Each time loadAttention({backend: 'webgpu'}) ends on WASM, says why, and gives the
// WASM backend's numbers.
import { test, expect } from '@playwright/test';

/** Loads the API on 'webgpu', runs a causal self-attention and returns what the API says about itself. */
async function runSelfAttention(page) {
  return page.evaluate(async () => {
    const { loadAttention } = await import('/web/src/core/index.js');
    const attention = await loadAttention({ backend: 'webgpu' });
    const x = { data: new Float32Array([0.43, 0.15, 0.89, 0.55, 0.87, 0.66, 0.57, 0.85, 0.64]), shape: [3, 3] };
    const w = { data: new Float32Array([0.1, -0.2, 0.3, 0.4, 0.5, -0.6]), shape: [3, 2] };
    const result = await attention.selfAttention(x, { query: w, key: w, value: w }, { causal: true });
    return { backend: attention.backend, fallbackReason: attention.fallbackReason, output: Array.from(result.output.data) };
  });
}

test.describe('webgpu fallback', () => {
  test('without navigator.gpu the API falls back to WASM and says why', async ({ page }) => {
    await page.addInitScript(() => { delete Navigator.prototype.gpu; });
    await page.goto('/tests/e2e/pages/webgpu.html');
    const result = await runSelfAttention(page);
    expect(result.backend).toBe('wasm-simd');
    expect(result.fallbackReason).toContain('navigator.gpu is undefined');
    expect(result.output).toHaveLength(6);
  });

  test('when requestAdapter() gives null the API falls back to WASM and says why', async ({ page }) => {
    await page.addInitScript(() => { GPU.prototype.requestAdapter = async () => null; });
    await page.goto('/tests/e2e/pages/webgpu.html');
    const result = await runSelfAttention(page);
    expect(result.backend).toBe('wasm-simd');
    expect(result.fallbackReason).toContain('requestAdapter() returned null');
  });

  test('when requestDevice() fails the API falls back to WASM and says why', async ({ page }) => {
    await page.addInitScript(() => {
      GPUAdapter.prototype.requestDevice = async () => { throw new Error('the GPU process crashed'); };
    });
    await page.goto('/tests/e2e/pages/webgpu.html');
    const result = await runSelfAttention(page);
    expect(result.backend).toBe('wasm-simd');
    expect(result.fallbackReason).toContain('requestDevice() failed: the GPU process crashed');
  });

  test('a device destroyed mid-session moves the calls to WASM, with the same numbers, and says so', async ({ page }) => {
    // Keep a handle on every device the page creates, so the test can destroy it as a driver reset would.
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
    const result = await page.evaluate(async () => {
      const { loadAttention } = await import('/web/src/core/index.js');
      const attention = await loadAttention({ backend: 'webgpu' });
      const changes = [];
      attention.onBackendChange((change) => changes.push(change));
      const x = { data: new Float32Array([0.43, 0.15, 0.89, 0.55, 0.87, 0.66, 0.57, 0.85, 0.64, 0.22, 0.58, 0.33]), shape: [4, 3] };
      const w = { data: new Float32Array([0.1, -0.2, 0.3, 0.4, 0.5, -0.6]), shape: [3, 2] };
      const call = () => attention.selfAttention(x, { query: w, key: w, value: w }, { causal: true });
      const before = { backend: attention.backend, weights: Array.from((await call()).weights.data) };
      // Lost while a pass is in flight: that very call is answered by WASM.
      const pending = call();
      window.devices.at(-1).destroy();
      const during = await pending;
      const after = await call();
      return {
        before, during: Array.from(during.weights.data), changes,
        after: { backend: attention.backend, reason: attention.fallbackReason, weights: Array.from(after.weights.data) },
      };
    });
    expect(result.before.backend).toBe('webgpu');
    expect(result.after.backend).toBe('wasm-simd');
    expect(result.after.reason).toMatch(/device was lost \(destroyed.*now on wasm-simd/);
    expect(result.changes).toEqual([{ backend: 'wasm-simd', reason: result.after.reason }]);
    result.before.weights.forEach((w, i) => {
      expect(result.during[i]).toBeCloseTo(w, 5);
      expect(result.after.weights[i]).toBeCloseTo(w, 5);
    });
  });
});
