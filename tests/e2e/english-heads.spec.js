// Step 10 with model=trained: the shipped English model's heads on the learner's sentence, their labels, the
// Layer control and switching heads off (web/src/ui/trained/heads-panel.js).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test, expect } from '@playwright/test';
import { openPage, watchConsole } from './page-helpers.js';

const panel = '[data-panel="heads"]';

test('step 10 with the trained switch shows the English model\'s heads on the sentence, with their labels', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?step=multihead&model=trained');
  await page.evaluate(() => window.attentionPlayground.heads());
  await expect(page.locator(`${panel} figure`)).toHaveCount(4);
  await expect(page.locator(`${panel} [data-heads="tokens"] .token`).first()).toBeVisible();
  const layer1 = await page.locator(`${panel} figure`).evaluateAll((figures) => figures.map((f) => f.dataset.label));
  await page.locator(`${panel} [data-heads="layer"]`).selectOption('2');
  await expect(page.locator(`${panel} figure`).first()).toHaveAttribute('data-layer', '2');
  const layer2 = await page.locator(`${panel} figure`).evaluateAll((figures) => figures.map((f) => f.dataset.label));
  // each head is named with the label its scores earn (docs/model.md lists them: none passes its threshold)
  expect([...layer1, ...layer2]).toHaveLength(8);
  await expect(page.locator(`${panel} figure figcaption strong`).first()).toContainText('Layer 2, head 1: ');
  expect(await page.evaluate(() => window.attentionPlayground.getState()['model-layer'])).toBe(2);
  await page.screenshot({ path: 'test-results/english-heads.png', fullPage: true });
  expect(problems).toEqual([]);
});

test('switching the English model\'s layer-1 heads off raises the loss on the sentence; heads-off is in the URL', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?step=multihead&model=trained&model-layer=1');
  await page.evaluate(() => window.attentionPlayground.heads());
  const before = Number(await page.locator(`${panel} tr[data-heads="before"] td[data-loss]`).getAttribute('data-loss'));
  for (let h = 1; h <= 4; h++) {
    await page.locator(`${panel} figure[data-head="${h}"] input[data-heads="off"]`).check();
    await page.evaluate(() => window.attentionPlayground.heads());
  }
  await expect(page.locator(`${panel} input[data-heads="off"]:checked`)).toHaveCount(4);
  const after = Number(await page.locator(`${panel} tr[data-heads="after"] td[data-loss]`).getAttribute('data-loss'));
  expect(after).toBeGreaterThan(before + 0.2);
  expect(await page.evaluate(() => window.attentionPlayground.getState()['heads-off'])).toBe('1.1,1.2,1.3,1.4');
  expect(problems).toEqual([]);
});

test('the English model works in the single-file page from file:// and at 390 px', async ({ page }) => {
  const problems = watchConsole(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await openPage(page, '?step=multihead&model=trained', pathToFileURL(resolve('dist/playground-single.html')).href);
  await page.evaluate(() => window.attentionPlayground.heads());
  await expect(page.locator(`${panel} figure`)).toHaveCount(4);
  await expect(page.locator(`${panel} tr[data-heads="before"] td[data-loss]`)).toBeVisible();
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, viewport: window.innerWidth }));
  expect(widths.page).toBeLessThanOrEqual(widths.viewport);
  await page.screenshot({ path: 'test-results/english-heads-390.png', fullPage: true });
  expect(problems).toEqual([]);
});
