// The same correctness suite as the WASM builds (tests/unit/steps.test.js): every PyTorch fixture case,
// through the public API on the webgpu backend (SwiftShader), at the same tolerance (1e-5 + 1e-5·|expected|).
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { FIXTURE_FUNCTIONS } from '../../web/src/core/registry.js';

const FIXTURES = new URL('./../fixtures/', import.meta.url);
const TOLERANCE = { atol: 1e-5, rtol: 1e-5 };
// The registry's functions with fixtures (web/src/core/registry.js), as the Vitest and native runners.
const fixtures = FIXTURE_FUNCTIONS.map((fn) => JSON.parse(readFileSync(new URL(`${fn}.json`, FIXTURES), 'utf8')));

test('every PyTorch fixture case matches on the webgpu backend', async ({ page }) => {
  await page.goto('/tests/e2e/pages/webgpu.html');
  await page.waitForFunction(() => window.harnessReady === true);
  const reports = await page.evaluate(async ({ fixtures, tolerance }) => {
    const { runFixture } = await import('./webgpu-fixtures.js');
    const out = {};
    for (const fixture of fixtures) out[fixture.function] = await runFixture(fixture, tolerance);
    return out;
  }, { fixtures, tolerance: TOLERANCE });
  for (const [fn, report] of Object.entries(reports)) {
    expect(report.cases, fn).toBeGreaterThan(0);
    expect(report.problems, `${fn} (worst |error| ${report.worst.maxAbsError} at ${report.worst.where})`).toEqual([]);
  }
});

test('every multi-head fixture case matches on the webgpu backend\'s fused path (intermediates: false)', async ({ page }) => {
  // The logits-near-1e4 cases (dyadic inputs, exact Q·Kᵀ) included: the online softmax subtracts the
  // running max before anything inexact.
  const multihead = fixtures.filter((fixture) => ['multiheadAttentionSplit', 'multiheadAttentionFused',
    'multiheadAttentionStacked', 'crossAttention'].includes(fixture.function));
  expect(multihead.length).toBe(4);
  await page.goto('/tests/e2e/pages/webgpu.html');
  await page.waitForFunction(() => window.harnessReady === true);
  const reports = await page.evaluate(async ({ fixtures, tolerance }) => {
    const { runFixture } = await import('./webgpu-fixtures.js');
    const out = {};
    for (const fixture of fixtures) out[fixture.function] = await runFixture(fixture, tolerance, { lean: true });
    return out;
  }, { fixtures: multihead, tolerance: TOLERANCE });
  for (const [fn, report] of Object.entries(reports)) {
    expect(report.cases, fn).toBeGreaterThan(0);
    expect(report.problems, `${fn} (worst |error| ${report.worst.maxAbsError} at ${report.worst.where})`).toEqual([]);
  }
});

test('masked calls on the webgpu backend: supportsOp sends them to the JS reference, lastCall says teaching', async ({ page }) => {
  // No masked case is declined: the WGSL passes take no attnMask, keyPaddingMask or xValue, so the backend runs
  // the JS reference for them (the fixture tests above check their values).
  await page.goto('/tests/e2e/pages/webgpu.html');
  await page.waitForFunction(() => window.harnessReady === true);
  const seen = await page.evaluate(async () => {
    const { createAttention } = await import('/web/src/core/api.js');
    const { loadWebGpuBackend } = await import('/web/src/core/backends/webgpu.js');
    const backend = await loadWebGpuBackend();
    const attention = createAttention(backend);
    const t = (shape) => ({ data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => ((i % 5) - 2) / 4), shape });
    const weights = { query: t([4, 4]), key: t([4, 4]), value: t([4, 4]) };
    const keyPaddingMask = { data: Uint8Array.from([0, 0, 1, 0, 1, 1, 1, 1]), shape: [2, 4] };
    const answer = backend.supportsOp('crossAttention', [[2, 3, 4], [2, 4, 4], [4, 4]], { keyPaddingMask });
    const result = await attention.crossAttention(t([2, 3, 4]), t([2, 4, 4]), weights, { heads: 2, keyPaddingMask });
    return { answer, lastCall: attention.lastCall, zeroRow: Array.from(result.output.data.subarray(12)).every((v) => v === 0) };
  });
  expect(seen.answer).toEqual({ supported: true, reason: 'attnMask, keyPaddingMask or xValue: the WGSL passes take none of them; the JS reference computes it' });
  expect(seen.lastCall).toMatchObject({ fn: 'crossAttention', backend: 'webgpu', path: 'teaching', reason: 'attnMask, keyPaddingMask or xValue: the WGSL passes take none of them: the webgpu backend runs the JS reference' });
  expect(seen.zeroRow).toBe(true);
});
