// The page as a teaching instrument (issue 11, the views): axe-core on every step in both colour schemes
// and on a phone, no clipped code or formulas without a keyboard-reachable scroll, number boxes that move
// their sliders, the computation behind a weight next to the formula, the flow picture, the whole-step
// figure, and a screenshot of every step at 1280 and 390 px (test-results/e2e/…/views-*.png). Steps are
// taken from the page's own table of contents (the step data), never assumed to be 11; one page is
// walked through the UI, not reloaded per case, to stay within the suite's time budget.
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { afterRender, openPage, shownValues, watchConsole } from './page-helpers.js';

async function stepIds(page) {
  return page.locator('.toc a[data-step]').evaluateAll((links) => links.map((link) => link.dataset.step));
}

async function goToStep(page, id) {
  if (await page.evaluate(() => window.attentionPlayground.getState().step) === id) return;
  await afterRender(page, () => page.locator(`.toc a[data-step="${id}"]`).click());
}

// Serious or critical axe-core findings, as short readable lines; `rules` narrows axe to those rules.
async function seriousViolations(page, rules = null) {
  const builder = new AxeBuilder({ page }).include('body');
  const { violations } = await (rules ? builder.withRules(rules) : builder).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

// Regions wider than their box: each must scroll (overflow auto/scroll) and be reachable by keyboard
// (focusable itself, with a name, or holding something focusable); nothing may clip; the page itself
// must not scroll sideways.
async function clippingProblems(page) {
  return page.evaluate(() => {
    const problems = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1) problems.push(`the page scrolls sideways: ${root.scrollWidth} > ${root.clientWidth}`);
    const selectors = '.formula, .cell-math, .code pre, .controls, .diagram, .backends, .pairs-wrap, .tensor, .panels, .checks li, .explanation, .toc ol';
    for (const node of document.querySelectorAll(selectors)) {
      if (node.closest('[hidden]') || node.getClientRects().length === 0) continue;
      if (node.scrollWidth <= node.clientWidth + 1) continue;
      const overflow = getComputedStyle(node).overflowX;
      const label = `${node.tagName.toLowerCase()}.${[...node.classList].join('.')}`;
      if (overflow !== 'auto' && overflow !== 'scroll') {
        problems.push(`${label} is clipped (${node.scrollWidth} > ${node.clientWidth}, overflow-x ${overflow})`);
        continue;
      }
      const focusable = node.tabIndex >= 0 && (node.getAttribute('aria-label') || node.getAttribute('aria-labelledby'));
      const holdsFocusable = node.querySelector('a[href], button, input, select, [tabindex="0"], canvas[tabindex]');
      if (!focusable && !holdsFocusable) problems.push(`${label} scrolls but a keyboard cannot reach it`);
    }
    return problems;
  });
}

// The dark scheme changes colours only (playground.css's prefers-color-scheme block sets colour variables;
// colormap.js picks the heatmaps' colours), never the document or its layout: at 1280 px the light pass
// already runs every axe rule on the same DOM, so the dark pass runs the rules that read colours. That
// halves the dark pass (43.5 -> 20.4 s alone on the shared 2-core machine at load 10).
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];
const CASES = [
  { width: 1280, scheme: 'light', screenshots: true, rules: null },
  { width: 1280, scheme: 'dark', screenshots: false, rules: COLOUR_RULES },
  { width: 390, scheme: 'light', screenshots: true, rules: null },
  { width: 390, scheme: 'dark', screenshots: false, rules: COLOUR_RULES },
];

for (const { width, scheme, screenshots, rules } of CASES) {
  test(`every step at ${width} px, ${scheme}: no serious axe-core finding${rules ? ' in colour' : ''}, nothing clipped${screenshots ? ', a screenshot each' : ''}`, async ({ page }, testInfo) => {
    test.setTimeout(300_000);
    const problems = watchConsole(page);
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width, height: 900 });
    await openPage(page);
    const ids = await stepIds(page);
    expect(ids.length).toBeGreaterThan(1);
    const findings = [];
    for (const [index, id] of ids.entries()) {
      await goToStep(page, id);
      // A weights cell inspected, so the computation under the formula is checked as well.
      const weights = page.locator('figure[data-tensor="weights"] canvas').first();
      if (await weights.count()) await weights.focus();
      for (const line of await seriousViolations(page, rules)) findings.push(`${id}: ${line}`);
      for (const line of await clippingProblems(page)) findings.push(`${id}: ${line}`);
      // Step 9's table keeps its verdict and time columns in view, even on a phone.
      const backends = page.locator('.backends table');
      if (await backends.count()) {
        const edges = await backends.evaluate((table) => ({
          right: Math.max(...[...table.querySelectorAll('thead th')].map((th) => th.getBoundingClientRect().right)),
          visible: table.closest('.backends').getBoundingClientRect().right,
        }));
        if (edges.right > edges.visible + 1) findings.push(`${id}: step 9's table is cut at ${edges.visible} px (its columns reach ${edges.right} px)`);
        const unavailable = await page.locator('.backends .unavailable').allTextContents();
        for (const text of unavailable) if (!text.startsWith('Not available in this browser')) findings.push(`${id}: technical row message "${text}"`);
      }
      if (screenshots) {
        await page.locator('main:not([hidden])').focus();
        const path = testInfo.outputPath(`views-${width}-${String(index + 1).padStart(2, '0')}-${id}.png`);
        await page.screenshot({ path, fullPage: true });
        await testInfo.attach(`${width}-${id}`, { path, contentType: 'image/png' });
      }
    }
    expect(findings).toEqual([]);
    expect(problems).toEqual([]);
  });
}

test('typing in a number box moves its slider at once; leaving the box applies the value', async ({ page }) => {
  await openPage(page, '?step=weights');
  const box = page.locator('.controls [data-control-number="T"]');
  const slider = page.locator('.controls input[type="range"][data-control="T"]');
  await box.fill('4');
  await expect(slider).toHaveValue('4');
  await afterRender(page, () => box.press('Tab'));
  expect(await page.evaluate(() => window.attentionPlayground.getState().T)).toBe(4);
  await expect(slider).toHaveValue('4');
  await box.fill('12');
  await expect(slider).toHaveValue('12');
});

test('the computation behind a weight, under the formula, equals the cell and the core\'s intermediates', async ({ page }) => {
  await openPage(page, '?step=causal');
  await page.locator('figure[data-tensor="weights"] canvas').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight'); // weights[2, 1]
  const math = page.locator('.cell-math');
  await expect(math).toHaveAttribute('data-cell', 'weights[0, 2, 1]');
  const lines = Object.fromEntries(await math.locator('[data-line]').evaluateAll((nodes) => nodes.map((n) => [n.dataset.line, n.textContent])));
  const number = (text) => Number(text.replace(/−/g, '-'));
  const shown = await shownValues(page, 'weights');
  const T = Math.round(Math.sqrt(shown.length));
  expect(number(lines.weight.split('= ')[1])).toBeCloseTo(shown[2 * T + 1], 4);
  // The terms are the query's and the key's components side by side, and they add up to the score.
  const run = await page.evaluate(() => {
    const { result } = window.attentionPlayground.lastRun();
    const weights = result.tensors.find((t) => t.name === 'weights');
    const T = weights.tensor.shape.at(-1);
    return { T, score: weights.hover.scores.data[2 * T + 1], scaled: weights.hover.scaled.data[2 * T + 1], dk: weights.hover.key.shape.at(-1) };
  });
  const terms = lines.terms.replace('q·k = ', '').split(' + ').map((term) => term.split('×').map((f) => number(f.replace(/[()]/g, ''))));
  expect(terms.length).toBe(run.dk);
  const sum = terms.reduce((total, [q, k]) => total + q * k, 0);
  expect(sum).toBeCloseTo(run.score, 3);
  expect(number(/= (\S+)/.exec(lines.score)[1])).toBeCloseTo(run.score, 4);
  expect(number(lines.scaled.split('→ ')[1])).toBeCloseTo(run.scaled, 4);
  expect(lines.mask).toContain('kept');
  // A control change redraws the inspected cell's computation with the new numbers.
  const temperature = page.locator('.controls [data-control-number="temperature"]');
  await temperature.fill('3');
  await afterRender(page, () => temperature.press('Tab'));
  const after = await shownValues(page, 'weights');
  expect(after[2 * T + 1]).not.toBeCloseTo(shown[2 * T + 1], 4);
  await expect(math.locator('[data-line="weight"]')).toHaveText(`weight[2, 1] = ${after[2 * T + 1].toFixed(4)}`);
  await page.locator('figure[data-tensor="weights"] canvas').focus(); // back on the heatmap, at cell [2, 1]
  // A future key is masked and its weight is 0.
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight'); // weights[2, 3]
  await expect(math).toHaveAttribute('data-cell', 'weights[0, 2, 3]');
  await expect(math.locator('[data-line="mask"]')).toContainText('−∞');
  await expect(math.locator('[data-line="weight"]')).toContainText('= 0.0000');
  // Pointing at a cell of the second head shows that head's computation.
  await afterRender(page, () => page.evaluate(() => window.attentionPlayground.setState({ step: 'multihead', dOut: 4, heads: 2 })));
  const secondHead = page.locator('figure[data-tensor="weights"] .panel').nth(1).locator('canvas');
  const layout = await secondHead.boundingBox();
  await secondHead.hover({ position: { x: layout.width * 0.7, y: layout.height - 12 } });
  await expect(math).toHaveAttribute('data-cell', /^weights\[1, /);
});

test('the step is one picture: stages left to right, arrows named by operation, the new part highlighted, thumbnails that open', async ({ page }) => {
  await openPage(page, '?step=weights');
  const picture = page.locator('[data-main-figure]');
  await expect(picture).toHaveCount(1);
  for (const name of ['x', 'W_query', 'query', 'key', 'value', 'scores', 'scaled', 'weights', 'output']) {
    await expect(picture.locator(`figure[data-tensor="${name}"] canvas`)).toHaveCount(1);
  }
  const ops = await picture.locator('.diagram-stage:not([hidden])').evaluateAll((stages) => stages.map((s) => s.dataset.op));
  expect(ops).toEqual(['', '· W_q, W_k, W_v', 'Q·Kᵀ', '/ (√d_k · τ)', 'softmax', '· V']);
  // Reading order: each stage starts right of the one before, or on a later line.
  const boxes = await picture.locator('.diagram-stage:not([hidden])').evaluateAll((stages) => stages.map((s) => s.getBoundingClientRect().toJSON()));
  for (let i = 1; i < boxes.length; i++) expect(boxes[i].left > boxes[i - 1].left || boxes[i].top >= boxes[i - 1].bottom - 1).toBe(true);
  await expect(picture.locator('.diagram-new')).toContainText('W_q, W_k, W_v');
  await expect(picture.locator('.diagram-node.fresh[data-node="scaled"]')).toHaveCount(1);
  await expect(picture.locator('.diagram-node.fresh[data-node="x"]')).toHaveCount(0);
  // x (step 2's) is a thumbnail; a click opens it full size, and back.
  await expect(picture.locator('figure[data-tensor="x"]')).toHaveClass(/thumb/);
  await afterRender(page, () => picture.locator('[data-expand="x"]').click());
  await expect(picture.locator('figure[data-tensor="x"]')).not.toHaveClass(/thumb/);
  await afterRender(page, () => picture.locator('[data-expand="x"]').click());
  await expect(picture.locator('figure[data-tensor="x"]')).toHaveClass(/thumb/);
  await afterRender(page, () => page.locator('.toc a[data-step="multihead"]').click());
  await expect(page.locator('.diagram-stage[data-op*="split into 2 heads of d_head=2"]')).toHaveCount(1);
});

test('the whole step exports as one figure (SVG and PNG) with every panel of every tensor', async ({ page }) => {
  await openPage(page, '?step=multihead&dOut=4&heads=2');
  const expected = await page.evaluate(() => window.attentionPlayground.lastRun().result.tensors.map((t) => t.name));
  const [svgDownload] = await Promise.all([page.waitForEvent('download'), page.locator('[data-export-figure="svg"]').click()]);
  expect(svgDownload.suggestedFilename()).toBe('step-10-multihead.svg');
  const svg = readFileSync(await svgDownload.path()).toString();
  expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  for (const name of expected) expect(svg).toContain(`data-tensor="${name}"`);
  expect(svg).toContain('head 2');
  const [pngDownload] = await Promise.all([page.waitForEvent('download'), page.locator('[data-export-figure="png"]').click()]);
  expect(readFileSync(await pngDownload.path()).subarray(1, 4).toString()).toBe('PNG');
});

test('a full-page capture paints the figures below the fold; the cell editor opens without float noise; dropped is sequential', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 600 });
  await openPage(page, '?step=weights');
  const lastFigure = page.locator('[data-main-figure] figure.tensor').last();
  expect(await lastFigure.evaluate((node) => getComputedStyle(node).contentVisibility)).not.toBe('auto');
  await openPage(page, '?step=loop');
  const x = page.locator('figure[data-tensor="x"] canvas');
  await x.focus();
  await page.keyboard.press('ArrowDown'); // x[1, 0] = 0.55 (journey)
  await page.keyboard.press('Enter');
  const value = await page.locator('.cell-editor').inputValue();
  expect(value.length).toBeLessThanOrEqual(8);
  expect(Number(value)).toBeCloseTo((await shownValues(page, 'x'))[3], 4);
  // A repaint while the editor is open (a resize, a late event) keeps it open, focused, on its cell.
  await afterRender(page, () => page.evaluate(() => window.attentionPlayground.setState({ causal: true })));
  await expect(page.locator('.cell-editor')).toBeFocused();
  await expect(page.locator('.cell-editor')).toHaveValue(value);
  await page.keyboard.press('Escape');
  await expect(page.locator('.cell-editor')).toHaveCount(0);
  await afterRender(page, () => page.locator('.toc a[data-step="dropout"]').click());
  await expect(page.locator('figure[data-tensor="dropped"]')).toHaveClass(/tensor-weights/);
});

test('the weights\' colour scale can be log or per row, and changes the pixels only', async ({ page }) => {
  await openPage(page, '?step=causal&T=32&dModel=16&dOut=16');
  const pixels = () => page.locator('figure[data-tensor="weights"] canvas').evaluate((canvas) => canvas.toDataURL());
  const linear = await pixels();
  const before = await shownValues(page, 'weights');
  await afterRender(page, () => page.locator('[data-view-control="colour-scale"]').selectOption('log'));
  expect(await pixels()).not.toBe(linear);
  await expect(page.locator('figure[data-tensor="weights"] .legend')).toContainText('≤');
  await afterRender(page, () => page.locator('[data-view-control="colour-scale"]').selectOption('row'));
  await expect(page.locator('figure[data-tensor="weights"] .legend')).toContainText('row max');
  expect(await shownValues(page, 'weights')).toEqual(before);
  // At T=32 the weights use the width they have: 16 px cells, every token labelled (the old panel was
  // 350 px wide with 8 px cells and overlapping labels).
  const box = await page.locator('figure[data-tensor="weights"] canvas').boundingBox();
  expect(box.width).toBeGreaterThan(32 * 16);
});

test('off-screen heatmaps are drawn right after the frame: a repaint\'s listeners see them as a page tall enough to show them all', async ({ page }) => {
  const query = '?step=multihead&T=32&dModel=64&dOut=64&heads=8';
  // The heads stand side by side; the stacked heads' context comes after them, far below a 600 px fold.
  const lastHead = page.locator('figure[data-tensor="context (stacked heads)"] canvas');
  const afterChange = async (height) => {
    await page.setViewportSize({ width: 1280, height });
    await openPage(page, query);
    const below = await lastHead.evaluate((canvas) => canvas.getBoundingClientRect().top > innerHeight + 150);
    const before = await lastHead.evaluate((canvas) => canvas.toDataURL());
    await afterRender(page, () => page.evaluate(() => window.attentionPlayground.setState({ temperature: 2 })));
    return { below, before, after: await lastHead.evaluate((canvas) => canvas.toDataURL()) };
  };
  const short = await afterChange(600); // off screen: drawn after the frame
  const tall = await afterChange(8000); // every tensor on screen: drawn in the frame
  expect(short.below).toBe(true);
  expect(tall.below).toBe(false);
  expect(short.after).not.toBe(short.before);
  expect(short.after).toBe(tall.after);
});

test('the repaint timings keep one entry of each name, however many repaints there are', async ({ page }) => {
  await openPage(page, '?step=causal');
  const temperature = page.locator('.controls [data-control-number="temperature"]');
  for (const value of ['1.5', '2', '2.5', '3']) {
    await temperature.fill(value);
    await afterRender(page, () => temperature.press('Tab'));
  }
  const counts = await page.evaluate(() => Object.fromEntries(['ap:change', 'ap:computed', 'ap:draw', 'ap:repaint', 'ap:first-repaint']
    .map((name) => [name, performance.getEntriesByName(name).length])));
  expect(counts).toEqual({ 'ap:change': 1, 'ap:computed': 1, 'ap:draw': 1, 'ap:repaint': 1, 'ap:first-repaint': 1 });
});
