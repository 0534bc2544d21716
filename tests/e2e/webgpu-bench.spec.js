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
  expect(result.names).toEqual(['ours webgpu — SwiftShader (CPU-emulated)', 'tfjs-webgpu — SwiftShader (CPU-emulated)',
    'onnxruntime-web webgpu EP — SwiftShader (CPU-emulated)']);
  for (const description of result.descriptions) expect(description).toContain('SwiftShader (CPU-emulated)');
  for (const [big, small] of result.skips) {
    expect(big).toMatch(/^SwiftShader \(CPU-emulated\): sizes above 512 skipped/);
    expect(small).toBe(true);
  }
  expect(result.gemm[0]).toHaveLength(67 * 67);
  expect(result.attention[0]).toHaveLength(13 * 48);
  const maxDifference = (a, b) => a.reduce((worst, value, i) => Math.max(worst, Math.abs(value - b[i])), 0);
  for (const other of [1, 2]) {
    expect(maxDifference(result.gemm[0], result.gemm[other])).toBeLessThanOrEqual(1e-4);
    expect(maxDifference(result.attention[0], result.attention[other])).toBeLessThanOrEqual(1e-4);
  }
});

test('the webgpu training rows (ours and TensorFlow.js) take the same first step as the JS engine, and say SwiftShader', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto('/tests/e2e/pages/webgpu-bench.html');
  await page.waitForFunction(() => window.harnessReady === true);
  // The benchmark's check step (runTraining's first step), without its timed steps.
  const result = await page.evaluate(async () => {
    const { oursWebgpuTraining, tfjsWebgpuTraining, initialParameters, trainingBatch, modelConfig, OPTIMIZER, SEED } = window.training;
    const { createTrainer } = await import('/web/src/train/index.js');
    const start = initialParameters('tiny');
    const batch = trainingBatch('tiny', 0);
    const reference = await createTrainer({ ...modelConfig('tiny'), seed: SEED, parameters: start.parameters, optimizer: OPTIMIZER, backend: 'js' });
    const expected = (await reference.step(batch)).loss;
    const rows = [];
    for (const contestant of [oursWebgpuTraining(), tfjsWebgpuTraining()]) {
      const description = await contestant.setup();
      const runner = await contestant.prepare('tiny', start);
      const loss = await runner.step(batch);
      runner.dispose();
      rows.push({ name: contestant.name, description, relError: Math.abs(loss - expected) / Math.abs(expected), small: contestant.supports('small'), tiny: contestant.supports('tiny') });
    }
    return rows;
  });
  expect(result.map((r) => r.name)).toEqual(['ours webgpu — SwiftShader (CPU-emulated)', 'tfjs-webgpu — SwiftShader (CPU-emulated)']);
  for (const row of result) {
    expect(row.description).toContain('SwiftShader (CPU-emulated)');
    expect(row.relError).toBeLessThanOrEqual(1e-4);
    expect(row.tiny).toBe(true);
    expect(row.small).toMatch(/^SwiftShader \(CPU-emulated\): only tiny runs/);
  }
});
