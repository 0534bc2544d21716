// Everything a learner needs works from the keyboard alone.
import { test, expect } from '@playwright/test';
import { afterRender, openPage, watchConsole } from './page-helpers.js';

async function tabUntil(page, predicate, limit = 80) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(predicate)) return;
  }
  throw new Error(`focus never reached the element after ${limit} Tab presses`);
}

test('keyboard only: skip link, ←/→ between steps, contents, heatmap cells, editing x, Next', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page);
  await page.keyboard.press('Tab');
  await expect(page.locator('.skip')).toBeFocused();

  await afterRender(page, () => page.keyboard.press('ArrowRight'));
  await expect(page.locator('.step-title')).toHaveText('Average with a loop');
  await afterRender(page, () => page.keyboard.press('ArrowLeft'));
  await expect(page.locator('.step-title')).toHaveText('Next-token framing');

  await tabUntil(page, () => document.activeElement?.dataset?.step === 'causal');
  await afterRender(page, () => page.keyboard.press('Enter'));
  await expect(page.locator('.step-title')).toHaveText('Causal mask');

  // A heatmap takes focus; arrows move between cells and the tooltip names the cell, its query and key.
  await tabUntil(page, () => document.activeElement?.tagName === 'CANVAS' && document.activeElement.closest('figure').dataset.tensor === 'weights');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  const tooltip = page.locator('figure[data-tensor="weights"] .tooltip');
  await expect(tooltip).toContainText('weights[1, 2]');
  await expect(tooltip).toContainText('query row 1 (journey)');
  await expect(tooltip).toContainText('key column 2 (starts)');
  await expect(tooltip).toContainText('masked');
  await expect(page.locator('.step-title')).toHaveText('Causal mask'); // arrows inside a heatmap do not turn the page

  // x is editable at teaching sizes: Enter on a cell opens an input; Enter commits; the URL keeps it.
  await page.goto('/dist/index.html?step=loop');
  await page.waitForFunction(() => window.attentionPlayground?.lastRun()?.result);
  await tabUntil(page, () => document.activeElement?.tagName === 'CANVAS' && document.activeElement.closest('figure').dataset.tensor === 'x');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await expect(page.locator('.cell-editor')).toBeFocused();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('2.5');
  await afterRender(page, () => page.keyboard.press('Enter'));
  await expect.poll(() => new URL(page.url()).searchParams.get('edits')).toBe('0.1:2.5');
  await expect(page.locator('table[data-tensor="x"] tbody tr').first().locator('td').nth(1)).toHaveText('2.5000');
  // The loop's first output row is x's first row itself.
  await expect(page.locator('table[data-tensor="output"] tbody tr').first().locator('td').nth(1)).toHaveText('2.5000');

  await tabUntil(page, () => document.activeElement?.dataset?.action === 'next');
  await afterRender(page, () => page.keyboard.press('Enter'));
  await expect(page.locator('.step-title')).toHaveText('Average as a matrix product');
  expect(problems).toEqual([]);
});

test('controls have labels and the heatmaps have tables for screen readers', async ({ page }) => {
  await openPage(page, '?step=weights');
  for (const control of await page.locator('.controls [data-control]').all()) {
    const id = await control.getAttribute('id');
    await expect(page.locator(`label[for="${id}"]`)).toHaveCount(1);
  }
  const table = page.locator('table[data-tensor="weights"]');
  await expect(table.locator('caption')).toHaveText('weights (T=6, T=6)');
  await expect(table.locator('thead th')).toHaveCount(7);
  await expect(table.locator('tbody th').first()).toHaveText('Your');
});

test('every step fits a 360 px phone without sideways scrolling', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openPage(page, '?step=framing');
  for (let step = 1; step <= 11; step++) {
    if (step > 1) await afterRender(page, () => page.getByRole('button', { name: 'Next →' }).click());
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, viewport: window.innerWidth }));
    expect(widths.page, `step ${step}`).toBeLessThanOrEqual(widths.viewport);
  }
});
