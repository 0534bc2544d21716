// createTrainer({threads}) in Chromium: the batch's rows shared among the calling thread and workers
// (web/src/train/shards.js) train exactly as PyTorch does (the 50-step fixture, every case, both WASM builds),
// reproducibly for a thread count; setParameters() reaches the workers; a failing worker leaves the trainer
// on one thread, still training correctly; 'auto' starts workers only for a model large enough to pay.
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { decodeValue } from '../unit/fixtures.js';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/trainAttentionOnly.json', import.meta.url), 'utf8'));
const plain = (value) => JSON.parse(JSON.stringify(value, (key, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));
const decoded = (testCase) => plain({ ...testCase, initial: decodeValue(testCase.initial), batches: decodeValue(testCase.batches), final: decodeValue(testCase.final) });
const cases = fixture.cases.map(decoded);
const label = ({ config: c, gradClip }) => `contextLength ${c.contextLength}, layers ${c.layers}, LayerNorm ${c.layerNorm ? 'on' : 'off'}${gradClip ? `, gradClip ${gradClip}` : ''}`;

test.describe('createTrainer({threads})', () => {
  test.beforeEach(async ({ page }) => {
    await page.goto('/tests/e2e/pages/threads.html');
    await page.waitForFunction(() => window.harnessReady === true);
  });

  test('threads: 2 and 3 match the 50 PyTorch steps on every case, on wasm-simd and wasm-baseline, reproducibly', async ({ page }) => {
    const results = await page.evaluate(async (all) => {
      const { trainFixture } = window.trainerThreads;
      const out = [];
      for (const c of all) {
        for (const [backend, threads] of [['wasm-simd', 2], ['wasm-baseline', 2], ['wasm-simd', 3]]) out.push({ backend, threads, ...(await trainFixture(c, { backend, threads })) });
      }
      const again = await trainFixture(all[3], { threads: 2 });
      const single = await trainFixture(all[3], { threads: 1 });
      return { out, again: again.losses, single: single.losses };
    }, cases);
    results.out.forEach((r, i) => {
      const name = `${label(cases[Math.floor(i / 3)])}, ${r.backend}, threads ${r.threads}`;
      expect(r.threadsReason, name).toBeNull();
      expect(r.steps, name).toBe(50);
      expect(r.lossError, name).toBeLessThanOrEqual(1e-4);
      expect(r.gradNormError, name).toBeLessThanOrEqual(1e-4);
      expect(r.finalError, name).toBeLessThanOrEqual(1e-4);
      // k_proj.bias: a gradient of exactly 0 on every shard, so weight decay alone moves it
      expect(r.keyBias.fromDecay, `${name}: k_proj.bias`).toBe(0);
      expect(r.keyBias.fromTorch, `${name}: k_proj.bias`).toBeLessThanOrEqual(2e-2);
    });
    expect(results.out.map((r) => r.threads)).toEqual(cases.flatMap(() => [2, 2, 3]));
    // the same thread count, bit for bit
    expect(results.again).toEqual(results.out[9].losses);
    // against one thread: only the rounding of the gradients' sum
    const worst = results.single.reduce((w, loss, s) => Math.max(w, Math.abs(loss - results.again[s]) / Math.abs(loss)), 0);
    expect(worst).toBeLessThanOrEqual(1e-6);
  });

  test('batches of fewer rows than threads (1, 2, 3 rows on 3 threads): the idle workers still take every AdamW step', async ({ page }) => {
    const result = await page.evaluate((c) => window.trainerThreads.fewerRowsThanThreads(c, 3, 24), cases[3]);
    expect(result.threads).toBe(3);
    expect(result.worst).toBeLessThanOrEqual(1e-6);
  });

  test('setParameters() between steps reaches the workers', async ({ page }) => {
    const result = await page.evaluate((c) => window.trainerThreads.setParametersMidway(c, 2), cases[1]);
    expect(result.threads).toBe(2);
    expect(result.lossDifference).toBeLessThanOrEqual(1e-5);
  });

  test('a worker that fails leaves the trainer on one thread, training on from its own model, and says why', async ({ page }) => {
    const result = await page.evaluate((c) => window.trainerThreads.workerFailure(c), cases[3]);
    expect(result.threads).toBe(1);
    expect(result.threadsReason).toContain('the workers failed at step 7 (');
    expect(result.threadsReason).toContain('killed by the test');
    expect(result.steps).toBe(12);
    expect(result.lossError).toBeLessThanOrEqual(1e-5);
  });

  test("'auto' on a cross-origin isolated page: workers for a large model, one thread (and why) for a small one", async ({ page }) => {
    const small = await page.evaluate(() => window.trainerThreads.autoThreads({ vocabSize: 32, contextLength: 32, dModel: 64, heads: 4, layers: 2 }));
    const large = await page.evaluate(() => window.trainerThreads.autoThreads({ vocabSize: 256, contextLength: 128, dModel: 256, heads: 8, layers: 4 }));
    expect(small.isolated).toBe(true);
    expect(small.threads).toBe(1);
    expect(small.threadsReason).toMatch(/^threads 'auto': a sequence's forward is 1\.2 M multiply-adds, below the 20 M from which 'auto' starts workers$/);
    expect(large.threads).toBe(Math.min(large.cores, 4));
    expect(large.threadsReason).toBeNull();
  });
});
