// GPT-2 on real Web Workers (web/src/gpt2/gpt2-worker.js, started by the core's worker pool): the fixture
// checkpoint's logits (1e-4) and every layer's weights (1e-5) on 2 workers, the shares exchanging their
// partial sums over MessagePorts; and createGpt2({threads: 2}), every forward on its workers unless a crossover
// sends the tiny model's to the calling thread.
import { test, expect } from '@playwright/test';

test('GPT-2 on 2 Web Workers matches the PyTorch fixtures; createGpt2({threads: 2}) runs every forward on them unless a crossover says not', async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto('/tests/e2e/pages/gpt2.html');
  await page.waitForFunction(() => window.harnessReady === true);
  const { results, viaModel } = await page.evaluate(() => window.runGpt2Workers());
  expect(results).toHaveLength(4);
  for (const r of results) {
    const name = `${r.count} workers, case ${r.i}`;
    expect(r.threads, name).toBe(r.count);
    expect(r.logits, name).toBeLessThanOrEqual(1);
    expect(r.weights, name).toBeLessThanOrEqual(1);
  }
  expect(viaModel.workers.threads).toBe(2);
  expect(viaModel.workers.lastCall).toMatchObject({ path: 'workers (fused)', threads: 2, reason: null });
  expect(viaModel.crossover.threads).toBe(2);
  expect(viaModel.crossover.lastCall).toMatchObject({ path: 'fused', threads: 1 });
  expect(viaModel.crossover.lastCall.reason).toMatch(/below the workers' crossover \(50M\)$/);
  for (const { logits } of Object.values(viaModel)) expect(logits).toBeLessThanOrEqual(1);
});
