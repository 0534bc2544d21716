// The step as a picture (issue 21), for every step at its defaults at 1280×800 and 390×844: the title, the
// explanation, the formula and every heatmap of the diagram on the first screen at 1280 (the new computation's
// cells at least 22 px, their numbers written), the last heatmap a margin above the screen's bottom; at 390 the
// diagram stacked and its first heatmap on the first screen; at both widths no node of the picture over another,
// past the left edge or cut off at its right, nothing wider than the page; a pointed weight's computation inside the viewport, within
// 400 px of the cell, clear of its row and column, its sources outlined, closed by Escape. Equal values draw in
// equal colours; arrows inside a menu leave the step alone; the Weights switch reads on a phone; no list of the
// controls cuts its value off. A first-screen screenshot of every step at both widths goes to test-results (not
// committed). Steps come from the page's own table of contents; one page walks them all.
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { afterRender, openPage, watchConsole } from './page-helpers.js';

async function stepIds(page) {
  return page.locator('.toc a[data-step]').evaluateAll((links) => links.map((link) => link.dataset.step));
}

async function goToStep(page, id) {
  if (await page.evaluate(() => window.attentionPlayground.getState().step) === id) return;
  await afterRender(page, () => page.evaluate((step) => window.attentionPlayground.setState({ step }), id));
  await page.evaluate(() => window.scrollTo(0, 0));
}

// What must be on the first screen, as rectangles: the step's words and every heatmap in its picture.
async function firstScreenParts(page) {
  return page.evaluate(() => {
    const rect = (node) => node.getBoundingClientRect().toJSON();
    const parts = [['title', document.querySelector('.step-title')], ['explanation', document.querySelector('.explanation-lead')], ['formula', document.querySelector('.formula .katex') ?? document.querySelector('.formula')]]
      .map(([name, node]) => ({ name, ...rect(node) }));
    for (const canvas of document.querySelectorAll('[data-main-figure] canvas')) {
      parts.push({ name: `${canvas.closest('figure[data-tensor]').dataset.tensor} heatmap`, ...rect(canvas) });
    }
    return parts;
  });
}

// The pointed cell's box, the cell, its heatmap's cells, and the sources outlined, after the keyboard moves to (2, 1).
async function pointAtWeight(page) {
  const canvas = page.locator('[data-main-figure] figure[data-tensor="weights"] canvas').first();
  await canvas.scrollIntoViewIfNeeded();
  await canvas.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  return page.evaluate(() => {
    const canvas = document.activeElement;
    const [left, top, cell] = canvas.dataset.grid.split(',').map(Number);
    const c = canvas.getBoundingClientRect();
    const figure = canvas.closest('figure[data-tensor]');
    const box = figure.querySelector('.tooltip');
    const { rows, cols } = window.attentionPlayground.lastRun().result.tensors.find((t) => t.name === 'weights').tensor.shape
      .slice(-2).reduce((shape, size, i) => ({ ...shape, [i ? 'cols' : 'rows']: size }), {});
    const grid = { left: c.left + left, top: c.top + top, right: c.left + left + cols * cell, bottom: c.top + top + rows * cell };
    const at = { left: grid.left + cell, top: grid.top + 2 * cell };
    return {
      hidden: box.hidden,
      box: box.getBoundingClientRect().toJSON(),
      cell: { ...at, right: at.left + cell, bottom: at.top + cell },
      grid,
      viewport: { width: document.documentElement.clientWidth, height: innerHeight },
      sources: document.querySelectorAll('.source-mark:not(.self)').length,
      self: document.querySelectorAll('.source-mark.self').length,
    };
  });
}

// At 1280×800 the picture ends this far above the first screen's bottom: a few pixels more of caption or
// controls must not push a heatmap off it.
const FIRST_SCREEN_MARGIN = 24;

// The picture's nodes that leave the page's left edge, cover one another or cut their heatmaps off, as findings.
async function nodeCollisions(page, id) {
  const boxes = await page.locator('[data-main-figure] .diagram-node').evaluateAll((nodes) => nodes
    .filter((node) => node.getClientRects().length > 0)
    .map((node) => ({ name: node.dataset.node, ...node.getBoundingClientRect().toJSON() })));
  const findings = [];
  // A node's heatmaps all in view: none cut off behind a sideways scroll.
  const cut = await page.locator('[data-main-figure] .diagram-node .panels').evaluateAll((panels) => panels
    .filter((node) => node.getClientRects().length > 0 && node.scrollWidth > node.clientWidth + 1)
    .map((node) => `${node.closest('[data-node]').dataset.node} (${node.scrollWidth - node.clientWidth} px)`));
  for (const name of cut) findings.push(`${id}: ${name} is cut off at the right`);
  for (const [i, box] of boxes.entries()) {
    if (box.left < 0) findings.push(`${id}: ${box.name} starts ${Math.round(-box.left)} px left of the page`);
    for (const other of boxes.slice(i + 1)) if (overlaps(box, other)) findings.push(`${id}: ${box.name} and ${other.name} overlap`);
  }
  return findings;
}

const overlaps = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
function gap(a, b) {
  return Math.hypot(Math.max(0, a.left - b.right, b.left - a.right), Math.max(0, a.top - b.bottom, b.top - a.bottom));
}

function checkPointing(id, pointed, findings) {
  const { box, cell, grid, viewport } = pointed;
  if (pointed.hidden) return findings.push(`${id}: no box beside the pointed weight`);
  if (box.left < 0 || box.top < 0 || box.right > viewport.width || box.bottom > viewport.height) findings.push(`${id}: the box leaves the viewport ${JSON.stringify(box)}`);
  if (gap(box, cell) > 400) findings.push(`${id}: the box is ${Math.round(gap(box, cell))} px from the cell`);
  if (overlaps(box, { ...grid, top: cell.top, bottom: cell.bottom })) findings.push(`${id}: the box covers the cell's row`);
  if (overlaps(box, { ...grid, left: cell.left, right: cell.right })) findings.push(`${id}: the box covers the cell's column`);
  if (pointed.self !== 1) findings.push(`${id}: the pointed cell is not outlined`);
  // Step 3's weights are an input (the averaging matrix): nothing made them.
  if (id !== 'matmul' && pointed.sources < 1) findings.push(`${id}: no source cell outlined`);
}

for (const { width, height } of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
  test(`every step at ${width}×${height}: the picture on the first screen, nothing past the edge, a pointed weight explained beside it`, async ({ page }, testInfo) => {
    test.setTimeout(120_000);
    const problems = watchConsole(page);
    await page.setViewportSize({ width, height });
    await openPage(page);
    const findings = [];
    for (const [index, id] of (await stepIds(page)).entries()) {
      await goToStep(page, id);
      const picture = page.locator('[data-main-figure]');
      if (id === 'learn') continue; // step 12 is the training demo, not a diagram
      await expect(picture, id).toHaveCount(1);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      if (overflow > 0) findings.push(`${id}: the page scrolls ${overflow} px sideways`);
      findings.push(...await nodeCollisions(page, id));
      const parts = await firstScreenParts(page);
      if (width === 1280) {
        for (const part of parts) if (part.top < 0 || part.bottom > height || part.right > width) findings.push(`${id}: ${part.name} is off the first screen (${Math.round(part.top)}–${Math.round(part.bottom)})`);
        const formula = await page.locator('.formula').evaluate((node) => node.scrollWidth - node.clientWidth);
        if (formula > 1) findings.push(`${id}: the formula scrolls ${formula} px sideways`);
        // A thumbnail's name on one line: a long one broke into a column of words beside its small heatmap.
        const broken = await picture.locator('.diagram-node.is-thumb .tensor-short').evaluateAll((names) => names
          .filter((name) => {
            const range = document.createRange();
            range.selectNodeContents(name);
            return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1;
          }).map((name) => name.textContent));
        for (const name of broken) findings.push(`${id}: the thumbnail name "${name}" breaks over lines`);
        for (const part of parts) if (part.name.endsWith('heatmap') && part.bottom > height - FIRST_SCREEN_MARGIN && part.bottom <= height) findings.push(`${id}: ${part.name} ends ${Math.round(height - part.bottom)} px above the first screen's bottom (at least ${FIRST_SCREEN_MARGIN})`);
        // The new computation's tensors at full size: cells of 22 px or more, the size that carries their numbers.
        const cells = await picture.locator('.diagram-node.fresh canvas').evaluateAll((canvases) => canvases.map((c) => [c.closest('figure').dataset.tensor, Number(c.dataset.grid.split(',')[2])]));
        if (id !== 'framing' && cells.length === 0) findings.push(`${id}: nothing is marked new`);
        for (const [name, size] of cells) if (size < 22) findings.push(`${id}: ${name} has ${size} px cells, too small for their numbers`);
      } else {
        const first = parts.find((part) => part.name.endsWith('heatmap'));
        if (!first || first.top > height) findings.push(`${id}: the first heatmap starts at ${first?.top} px`);
        // Stacked: each stage starts below the one before.
        const stages = await picture.locator('.diagram-stage:not([hidden])').evaluateAll((items) => items.map((item) => item.getBoundingClientRect().toJSON()));
        for (let i = 1; i < stages.length; i++) if (stages[i].top < stages[i - 1].bottom - 1) findings.push(`${id}: stage ${i + 1} sits beside stage ${i}`);
      }
      await page.screenshot({ path: testInfo.outputPath(`picture-${width}-${String(index + 1).padStart(2, '0')}-${id}.png`) });
      if (await picture.locator('figure[data-tensor="weights"] canvas').count()) {
        checkPointing(id, await pointAtWeight(page), findings);
        await page.keyboard.press('Escape');
        await expect(picture.locator('figure[data-tensor="weights"] .tooltip'), id).toBeHidden();
        await expect(page.locator('.source-mark'), id).toHaveCount(0);
      }
    }
    expect(findings).toEqual([]);
    expect(problems).toEqual([]);
  });
}

test('one colour scale per quantity: equal values draw in equal colours, the legend states it once, a switch gives each tensor its own', async ({ page }) => {
  await openPage(page, '?step=causal');
  // The colour of cell (row, col) of a tensor's heatmap, read off its canvas (a corner of the cell, clear of its number).
  const colour = (name, row, col) => page.locator(`figure[data-tensor="${name}"] canvas`).evaluate((canvas, [r, c]) => {
    const [left, top, cell] = canvas.dataset.grid.split(',').map(Number);
    const ratio = canvas.width / canvas.getBoundingClientRect().width;
    return Array.from(canvas.getContext('2d').getImageData(Math.round((left + c * cell + 3) * ratio), Math.round((top + r * cell + 3) * ratio), 1, 1).data);
  }, [row, col]);
  // The mask keeps the scaled scores below the diagonal: the same values, the same colours.
  const values = await page.evaluate(() => {
    const { tensors } = window.attentionPlayground.lastRun().result;
    const at = (name, i) => tensors.find((t) => t.name === name).tensor.data[i];
    return { scaled: at('scaled', 2 * 6 + 1), masked: at('masked', 2 * 6 + 1) };
  });
  expect(values.masked).toBe(values.scaled);
  expect(await colour('masked', 2, 1)).toEqual(await colour('scaled', 2, 1));
  // Every tensor of a quantity has the same top; the legend names each quantity once.
  const tops = await page.locator('[data-main-figure] figure[data-tensor]').evaluateAll((figures) => figures.map((f) => [f.dataset.tensor, f.dataset.scaleTop]));
  const top = Object.fromEntries(tops);
  expect(top.masked).toBe(top.scaled);
  expect(top.weights).toBe('1');
  expect(top['weights before the mask']).toBe('1');
  await expect(page.locator('.diagram-legend [data-scale-group]')).toHaveCount(3);
  await expect(page.locator('figure[data-tensor="weights"] .legend')).toBeHidden();
  // Each tensor its own scale: the figures carry their own keys again.
  await afterRender(page, () => page.locator('[data-view-control="per-tensor-scale"]').check());
  await expect(page.locator('figure[data-tensor="weights before the mask"] .legend')).toBeVisible();
  expect(Number(await page.locator('figure[data-tensor="weights before the mask"]').getAttribute('data-scale-top'))).toBeLessThan(1);
  await afterRender(page, () => page.locator('[data-view-control="per-tensor-scale"]').uncheck());
  // Multi-head: the split and the stacked heads' context are equal, and so are their colours.
  await afterRender(page, () => page.evaluate(() => window.attentionPlayground.setState({ step: 'multihead' })));
  expect(await colour('context (split heads)', 3, 2)).toEqual(await colour('context (stacked heads)', 3, 2));
});

test('arrow keys inside a menu or the code tabs leave the step alone; from the page they turn it', async ({ page }) => {
  await openPage(page, '?step=causal');
  const step = () => page.evaluate(() => window.attentionPlayground.getState().step);
  const summary = page.locator('figure[data-tensor="masked"] .export-menu summary');
  await summary.click();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowLeft');
  expect(await step()).toBe('causal');
  await page.keyboard.press('Escape');
  await page.locator('[data-code-tab="cpp"]').focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('[data-code-tab="torch"]')).toBeFocused();
  await expect(page.locator('[data-code-tab="torch"]')).toHaveAttribute('aria-selected', 'true');
  expect(await step()).toBe('causal');
  await page.locator('main#step').focus();
  await afterRender(page, () => page.keyboard.press('ArrowRight'));
  expect(await step()).toBe('dropout');
});

test('pointAt: a score shows q·k and outlines its query and key rows; an output value its weights row and value column', async ({ page }) => {
  await openPage(page, '?step=weights');
  expect(await page.evaluate(() => window.attentionPlayground.pointAt('scores', 2, 1))).toBe(true);
  const scoresBox = page.locator('figure[data-tensor="scores"] .tooltip');
  await expect(scoresBox).toBeVisible();
  await expect(scoresBox.locator('[data-line="terms"]')).toContainText('q·k = ');
  await expect(scoresBox.locator('[data-line="score"]')).toContainText('score[2, 1]');
  expect(await page.locator('figure[data-tensor="query"] .source-mark.row').count()).toBe(1);
  expect(await page.locator('figure[data-tensor="key"] .source-mark.row').count()).toBe(1);
  expect(await page.evaluate(() => window.attentionPlayground.pointAt('output', 1, 0))).toBe(true);
  await expect(scoresBox).toBeHidden();
  await expect(page.locator('figure[data-tensor="output"] .tooltip [data-line="terms"]')).toContainText('Σ w·v = ');
  expect(await page.locator('figure[data-tensor="weights"] .source-mark.row').count()).toBe(1);
  expect(await page.locator('figure[data-tensor="value"] .source-mark.column').count()).toBe(1);
  expect(await page.evaluate(() => window.attentionPlayground.pointAt('no such tensor', 0, 0))).toBe(false);
});

test('a touch screen shows no keyboard hint and a sideways swipe turns the page', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  await openPage(page, '?step=causal');
  await expect(page.locator('.keys-hint')).toBeHidden();
  const swipe = (from, to) => page.locator('.explanation-lead').evaluate((node, [x0, x1]) => {
    const { top } = node.getBoundingClientRect();
    const at = (type, x) => node.dispatchEvent(new PointerEvent(type, { pointerType: 'touch', clientX: x, clientY: top + 10, bubbles: true }));
    at('pointerdown', x0);
    at('pointerup', x1);
  }, [from, to]);
  await afterRender(page, () => swipe(320, 60)); // right to left: the next step
  expect(await page.evaluate(() => window.attentionPlayground.getState().step)).toBe('dropout');
  await afterRender(page, () => swipe(60, 320)); // left to right: back
  expect(await page.evaluate(() => window.attentionPlayground.getState().step)).toBe('causal');
  await context.close();
});

test('a control shows only where it changes something: the seed before the projections only for words without the book\'s vectors', async ({ page }) => {
  await openPage(page, '?step=loop');
  await expect(page.locator('.controls [data-control="seed"]')).toHaveCount(0);
  const box = page.locator('.controls [data-control-number="dModel"]');
  await box.fill('4');
  await afterRender(page, () => box.press('Tab'));
  await expect(page.locator('.controls [data-control="seed"]')).toHaveCount(1);
  await afterRender(page, () => page.evaluate(() => window.attentionPlayground.setState({ dModel: 3, sentence: 'Your journey starts with one leap' })));
  await expect(page.locator('.controls [data-control="seed"]')).toHaveCount(1); // "leap" has no vector in the book
  await afterRender(page, () => page.evaluate(() => window.attentionPlayground.setState({ step: 'weights' })));
  await expect(page.locator('.controls [data-control="seed"]')).toHaveCount(1); // the projections' seed
});

test('the Weights switch on a phone: each choice on one line, both on one line inside the page, no serious axe finding in either scheme', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openPage(page, '?step=weights');
  const toggle = page.locator('[data-main-figure] [data-model-switch]');
  for (const step of ['weights', 'causal', 'dropout', 'multihead']) {
    await goToStep(page, step);
    const layout = await toggle.evaluate((node) => {
      const lines = (button) => {
        const range = document.createRange();
        range.selectNodeContents(button);
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
      };
      const buttons = [...node.querySelectorAll('button')];
      const boxes = buttons.map((button) => button.getBoundingClientRect());
      return { lines: buttons.map(lines), tops: boxes.map((box) => Math.round(box.top)), right: Math.max(...boxes.map((box) => box.right)), heights: boxes.map((box) => box.height) };
    });
    expect(layout.lines, step).toEqual([1, 1]);
    expect(new Set(layout.tops).size, step).toBe(1);
    expect(layout.right, step).toBeLessThanOrEqual(390);
    for (const height of layout.heights) expect(height, step).toBeGreaterThanOrEqual(24); // a touch target
  }
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    const { violations } = await new AxeBuilder({ page }).include('[data-model-switch]').analyze();
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${colorScheme} ${v.id}`)).toEqual([]);
  }
});

test('no control cuts its value off: every choice of every list in the step\'s controls fits its box, at 1280 and 390 px', async ({ page }) => {
  test.setTimeout(60_000);
  await openPage(page);
  const ids = await stepIds(page);
  const findings = [];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    for (const id of ids) {
      await goToStep(page, id);
      const fold = page.locator('.controls-fold');
      if (await fold.isVisible() && !(await fold.evaluate((node) => node.open))) await page.locator('.controls-summary').click();
      // Each option's text measured in the select's own font, against the select's box less its padding and arrow.
      findings.push(...await page.locator('.controls-slot select').evaluateAll((selects, [step, w]) => {
        const context = document.createElement('canvas').getContext('2d');
        return selects.filter((select) => select.getClientRects().length > 0).flatMap((select) => {
          const style = getComputedStyle(select);
          context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
          return [...select.options].filter((option) => context.measureText(option.text).width > room)
            .map((option) => `${w}: ${step}: "${option.text}" does not fit ${select.dataset.control}'s box (${Math.round(room)} px)`);
        });
      }, [id, width]));
    }
  }
  expect(findings).toEqual([]);
});

test('step 11 names its token control by what it sets, the query\'s length Tq', async ({ page }) => {
  await openPage(page, '?step=cross');
  await expect(page.locator('.controls label[for="control-T"]')).toHaveText(/^Query tokens Tq/);
  await expect(page.getByRole('slider', { name: /^Query tokens Tq/ })).toHaveCount(1);
  await afterRender(page, () => page.evaluate(() => window.attentionPlayground.setState({ step: 'causal' })));
  await expect(page.locator('.controls label[for="control-T"]')).toHaveText(/^Tokens T/);
});
