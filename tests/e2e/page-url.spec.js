// The URL holds the whole state: a link reproduces the screen, and a hostile link can only fall back
// to defaults with a visible notice.
import { test, expect } from '@playwright/test';
import { afterRender, openPage, shownValues, watchConsole } from './page-helpers.js';

test('a URL round-trips: controls show it, a change writes it, a reload reproduces the numbers', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?step=causal&T=8&mask=zero&seed=5&temperature=0.5');
  await expect(page.locator('[data-control="mask"]')).toHaveValue('zero');
  await expect(page.locator('[data-control-number="T"]')).toHaveValue('8');
  await expect(page.locator('[data-control="seed"]')).toHaveValue('5');
  await expect(page.locator('table[data-tensor="weights"] tbody tr')).toHaveCount(8);

  await afterRender(page, async () => {
    await page.locator('[data-control-number="temperature"]').fill('1.5');
    await page.locator('[data-control-number="temperature"]').press('Tab');
  });
  // The address bar follows within 150 ms (writes are coalesced while a slider is dragged).
  await expect.poll(() => Object.fromEntries(new URL(page.url()).searchParams))
    .toEqual({ step: 'causal', T: '8', seed: '5', mask: 'zero', temperature: '1.5' });
  const before = await shownValues(page, 'weights');

  await page.reload();
  await page.waitForFunction(() => window.attentionPlayground?.lastRun()?.result);
  expect(await shownValues(page, 'weights')).toEqual(before);
  await expect(page.locator('[data-control-number="temperature"]')).toHaveValue('1.5');
  expect(problems).toEqual([]);
});

test('back and forward walk the steps the learner visited', async ({ page }) => {
  await openPage(page, '?step=loop');
  await afterRender(page, () => page.getByRole('button', { name: 'Next →' }).click());
  await expect(page.locator('.step-title')).toHaveText('Average as a matrix product');
  await afterRender(page, () => page.goBack());
  await expect(page.locator('.step-title')).toHaveText('Average with a loop');
});

test('a hostile URL injects nothing and every rejected parameter gets a visible notice', async ({ page }) => {
  const problems = watchConsole(page);
  const hostile = new URLSearchParams({
    sentence: '<img src=x onerror="window.__pwned=1">',
    context: '"><script>window.__pwned=2</script>',
    T: '99',
    heads: '2;alert(1)',
    step: 'javascript:alert(1)',
    '<b>bogus</b>': '1',
  });
  await openPage(page, `?${hostile}`);
  await expect(page.locator('.notice')).toHaveCount(6);
  await expect(page.locator('.notice').first()).toContainText('sentence');
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  expect(await page.locator('img, script:not([type="module"])').count()).toBe(0);
  expect(await page.locator('b').count()).toBe(0);
  const state = await page.evaluate(() => window.attentionPlayground.getState());
  expect(state).toMatchObject({ step: 'framing', T: 6, heads: 2, sentence: 'Your journey starts with one step' });
  // The notices are dismissable, and the URL is rewritten to the state actually shown.
  await page.locator('.notice button').first().click();
  await expect(page.locator('.notice')).toHaveCount(5);
  expect(new URL(page.url()).search).toBe('');
  expect(problems).toEqual([]);
});

test('a d_out the heads do not divide moves the heads to the nearest divisor, with a notice', async ({ page }) => {
  await openPage(page, '?step=multihead&dOut=6&heads=4');
  await expect(page.locator('.notice')).toContainText('d_out=6 does not split into heads=4; using heads=3');
  await expect(page.locator('.error')).toBeHidden();
  await expect(page.locator('table[data-tensor="weights"]')).toHaveCount(3);
  // The heads control offers the divisors of d_out only; a new d_out that breaks H moves it, with a notice.
  await expect(page.locator('[data-control="heads"] option')).toHaveText(['1', '2', '3', '6']);
  await afterRender(page, () => page.evaluate(() => window.attentionPlayground.setState({ dOut: 8 })));
  expect(await page.evaluate(() => window.attentionPlayground.getState().heads)).toBe(2);
  await expect(page.locator('.notice').last()).toContainText('d_out=8 does not split into heads=3; using heads=2');
  await expect(page.locator('[data-control="heads"] option')).toHaveText(['1', '2', '4', '8']);
});

// The head picker: with 8 heads at T=32 the weights figure is about 1,700 px tall; `head=` shows one head.
test('head= shows one head of the multi-head steps; "all" brings every head back and leaves the URL', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?step=multihead&T=32&dModel=64&dOut=64&heads=8&head=3');
  const weights = page.locator('figure[data-tensor="weights"] canvas');
  await expect(weights).toHaveCount(1);
  await expect(weights).toHaveAttribute('aria-label', /, head 3:/);
  await expect(page.locator('[data-control="head"]')).toHaveValue('3');
  expect(await page.locator('[data-control="head"] option').allTextContents()).toEqual(['all', '1', '2', '3', '4', '5', '6', '7', '8']);
  const width = await page.locator('figure[data-tensor="weights"] .panels').evaluate((panels) => panels.scrollWidth);
  await expect(page.locator('figure[data-tensor="weights"] summary', { hasText: 'values as a table' })).toHaveText('Show the 1024 values as a table');

  await afterRender(page, () => page.locator('[data-control="head"]').selectOption('0'));
  await expect(weights).toHaveCount(8);
  await expect(page.locator('figure[data-tensor="weights"] summary', { hasText: 'values as a table' })).toHaveText('Show the 8192 values as a table');
  // The heads side by side (the row scrolls sideways within the column).
  expect(await page.locator('figure[data-tensor="weights"] .panels').evaluate((panels) => panels.scrollWidth)).toBeGreaterThan(2 * width);
  await expect.poll(() => new URL(page.url()).searchParams.has('head')).toBe(false);

  await afterRender(page, () => page.locator('[data-control="head"]').selectOption('5'));
  await expect.poll(() => new URL(page.url()).searchParams.get('head')).toBe('5');
  await expect(weights).toHaveAttribute('aria-label', /, head 5:/);
  // Fewer heads than the one picked: all heads again, with a notice.
  await afterRender(page, () => page.locator('[data-control="heads"]').selectOption('2'));
  await expect(weights).toHaveCount(2);
  await expect(page.locator('.notices')).toContainText('There is no head 5 with heads=2; showing all heads.');
  expect(problems).toEqual([]);
});
