// GPT-2 in the browser: the tiny fixture checkpoint fetched from the test server (progress, then the Cache API:
// a second load reads the cache, forgetCheckpoints() empties it), run on the WASM fast path (with the
// relaxed-SIMD tiles where Chromium has them) and composed of the webgpu backend's functions (SwiftShader),
// each against PyTorch's logits (1e-4) and attention weights (1e-5).
import { test, expect } from '@playwright/test';

test('the tiny GPT-2 loads from a URL into the cache, and matches PyTorch on the WASM fast path and on WebGPU', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/tests/e2e/pages/webgpu.html');
  await page.waitForFunction(() => window.harnessReady === true);
  const report = await page.evaluate(async () => {
    const gpt2 = await import('/web/src/gpt2/index.js');
    const { readSafetensorsHeader, readTensor } = await import('/web/src/gpt2/safetensors-read.js');
    const { loadAttention } = await import('/web/src/core/index.js');
    const base = new URL('/tests/fixtures/gpt2', location.href).href;
    await gpt2.forgetCheckpoints();
    const first = [];
    const checkpoint = await gpt2.loadGpt2FromUrl(base, { onProgress: (e) => first.push(e) });
    const cachedAfterLoad = await gpt2.isCached(`${base}/model.safetensors`);
    const second = [];
    await gpt2.loadGpt2FromUrl(base, { onProgress: (e) => second.push(e) });
    const { cases } = await (await fetch('/tests/fixtures/gpt2/forward.json')).json();
    const bytes = new Uint8Array(await (await fetch('/tests/fixtures/gpt2/forward.safetensors')).arrayBuffer());
    const header = readSafetensorsHeader(bytes, 'forward.safetensors');
    const worst = (actual, name) => {
      const want = readTensor(bytes, header, name, 'forward.safetensors').data;
      return actual.data.reduce((w, v, i) => Math.max(w, Math.abs(v - want[i]) / (1 + Math.abs(want[i]))), 0);
    };
    const runs = {};
    const fast = await gpt2.createGpt2(checkpoint, { backend: 'wasm-simd' });
    const webgpu = await gpt2.createGpt2(checkpoint, { attention: await loadAttention({ backend: 'webgpu' }) });
    for (const [name, model] of [['wasm', fast], ['webgpu', webgpu]]) {
      const plain = await model.forward(cases[3].tokens, { attention: false });
      const logitsError = worst(plain.logits, '3.logits');
      const plainPath = model.lastCall.path;
      const full = await model.forward(cases[3].tokens);
      runs[name] = {
        backend: model.backend, plainPath, logitsError,
        weightsError: Math.max(...full.attention.map((weights, l) => worst(weights, `3.attention.${l}`))),
      };
    }
    fast.dispose();
    const forgot = await gpt2.forgetCheckpoints();
    return {
      firstLast: first.filter((e) => e.file === 'model.safetensors').at(-1),
      files: [...new Set(first.map((e) => e.file))],
      cachedAfterLoad,
      secondCached: second.every((e) => e.cached),
      forgot,
      cachedAfterForget: await gpt2.isCached(`${base}/model.safetensors`),
      runs,
    };
  });
  expect(report.files).toEqual(['config.json', 'vocab.json', 'merges.txt', 'model.safetensors']);
  expect(report.firstLast).toMatchObject({ loaded: 145088, total: 145088, cached: false });
  expect(report.cachedAfterLoad).toBe(true);
  expect(report.secondCached).toBe(true);
  expect(report.forgot).toBe(true);
  expect(report.cachedAfterForget).toBe(false);
  expect(report.runs.wasm).toMatchObject({ backend: 'wasm-simd', plainPath: 'fused' });
  expect(report.runs.webgpu.backend).toBe('api:webgpu');
  expect(report.runs.webgpu.plainPath).toMatch(/multiheadAttentionFused: webgpu/);
  for (const [name, run] of Object.entries(report.runs)) {
    expect(run.logitsError, `${name} logits`).toBeLessThan(1e-4);
    expect(run.weightsError, `${name} weights`).toBeLessThan(1e-5);
  }
});
