// createTrainer({backend: 'webgpu'}) in headless Chromium on SwiftShader: the trainer's PyTorch fixture
// through the public API, the copies back to the CPU every syncEvery steps, and a lost device resuming on
// the CPU from the last copy.
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { decodeValue } from '../unit/fixtures.js';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/trainAttentionOnly.json', import.meta.url), 'utf8'));
const plain = (value) => JSON.parse(JSON.stringify(value, (key, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));
const decoded = (testCase) => plain({ ...testCase, initial: decodeValue(testCase.initial), batches: decodeValue(testCase.batches), final: decodeValue(testCase.final) });
const lastCase = fixture.cases.find((c) => c.name === '2 layers, LayerNorm, gradClip 0.5');

test.describe("createTrainer({backend: 'webgpu'})", () => {
  test.beforeEach(async ({ page }) => {
    await page.goto('/tests/e2e/pages/webgpu-train.html');
    await page.waitForFunction(() => window.harnessReady === true);
  });

  test('trains as PyTorch, keeping the CPU copy at most syncEvery steps behind; sync() brings the final state', async ({ page }) => {
    const result = await page.evaluate(([c]) => window.harness.checkWebgpuTrainer(c, 7), [decoded(lastCase)]);
    expect(result.backend).toBe('webgpu');
    expect(result.steps).toBe(50);
    expect(result.lossError).toBeLessThanOrEqual(1e-4);
    expect(result.finalError).toBeLessThanOrEqual(1e-4);
    expect(result.copiedStepsOk).toBe(true);
    expect(result.gradients).toBe(true);
  });

  test('a lost device resumes on the CPU from the last copy, losing fewer than syncEvery steps, and says so', async ({ page }) => {
    const result = await page.evaluate(([c]) => window.harness.checkLostDevice(c, { syncEvery: 3, before: 5 }), [decoded(lastCase)]);
    expect(result.backend).toBe('js');
    expect(result.copied).toBe(3);
    expect(result.steps).toBe(4);
    expect(result.reason).toContain('losing 2 steps');
    expect(result.lossError).toBeLessThanOrEqual(1e-4);
  });

  test("loadTrainer(bytes, {backend: 'webgpu'}) resumes a JS trainer's file, and its own file resumes on JS", async ({ page }) => {
    const result = await page.evaluate(([c]) => window.harness.checkResumeOnWebgpu(c, { first: 10, more: 10 }), [decoded(lastCase)]);
    expect(result.backend).toBe('webgpu');
    expect(result.steps).toBe(20);
    expect(result.reloadedSteps).toBe(20);
    expect(result.lossError).toBeLessThanOrEqual(1e-4);
    expect(result.parameterError).toBeLessThanOrEqual(1e-4);
  });

  test('evaluate(), predict() and attention() run on the device without copying its state back, and match the JS engine', async ({ page }) => {
    const result = await page.evaluate(([c]) => window.harness.checkForwardOnDevice(c, 6), [decoded(lastCase)]);
    expect(result.backend).toBe('webgpu');
    expect(result.copiedStep).toBe(0);
    expect(result.lossError).toBeLessThanOrEqual(1e-4);
    expect(result.accuracy[0]).toBe(result.accuracy[1]);
    expect(result.logitsShape).toEqual([3, 6, 7]);
    expect(result.logitsError).toBeLessThanOrEqual(1e-4);
    expect(result.weightsShapes).toEqual([[3, 4, 6, 6], [3, 4, 6, 6]]);
    expect(result.weightsError).toBeLessThanOrEqual(1e-5);
    expect(result.rowSums).toBeLessThanOrEqual(1e-5);
    // the device lost: evaluate() resumes on the CPU from the last copy (step 0) and says so
    expect(result.afterBackend).toBe('js');
    expect(result.afterReason).toContain('losing 6 steps');
    expect(result.afterLoss).toBeGreaterThan(0);
  });

  test('a device lost before sync() resumes on the CPU from the last copy instead of throwing', async ({ page }) => {
    const result = await page.evaluate(([c]) => window.harness.checkLostDeviceAtSync(c, { syncEvery: 4, before: 6 }), [decoded(lastCase)]);
    expect(result.backend).toBe('js');
    expect(result.steps).toBe(4);
    expect(result.reason).toContain('losing 2 steps');
    expect(result.parameterError).toBeLessThanOrEqual(1e-4);
  });
});
