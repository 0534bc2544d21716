// The projection weights are editable like x (issue 3: "Matrices are editable by clicking a cell at
// teaching sizes"): by keyboard and by click, the numbers on the page then equal the core's result for
// the edited inputs, the edit lives in the URL, and `lock=edits` locks every matrix.
import { test, expect } from '@playwright/test';
import { afterRender, expectPageMatchesCore, openPage, shownValues, watchConsole } from './page-helpers.js';

async function tabUntil(page, predicate, limit = 80) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(predicate)) return;
  }
  throw new Error(`focus never reached the element after ${limit} Tab presses`);
}

// Keeps the inputs the page shows now, before an edit, so the test can make the edit itself.
async function rememberInputs(page) {
  await page.evaluate(() => {
    const { inputs } = window.attentionPlayground.lastRun();
    window.__inputsBefore = structuredClone({ x: inputs.x, xContext: inputs.xContext, projection: inputs.projection, crossProjection: inputs.crossProjection });
  });
}

/**
 * The core's result for the remembered inputs with one weight cell replaced by the test (not by the
 * page): self-attention, multi-head or cross-attention, as the current step computes it.
 */
// Steps in the nn.Linear layout show each weight as (d_out, d_in): cell (row, col) there is cell
// (col, row) of the (d_in, d_out) matrix the core takes (`linear: true`).
async function coreWithEdit(page, { projection, weight, row, col, value, linear = false }) {
  return page.evaluate(async (edit) => {
    const run = window.attentionPlayground.lastRun();
    const api = await window.attentionPlayground.loadAttention({ backend: run.backend });
    const s = run.state;
    const inputs = structuredClone(window.__inputsBefore);
    const matrix = inputs[edit.projection][edit.weight];
    if (edit.linear) matrix.data[edit.col * matrix.shape[1] + edit.row] = edit.value;
    else matrix.data[edit.row * matrix.shape[1] + edit.col] = edit.value;
    const attention = { scale: s.scale, temperature: s.temperature };
    const plain = (t) => Array.from(t.data);
    switch (s.step) {
      case 'weights': {
        const r = api.selfAttention(inputs.x, inputs.projection, attention);
        return { weights: plain(r.weights), output: plain(r.output) };
      }
      case 'causal': {
        const r = api.selfAttention(inputs.x, inputs.projection, { ...attention, causal: true, mask: s.mask });
        return { weights: plain(r.weights), output: plain(r.output) };
      }
      case 'multihead': {
        const r = api.multiheadAttentionSplit(inputs.x, inputs.projection, { ...attention, causal: s.causal, heads: s.heads });
        return { weights: plain(r.weights), 'context (split heads)': plain(r.context), 'context (stacked heads)': plain(r.context) };
      }
      case 'cross': {
        const r = api.crossAttention(inputs.x, inputs.xContext, inputs.crossProjection, { ...attention, heads: s.heads });
        return { weights: plain(r.weights), output: plain(r.output) };
      }
      default: throw new Error(`no oracle for step ${s.step}`);
    }
  }, { projection, weight, row, col, value, linear });
}

async function expectShownToEqual(page, expected) {
  for (const [name, values] of Object.entries(expected)) {
    const shown = await shownValues(page, name);
    expect(shown.length, `${name}: number of values`).toBe(values.length);
    shown.forEach((v, i) => expect(Math.abs(v - values[i]), `${name}[${i}]`).toBeLessThanOrEqual(6e-5));
  }
}

// The page position of cell (row, col) of a weight heatmap: the layout of heatmap-draw.js for a
// matrix without token labels (row indices on the left, 16 px of column indices on top).
async function cellPosition(canvas, rows, cols, row, col) {
  const box = await canvas.boundingBox();
  const left = Math.min(100, 14 + String(rows - 1).length * 7.5);
  const cell = (box.width - left - 4) / cols;
  return { x: left + (col + 0.5) * cell, y: 16 + (row + 0.5) * cell };
}

function cellText(page, tensor, row, col) {
  return page.locator(`table[data-tensor="${tensor}"] tbody tr`).nth(row).locator('td').nth(col);
}

test('step 6: a cell of W_query edited by keyboard changes the numbers to the core\'s for the edited weights', async ({ page }) => {
  const problems = watchConsole(page);
  // The nn.Linear layout (the book's seed 789): the weights steps 7 and 8 use too.
  await openPage(page, '?step=weights&layout=linear');
  await rememberInputs(page);
  await tabUntil(page, () => document.activeElement?.tagName === 'CANVAS' && document.activeElement.closest('figure').dataset.tensor === 'W_query.weight');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  const editor = page.locator('.cell-editor');
  await expect(editor).toBeFocused();
  await expect(editor).toHaveAttribute('aria-label', 'New value for W_query.weight[1, 2]');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('-0.75');
  await afterRender(page, () => page.keyboard.press('Enter'));

  await expect.poll(() => new URL(page.url()).searchParams.get('edits')).toBe('Wq.1.2:-0.75');
  await expect(cellText(page, 'W_query.weight', 1, 2)).toHaveText('−0.7500');
  expect(await page.evaluate(() => window.attentionPlayground.getState().edits)).toEqual([{ matrix: 'Wq', row: 1, col: 2, value: -0.75 }]);
  const expected = await coreWithEdit(page, { projection: 'projection', weight: 'query', row: 1, col: 2, value: -0.75, linear: true });
  await expectShownToEqual(page, expected);
  await expectPageMatchesCore(page);
  // The same weights feed steps 7 and 8: Next keeps the edit and shows it.
  await afterRender(page, () => page.getByRole('button', { name: 'Next →' }).click());
  await expect(page.locator('.step-title')).toHaveText('Causal mask');
  await expect(cellText(page, 'W_query.weight', 1, 2)).toHaveText('−0.7500');
  await expectShownToEqual(page, await coreWithEdit(page, { projection: 'projection', weight: 'query', row: 1, col: 2, value: -0.75, linear: true }));
  await expect(page.locator('.reset-edits')).toBeVisible();
  expect(problems).toEqual([]);
});

test('steps 10 and 11: a weight cell edited by click; the edits survive a URL round trip', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?step=multihead');
  await rememberInputs(page);
  // Steps 10 and 11 show nn.Linear's weights, (d_out, d_in) = (4, 3): thumbnails in the step's picture, opened
  // full size first (a click on a thumbnail opens it).
  await afterRender(page, () => page.locator('[data-expand="W_value.weight"]').click());
  const value = page.locator('figure[data-tensor="W_value.weight"] canvas');
  await value.click({ position: await cellPosition(value, 4, 3, 1, 0) });
  await expect(page.locator('.cell-editor')).toHaveAttribute('aria-label', 'New value for W_value.weight[1, 0]');
  await page.locator('.cell-editor').fill('1.5');
  await afterRender(page, () => page.locator('.cell-editor').press('Enter'));
  await expect(cellText(page, 'W_value.weight', 1, 0)).toHaveText('1.5000');
  await expectShownToEqual(page, await coreWithEdit(page, { projection: 'projection', weight: 'value', row: 1, col: 0, value: 1.5, linear: true }));
  await expectPageMatchesCore(page);
  await expect(page.locator('[data-check="stackedEqualsSplit"] .verdict')).toHaveText('✓ yes');

  // Cross-attention has its own weights: editing them leaves self-attention's alone.
  await afterRender(page, () => page.getByRole('button', { name: 'Next →' }).click());
  await rememberInputs(page);
  await afterRender(page, () => page.locator('[data-expand="W_key.weight (cross)"]').click());
  const key = page.locator('figure[data-tensor="W_key.weight (cross)"] canvas');
  await key.click({ position: await cellPosition(key, 4, 3, 0, 1) });
  await expect(page.locator('.cell-editor')).toHaveAttribute('aria-label', 'New value for W_key.weight (cross)[0, 1]');
  await page.locator('.cell-editor').fill('-2.25');
  await afterRender(page, () => page.locator('.cell-editor').press('Enter'));
  await expect(cellText(page, 'W_key.weight (cross)', 0, 1)).toHaveText('−2.2500');
  const crossExpected = await coreWithEdit(page, { projection: 'crossProjection', weight: 'key', row: 0, col: 1, value: -2.25, linear: true });
  await expectShownToEqual(page, crossExpected);
  await expectPageMatchesCore(page);
  await expect.poll(() => new URL(page.url()).searchParams.get('edits')).toBe('Wv.1.0:1.5,crossWk.0.1:-2.25');

  // A reload, and the same URL opened fresh, reproduce the edits and the numbers.
  const url = page.url();
  await page.reload();
  await page.waitForFunction(() => window.attentionPlayground?.lastRun()?.result);
  await expect(cellText(page, 'W_key.weight (cross)', 0, 1)).toHaveText('−2.2500');
  await expectShownToEqual(page, crossExpected);
  await page.goto('about:blank');
  await page.goto(url.replace('step=cross', 'step=multihead'));
  await page.waitForFunction(() => window.attentionPlayground?.lastRun()?.result);
  await expect(cellText(page, 'W_value.weight', 1, 0)).toHaveText('1.5000');
  await expectPageMatchesCore(page);
  // Undo puts back the seeded weights.
  await afterRender(page, () => page.locator('.reset-edits').click());
  await expect.poll(() => new URL(page.url()).searchParams.has('edits')).toBe(false);
  await expect(page.locator('.reset-edits')).toHaveCount(0);
  expect(problems).toEqual([]);
});

test('lock=edits locks the weights as well as x; a hostile weight edit in the URL is refused with a notice', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?step=weights&lock=edits&edits=Wk.0.0:0.5');
  await expect(cellText(page, 'W_key', 0, 0)).toHaveText('0.5000'); // an instructor's edit still applies
  for (const name of ['x', 'W_query', 'W_key', 'W_value']) {
    await expect(page.locator(`figure[data-tensor="${name}"] canvas`)).not.toHaveClass(/editable/);
  }
  const canvas = page.locator('figure[data-tensor="W_query"] canvas');
  await canvas.click({ position: await cellPosition(canvas, 3, 2, 0, 0) });
  await canvas.press('Enter');
  await expect(page.locator('.cell-editor')).toHaveCount(0);
  await expect(page.locator('.reset-edits')).toHaveCount(0);
  const notices = await page.evaluate(() => window.attentionPlayground.setState({ edits: [{ matrix: 'Wq', row: 0, col: 0, value: 1 }] }));
  expect(notices).toHaveLength(1);

  await openPage(page, `?${new URLSearchParams({ step: 'weights', edits: 'Wq.0.0:1,Wk.0.0:"><img src=x onerror=window.__pwned=1>' })}`);
  await expect(page.locator('.notice')).toHaveCount(1);
  await expect(page.locator('.notice')).toContainText('edits');
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  expect(await page.locator('img').count()).toBe(0);
  expect(await page.evaluate(() => window.attentionPlayground.getState().edits)).toEqual([]);
  await expect(page.locator('figure[data-tensor="W_query"] canvas')).toHaveClass(/editable/);
  expect(problems).toEqual([]);
});
