// Walks the 11 steps of the page: each renders without console errors or warnings, shows the numbers
// the core computes for the same inputs, follows every one of its controls, and is saved as a
// screenshot (test-results/page-screenshots/NN-step.png, also attached to the report).
import { test, expect } from '@playwright/test';
import { startServer } from '../../scripts/serve.mjs';
import { afterRender, expectPageMatchesCore, openPage, shownValues, watchConsole, openSettings } from './page-helpers.js';

const STEPS = [
  'framing', 'loop', 'matmul', 'softmax', 'self-attention', 'weights', 'causal', 'dropout', 'check', 'multihead', 'cross',
];

// A new value for every control, and how to enter it through the page.
const NEW_VALUES = {
  sentence: 'the quick brown fox jumps over',
  context: 'le renard brun saute',
  T: '5', dModel: '4', dOut: '4', heads: '1', seed: '7', temperature: '2', dropout: '0.2', dropoutSeed: '9', dropoutRng: 'counter',
  normalization: 'sum', mask: 'renormalize', layout: 'linear', model: 'trained', head: '1',
};
// Where a step's own default already is the value above (state.js STEP_DEFAULTS), this one is entered.
const OTHER_VALUES = { dOut: '2', layout: 'matrix' };

// Enters a new value for the control; returns it (undefined for a checkbox, which is clicked).
async function changeControl(page, name) {
  const control = page.locator(`.controls [data-control="${name}"]`);
  const tag = await control.evaluate((node) => `${node.tagName}:${node.type}`);
  const current = await page.evaluate((key) => String(window.attentionPlayground.getState()[key]), name);
  const value = current === NEW_VALUES[name] && OTHER_VALUES[name] !== undefined ? OTHER_VALUES[name] : NEW_VALUES[name];
  if (tag === 'SELECT:select-one') await control.selectOption(value);
  else if (tag === 'INPUT:checkbox') {
    await control.click();
    return undefined;
  } else if (tag === 'INPUT:range') {
    const box = page.locator(`.controls [data-control-number="${name}"]`);
    await box.fill(value);
    await box.press('Tab');
  } else {
    await control.fill(value);
    await control.press('Tab');
  }
  return value;
}

test('walks all 11 steps with Next, each matching the core, with a screenshot of every step', async ({ page }, testInfo) => {
  const problems = watchConsole(page);
  await page.setViewportSize({ width: 1280, height: 900 });
  await openPage(page);
  for (const [index, id] of STEPS.entries()) {
    if (index > 0) await afterRender(page, () => page.getByRole('button', { name: 'Next →' }).click());
    // The walk goes on past these (step 12, "Learn the weights", has its own spec: training.spec.js).
    await expect(page.locator('.step-count')).toHaveText(new RegExp(`^Step ${index + 1} of \\d+$`));
    expect(new URL(page.url()).searchParams.get('step') ?? 'framing').toBe(id);
    await expect(page.locator('.error')).toBeHidden();
    await expect(page.locator('.formula .katex')).toBeVisible();
    await expectPageMatchesCore(page);
    const path = `test-results/page-screenshots/${String(index + 1).padStart(2, '0')}-${id}.png`;
    await page.screenshot({ path, fullPage: true });
    await testInfo.attach(`step ${index + 1} ${id}`, { path, contentType: 'image/png' });
  }
  // Step 12 trains a model in the page (training.spec.js checks its numbers); it is the last.
  await afterRender(page, () => page.getByRole('button', { name: 'Next →' }).click());
  await expect(page.locator('.step-title')).toHaveText('Learn the weights');
  await expect(page.getByRole('button', { name: 'Next →' })).toBeDisabled();
  expect(problems).toEqual([]);
});

test('step 1 pairs every context with the next word as its target', async ({ page }) => {
  await openPage(page, '?step=framing');
  const targets = await page.locator('.pairs .target .word').allTextContents();
  // Six words frame five pairs: the last pair never wraps around to the sentence's first word.
  expect(targets).toEqual(['journey', 'starts', 'with', 'one', 'step']);
  // Ids number the distinct words in order.
  const ids = await page.locator('.pairs .target').evaluateAll((chips) => chips.map((c) => Number(c.dataset.id)));
  expect(ids).toEqual([1, 2, 3, 4, 5]);
  await expect(page.locator('[data-view="pairs-shape"]')).toHaveText('contexts (B=1, T=5), targets (B=1, T=5)');
  await expect(page.locator('.pairs tbody tr').nth(2).locator('.context .token .word')).toHaveText(['your', 'journey', 'starts']);
  // The core's results as heatmaps with their shapes, coloured over the vocabulary (ids 0-5: one word, one colour
  // in both); a focused cell names its word.
  for (const name of ['contexts (last token of each context)', 'targets']) {
    const figure = page.locator(`figure[data-tensor="${name}"]`);
    await expect(figure).toHaveClass(/tensor-ids/);
    await expect(figure.locator('.tensor-shape')).toHaveText('(B=1, T−1=5)');
    await expect(figure.locator('.legend')).toContainText('5');
  }
  expect(await shownValues(page, 'targets')).toEqual([1, 2, 3, 4, 5]);
  await page.locator('figure[data-tensor="targets"] canvas').focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('figure[data-tensor="targets"] .tooltip')).toContainText('token id 2 = “starts”');
});

test('the classic example: query 2 attends with the weights of DESIGN.md step 5', async ({ page }) => {
  await openPage(page, '?step=self-attention');
  const row = await page.locator('table[data-tensor="weights"] tbody tr').nth(1).locator('td').allTextContents();
  expect(row.map(Number)).toEqual([0.1385, 0.2379, 0.2333, 0.124, 0.1082, 0.1581]);
  const context = await page.locator('table[data-tensor="output"] tbody tr').nth(1).locator('td').allTextContents();
  expect(context.map(Number)).toEqual([0.4419, 0.6515, 0.5683]);
});

for (const id of STEPS) {
  test(`every control of step "${id}" changes the numbers to the core's for the new inputs`, async ({ page }) => {
    const problems = watchConsole(page);
    await openPage(page, `?step=${id}`);
    const names = await page.locator('.controls [data-control]').evaluateAll((nodes) => nodes.map((n) => n.dataset.control));
    for (const name of names) {
      let expectedValue;
      await afterRender(page, async () => { expectedValue = await changeControl(page, name); });
      const state = await page.evaluate(() => window.attentionPlayground.getState());
      if (expectedValue !== undefined) expect(String(state[name])).toBe(expectedValue);
      await expect.poll(() => new URL(page.url()).searchParams.has(name), { message: `URL carries ${name}` }).toBe(true);
      await expect(page.locator('.error')).toBeHidden();
      await expectPageMatchesCore(page);
    }
    expect(problems).toEqual([]);
  });
}

test('step 9 agrees with PyTorch on every backend this browser has', async ({ page }) => {
  await openPage(page, '?step=check');
  for (const backend of ['wasm-simd', 'wasm-baseline', 'js']) {
    const row = page.locator(`tr[data-backend="${backend}"]`);
    await expect(row.locator('.verdict')).toHaveText('✓ yes');
    const error = Number(await row.locator('[data-max-abs-error]').getAttribute('data-max-abs-error'));
    expect(error).toBeLessThanOrEqual(1e-5);
  }
  // WebGPU: a verdict when the adapter exists here (SwiftShader), otherwise a reason, never a failure.
  await expect(page.locator('tr[data-backend="webgpu"]')).toContainText(/✓ yes|not available here/);
  // Its own sentence, against the PyTorch fixture; the badge times the computation (the ★ row's median), not the loading.
  await expect(page.locator('.backends [data-reference]')).toHaveAttribute('data-reference', 'pytorch');
  const current = page.locator('table[data-view="backends"] tr', { hasText: '★' }).locator('td').nth(2);
  await expect(page.locator('.badge')).toContainText(`· ${await current.textContent()} ms`);
  // After an edit the JS reference answers, and the page says so.
  await afterRender(page, () => page.evaluate(() => window.attentionPlayground.setState({ T: 5 })));
  await expect(page.locator('.backends [data-reference]')).toHaveAttribute('data-reference', 'js');
  await expect(page.locator('table[data-tensor="JS reference output"]')).toHaveCount(1);
});

test('the backend selector recomputes with the chosen backend and the badge says which', async ({ page }) => {
  await openPage(page, '?step=causal');
  for (const [backend, label] of [['js', 'JS reference'], ['wasm-baseline', 'WASM'], ['wasm-simd', 'WASM SIMD']]) {
    await openSettings(page);
    await afterRender(page, () => page.locator('#backend-select').selectOption(backend));
    await expect(page.locator('.badge')).toHaveText(new RegExp(`^${label} · [0-9.]+ ms$`));
    await expectPageMatchesCore(page, 'js');
  }
});

test("'Automatic' puts the GPU crossover it routes by in the badge's tooltip (SwiftShader: the committed one)", async ({ page }) => {
  await openPage(page, '?step=causal');
  await expect(page.locator('.badge')).toHaveAttribute('title', /Computed by the .* backend in [0-9.]+ ms\. GPU crossover \((committed|none)\): /);
  await openSettings(page);
  await afterRender(page, () => page.locator('#backend-select').selectOption('wasm-simd'));
  await expect(page.locator('.badge')).toHaveAttribute('title', /^Computed by the WASM SIMD backend in [0-9.]+ ms$/);
});

test('the WebGPU backend draws the same numbers, or the page says why it fell back', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?backend=webgpu&step=multihead');
  const backend = await page.evaluate(() => window.attentionPlayground.lastRun().backend);
  if (backend === 'webgpu') {
    await expect(page.locator('.badge')).toHaveText(/^WebGPU · /);
    await expectPageMatchesCore(page, 'js', 1.5e-4); // WGSL sums in another order: 1e-4 plus display rounding
  } else {
    await expect(page.locator('.notice')).toContainText('WebGPU');
  }
  expect(problems).toEqual([]);
});

test('the Benchmark tab shows the latest committed benchmark report', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page);
  await page.getByRole('link', { name: 'Benchmark' }).click();
  await expect(page).toHaveURL(/benchmark\.html$/);
  // Its words come from the strings table (benchmarkPage), slots and all.
  await expect(page).toHaveTitle('Benchmark · Attention Playground');
  await expect(page.locator('h2.step-title')).toHaveText('Benchmark');
  await expect(page.locator('#bench-explanation code').first()).toHaveText('npm run bench');
  await expect(page.locator('#bench-explanation')).not.toContainText('{');
  await expect(page.locator('#bench-chart')).toHaveAttribute('alt', /Bar chart of the latest benchmark run/);
  const shipped = await page.evaluate(async () => (await fetch('bench-results/index.json')).json());
  if (shipped.md) {
    // The report's Markdown is rendered: tables as tables, bold as bold, no raw markup left.
    await expect(page.locator('#bench-table table th').first()).toHaveText('contestant');
    await expect(page.locator('#bench-table strong').first()).toBeVisible();
    await expect(page.locator('#bench-table')).not.toContainText('**');
    await expect(page.locator('#bench-table')).not.toContainText('|---');
  }
  else await expect(page.locator('#bench-table')).toContainText('no benchmark results yet');
  if (shipped.svg) {
    await expect.poll(() => page.locator('#bench-chart').evaluate((img) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  }
  // Served with the repository (as here, and under npm start), the tab runs the suite itself.
  await page.getByRole('button', { name: 'Open the benchmark runner' }).click();
  const runner = page.frameLocator('iframe.bench-runner');
  await expect(runner.getByRole('button', { name: 'Run the benchmark' })).toBeVisible();
  await page.getByRole('link', { name: 'Playground' }).click();
  await expect(page.locator('.step-title')).toHaveText('Next-token framing');
  expect(problems).toEqual([]);
});

test('the Benchmark tab offers the in-browser run under npm start, and says what it needs on a static host', async ({ page }) => {
  const withRepository = await startServer({ root: 'dist', port: 0, isolated: true, benchFrom: '.' });
  const buildOnly = await startServer({ root: 'dist', port: 0, isolated: false });
  try {
    await page.goto(`${withRepository.url}benchmark.html`);
    await page.getByRole('button', { name: 'Open the benchmark runner' }).click();
    await expect(page.frameLocator('iframe.bench-runner').getByRole('button', { name: 'Run the benchmark' })).toBeVisible();

    await page.goto(`${buildOnly.url}benchmark.html`);
    await expect(page.locator('#bench-run-text')).toContainText('This host serves the page alone');
    await expect(page.locator('#bench-run-text code').first()).toHaveText('npm start');
    await expect(page.getByRole('button', { name: 'Open the benchmark runner' })).toBeHidden();
  } finally {
    await withRepository.close();
    await buildOnly.close();
  }
});
