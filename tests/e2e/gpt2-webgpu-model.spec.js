// GPT-2 on WebGPU (web/src/gpt2/webgpu-model.js, Chromium's SwiftShader here): every block on the GPU (LayerNorm,
// the GEMMs with their bias, causal attention, GPT-2's tanh GELU and the residual adds), the fixture checkpoint's
// logits (1e-4) and every layer's weights (1e-5) against PyTorch, and heads ablated as the JS reference does.
import { test, expect } from '@playwright/test';

test('GPT-2 on WebGPU matches the PyTorch fixtures, with and without the weights, and ablates heads as the JS reference', async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto('/tests/e2e/pages/gpt2.html');
  await page.waitForFunction(() => window.harnessReady === true);
  const { backend, results, ablated } = await page.evaluate(() => window.runGpt2WebGpu());
  expect(backend).toBe('webgpu');
  expect(results).toHaveLength(4);
  for (const r of results) {
    expect(r.path, `case ${r.i}`).toBe('webgpu');
    expect(r.logits, `case ${r.i} logits`).toBeLessThanOrEqual(1);
    expect(r.weights, `case ${r.i} weights`).toBeLessThanOrEqual(1);
  }
  for (const a of ablated) {
    expect(a.logits, a.ablation).toBeLessThanOrEqual(1);
    expect(a.changed, `${a.ablation}: the heads switched off change the logits`).toBeGreaterThan(1);
  }
});
