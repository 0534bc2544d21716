// Step 10 with model=trained: the shipped English model's heads on the learner's sentence, their labels, the
// Layer control and switching heads off (web/src/ui/trained/heads-panel.js).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { openPage, watchConsole } from './page-helpers.js';

const panel = '[data-panel="heads"]';

test('step 10 with the trained switch shows the English model\'s heads on the sentence, with their labels', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?step=multihead&model=trained');
  await page.evaluate(() => window.attentionPlayground.heads());
  await expect(page.locator(`${panel} figure`)).toHaveCount(4);
  await expect(page.locator(`${panel} [data-heads="tokens"] .token`).first()).toBeVisible();
  // it opens on layer 1 (the walk's Layer default on steps 6–11); layer 2's heads are drawn on request
  await expect(page.locator(`${panel} figure`).first()).toHaveAttribute('data-layer', '1');
  const layer1 = await page.locator(`${panel} figure`).evaluateAll((figures) => figures.map((f) => f.dataset.label));
  await page.locator(`${panel} [data-heads="layer"]`).selectOption('2');
  await expect(page.locator(`${panel} figure`).first()).toHaveAttribute('data-layer', '2');
  const layer2 = await page.locator(`${panel} figure`).evaluateAll((figures) => figures.map((f) => f.dataset.label));
  // heads that differ, with their labels (docs/model.md: a previous-token head in layer 1, three induction heads in layer 2)
  expect(layer1.filter((label) => label === 'previous token')).toHaveLength(1);
  expect(layer2.filter((label) => label === 'induction')).toHaveLength(3);
  expect(new Set([...layer1, ...layer2]).size).toBeGreaterThan(1);
  await expect(page.locator(`${panel} figure[data-head="2"] figcaption strong`)).toHaveText('Layer 2, head 2: induction');
  expect(await page.evaluate(() => window.attentionPlayground.getState()['model-layer'])).toBe(2);
  await expect.poll(() => new URL(page.url()).searchParams.get('model-layer')).toBe('2'); // 1 is the default
  await page.screenshot({ path: 'test-results/english-heads.png', fullPage: true });
  expect(problems).toEqual([]);
});

test('step 10: the weights switch at the top of the picture turns the book\'s random heads into the trained model\'s, which differ', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?step=multihead&model-layer=2'); // layer 2: the shipped model's labelled heads (docs/model.md)
  const figure = page.locator('[data-main-figure]');
  const toggle = figure.locator('[data-model-switch]');
  await expect(toggle).toBeVisible();
  await expect(toggle.getByRole('button', { name: 'the book’s random weights' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('.controls [data-control="model"]')).toHaveCount(0); // the switch replaced the dropdown
  const trained = toggle.getByRole('button', { name: 'a trained model' });
  await expect(trained).toHaveAttribute('aria-pressed', 'false');
  // by keyboard: the switch is a pair of buttons in the tab order
  await trained.focus();
  await page.keyboard.press('Enter');
  await expect(trained).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(() => new URL(page.url()).searchParams.get('model')).toBe('trained');
  await page.evaluate(() => window.attentionPlayground.heads());
  // the heads follow the switch inside the picture, first on the screen, each with its label
  const heads = figure.locator(`${panel} figure`);
  await expect(heads).toHaveCount(4);
  const labels = await heads.evaluateAll((figures) => figures.map((f) => f.dataset.label));
  expect(new Set(labels).size).toBeGreaterThanOrEqual(2);
  const top = await figure.locator(panel).evaluate((node) => node.getBoundingClientRect().top + window.scrollY);
  expect(top).toBeLessThan(800);
  // the switch and the heads in the picture: no serious axe finding, in both colour schemes
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    const { violations } = await new AxeBuilder({ page }).include('[data-main-figure]').analyze();
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${colorScheme} ${v.id}: ${v.nodes.slice(0, 4).map((n) => n.target.join(' ') + ' ' + n.failureSummary).join(' | ')}`)).toEqual([]);
  }
  // and back: the walk's random weights, no English heads
  await toggle.getByRole('button', { name: 'the book’s random weights' }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get('model')).toBeNull();
  await expect(page.locator(`${panel} figure`)).toHaveCount(0);
  expect(problems).toEqual([]);
});

test('lock=model disables the weights switch', async ({ page }) => {
  await openPage(page, '?step=weights&lock=model');
  const buttons = page.locator('[data-main-figure] [data-model-switch] button');
  await expect(buttons).toHaveCount(2);
  for (const button of await buttons.all()) await expect(button).toBeDisabled();
});

test('switching the English model\'s induction heads off raises the loss on a repeated sentence; heads-off is in the URL', async ({ page }) => {
  const problems = watchConsole(page);
  const half = 'Zorba met Quillon at the old mill of Varnek.';
  await openPage(page, `?step=multihead&model=trained&model-layer=2&sentence=${encodeURIComponent(`${half} ${half}`)}`);
  await page.evaluate(() => window.attentionPlayground.heads());
  const induction = page.locator(`${panel} figure[data-label="induction"]`);
  await expect(induction).toHaveCount(3);
  const before = Number(await page.locator(`${panel} tr[data-heads="before"] td[data-loss]`).getAttribute('data-loss'));
  for (const head of ['1', '2', '3']) {
    await page.locator(`${panel} figure[data-head="${head}"] input[data-heads="off"]`).check();
    await page.evaluate(() => window.attentionPlayground.heads());
  }
  await expect(page.locator(`${panel} input[data-heads="off"]:checked`)).toHaveCount(3);
  const after = Number(await page.locator(`${panel} tr[data-heads="after"] td[data-loss]`).getAttribute('data-loss'));
  expect(after).toBeGreaterThan(before + 1);
  expect(await page.evaluate(() => window.attentionPlayground.getState()['heads-off'])).toBe('2.1,2.2,2.3');
  expect(problems).toEqual([]);
});

test('step 11 with the trained switch shows the heads panel under its picture; switching a head off changes the loss', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?step=cross&model=trained&model-layer=1');
  await page.evaluate(() => window.attentionPlayground.heads());
  await expect(page.locator(`${panel} figure`)).toHaveCount(4);
  await expect(page.locator(`[data-main-figure] ${panel}`)).toHaveCount(0); // under the picture, not in it
  const figureBottom = await page.locator('[data-main-figure]').evaluate((node) => node.getBoundingClientRect().bottom);
  const panelTop = await page.locator(panel).evaluate((node) => node.getBoundingClientRect().top);
  expect(panelTop).toBeGreaterThanOrEqual(figureBottom);
  const previous = page.locator(`${panel} figure[data-label="previous token"]`);
  await expect(previous).toHaveCount(1);
  const before = Number(await page.locator(`${panel} tr[data-heads="before"] td[data-loss]`).getAttribute('data-loss'));
  await previous.locator('input[data-heads="off"]').check();
  await page.evaluate(() => window.attentionPlayground.heads());
  const after = Number(await page.locator(`${panel} tr[data-heads="after"] td[data-loss]`).getAttribute('data-loss'));
  expect(after).not.toBe(before);
  const head = await previous.getAttribute('data-head');
  expect(await page.evaluate(() => window.attentionPlayground.getState()['heads-off'])).toBe(`1.${head}`);
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
