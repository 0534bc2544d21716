// The benchmark's WebGPU contestants (bench/webgpu-contestants.js) compute the same numbers before anyone
// times them, and say when their GPU is SwiftShader.
import { test, expect } from '@playwright/test';

test('the webgpu contestants (ours and TensorFlow.js) agree on GEMM and causal multi-head attention', async ({ page }) => {
  await page.goto('/tests/e2e/pages/webgpu-bench.html');
  await page.waitForFunction(() => window.harnessReady === true);
  const result = await page.evaluate(async () => {
    const { contestants, skipped } = await window.contestants.createWebGpuContestants();
    const gemm = [];
    const attention = [];
    for (const contestant of contestants) {
      gemm.push(Array.from(await (await contestant.gemm(67))()));
      attention.push(Array.from(await (await contestant.attention({ T: 13, dModel: 48, heads: 4 }))()));
      contestant.dispose();
    }
    return { names: contestants.map((c) => c.name), skipped, gemm, attention };
  });
  expect(result.skipped).toEqual([]);
  expect(result.names).toEqual([
    'attention-playground webgpu — SwiftShader (CPU-emulated)',
    'TensorFlow.js webgpu — SwiftShader (CPU-emulated)',
  ]);
  expect(result.gemm[0]).toHaveLength(67 * 67);
  expect(result.attention[0]).toHaveLength(13 * 48);
  const maxDifference = (a, b) => a.reduce((worst, value, i) => Math.max(worst, Math.abs(value - b[i])), 0);
  expect(maxDifference(result.gemm[0], result.gemm[1])).toBeLessThanOrEqual(1e-4);
  expect(maxDifference(result.attention[0], result.attention[1])).toBeLessThanOrEqual(1e-4);
});
