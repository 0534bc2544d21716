// The benchmark's WebGPU contestants (bench/webgpu-contestants.js) compute the same numbers before anyone
// times them, and say when their GPU is SwiftShader.
import { test, expect } from '@playwright/test';

test('the webgpu contestants (ours and TensorFlow.js) agree on GEMM and causal multi-head attention', async ({ page }) => {
  await page.goto('/tests/e2e/pages/webgpu-bench.html');
  await page.waitForFunction(() => window.harnessReady === true);
  const result = await page.evaluate(async () => {
    const contestants = window.contestants.webgpuContestants();
    const descriptions = [];
    const gemm = [];
    const attention = [];
    for (const contestant of contestants) {
      descriptions.push(await contestant.setup());
      const gemmRunner = await contestant.tasks.gemm.prepare(window.benchInputs.gemmInputs(67));
      gemm.push(Array.from(await gemmRunner.run()));
      const attentionRunner = await contestant.tasks.attention.prepare(window.benchInputs.attentionInputs(13, { dModel: 48, heads: 4 }));
      attention.push(Array.from(await attentionRunner.run()));
      attentionRunner.dispose?.();
    }
    return {
      names: contestants.map((c) => c.name), descriptions, gemm, attention,
      skips: contestants.map((c) => [c.tasks.gemm.supports(1024), c.tasks.attention.supports(128)]),
    };
  });
  expect(result.names).toEqual(['ours webgpu — SwiftShader (CPU-emulated)', 'tfjs-webgpu — SwiftShader (CPU-emulated)']);
  for (const description of result.descriptions) expect(description).toContain('SwiftShader (CPU-emulated)');
  for (const [big, small] of result.skips) {
    expect(big).toMatch(/^SwiftShader \(CPU-emulated\): sizes above 512 skipped/);
    expect(small).toBe(true);
  }
  expect(result.gemm[0]).toHaveLength(67 * 67);
  expect(result.attention[0]).toHaveLength(13 * 48);
  const maxDifference = (a, b) => a.reduce((worst, value, i) => Math.max(worst, Math.abs(value - b[i])), 0);
  expect(maxDifference(result.gemm[0], result.gemm[1])).toBeLessThanOrEqual(1e-4);
  expect(maxDifference(result.attention[0], result.attention[1])).toBeLessThanOrEqual(1e-4);
});
