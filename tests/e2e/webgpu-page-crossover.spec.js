// The page's GPU crossover panel in the settings panel beside the backend badge (web/src/ui/crossover-controls.js), on
// Chromium's SwiftShader: set a crossover (it routes the step's calls to WebGPU at once and after a reload),
// clear the stored one, turn the probe on and off (persisted), and refuse a bad number with the API's words.
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { afterRender, openPage, openSettings, watchConsole } from './page-helpers.js';

const panel = (page) => page.locator('[data-gpu-crossover]');
const reason = (page) => page.locator('[data-crossover-reason]');
const message = (page) => page.locator('[data-crossover-message]');
const storedKeys = (page) => page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('attention-playground:crossover:')));
const badgeBackend = (page) => page.locator('output.badge').getAttribute('data-backend');

test.describe('the page\'s GPU crossover panel', () => {
  test.beforeEach(async ({ page }) => {
    await page.goto('/dist/index.html');
    await page.evaluate(() => localStorage.clear());
  });

  test('set routes the step to WebGPU now and after a reload; clear puts it back on WASM', async ({ page }) => {
    const problems = watchConsole(page);
    await openPage(page, '?step=self-attention');
    await openSettings(page);
    await expect(panel(page)).toBeVisible();
    await expect(reason(page)).toContainText('GPU crossover (none): gpuProbe is false');
    expect(await badgeBackend(page)).toBe('wasm-simd');

    await panel(page).locator('summary').click();
    await page.locator('[data-crossover-input]').fill('2');
    await afterRender(page, () => page.locator('[data-crossover-set]').click());
    await expect(message(page)).toHaveText('Crossover set to n = 2: calls doing at least n³ multiply-adds go to WebGPU.');
    await expect(reason(page)).toContainText('GPU crossover (set): ');
    expect(await storedKeys(page)).toHaveLength(1);
    // The step's calls (T = 6: 6·6·3 multiply-adds and more, above 2³) now run on the GPU.
    await expect.poll(() => badgeBackend(page)).toBe('webgpu');

    // A reload finds the stored record: 'auto' asks for the adapter although the probe is off.
    await openPage(page, '?step=self-attention');
    await openSettings(page);
    await expect(reason(page)).toContainText('GPU crossover (set): ');
    await expect.poll(() => badgeBackend(page)).toBe('webgpu');

    await panel(page).locator('summary').click();
    await afterRender(page, () => page.locator('[data-crossover-clear]').click());
    await expect(message(page)).toHaveText('Stored crossover cleared.');
    expect(await storedKeys(page)).toEqual([]);
    await expect(reason(page)).toContainText('GPU crossover (none)');
    expect(await badgeBackend(page)).toBe('wasm-simd');
    expect(problems).toEqual([]);
  });

  test('the probe setting is persisted; on SwiftShader the committed crossover stands and nothing is measured', async ({ page }) => {
    const problems = watchConsole(page);
    await openPage(page, '?step=self-attention');
    await openSettings(page);
    await panel(page).locator('summary').click();
    const probe = page.locator('[data-crossover-probe]');
    await expect(probe).not.toBeChecked();
    await afterRender(page, () => probe.check());
    expect(await page.evaluate(() => localStorage.getItem('attention-playground:page:gpu-probe'))).toBe('on');
    // Probing on: the adapter is asked for; SwiftShader is never probed, so crossover.json's record decides.
    await expect(reason(page)).toContainText('GPU crossover (committed): ');
    await expect(reason(page)).toContainText('SwiftShader');

    await openPage(page, '?step=self-attention');
    await openSettings(page);
    await panel(page).locator('summary').click();
    await expect(probe).toBeChecked();
    await afterRender(page, () => probe.uncheck());
    expect(await page.evaluate(() => localStorage.getItem('attention-playground:page:gpu-probe'))).toBeNull();
    await expect(reason(page)).toContainText('GPU crossover (none): gpuProbe is false');
    expect(await storedKeys(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  test('a bad number is refused with the API\'s words and changes nothing', async ({ page }) => {
    await openPage(page, '?step=self-attention');
    await openSettings(page);
    await panel(page).locator('summary').click();
    await page.locator('[data-crossover-input]').fill('0');
    await page.locator('[data-crossover-set]').click();
    await expect(message(page)).toHaveText('setGpuCrossover: thresholdN=0; expected a positive integer or null');
    expect(await storedKeys(page)).toEqual([]);
  });

  for (const scheme of ['light', 'dark']) {
    test(`the open panel has no serious axe-core finding (${scheme})`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await openPage(page, '?step=self-attention');
    await openSettings(page);
      await panel(page).locator('summary').click();
      await page.locator('[data-crossover-input]').fill('0');
      await page.locator('[data-crossover-set]').click();
      await expect(message(page)).not.toBeEmpty();
      const { violations } = await new AxeBuilder({ page }).include('[data-gpu-crossover]').analyze();
      const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      expect(serious).toEqual([]);
    });
  }

  // The header at 1280 px: one row, brand left, tabs, and the badge with the settings right; the open settings and
  // crossover panels lie over the page under their summary, so opening them moves none of those; at 360 px all in
  // the flow, nothing past the edge.
  for (const [width, scheme] of [[1280, 'light'], [1280, 'dark'], [360, 'light'], [360, 'dark']]) {
    test(`opening the panel keeps the header laid out at ${width} px (${scheme})`, async ({ page }) => {
      await page.setViewportSize({ width, height: 800 });
      await page.emulateMedia({ colorScheme: scheme });
      await openPage(page, '?step=self-attention');
      const boxes = () => page.evaluate(() => Object.fromEntries(['.brand', '.tabs', '.backend'].map((selector) => {
        const { x, y, width: w, height: h } = document.querySelector(`header.top ${selector}`).getBoundingClientRect();
        return [selector, { x, y, w, h }];
      })));
      const closed = await boxes();
      if (width === 1280) {
        for (const part of ['.tabs', '.backend']) expect(closed[part].y).toBeLessThan(closed['.brand'].y + closed['.brand'].h); // one row
        expect(closed['.backend'].x).toBeGreaterThan(closed['.tabs'].x + closed['.tabs'].w);
      }
      await openSettings(page);
      await panel(page).locator('summary').click();
      await expect(reason(page)).toBeVisible();
      for (const selector of ['.settings-body', '.crossover-body']) {
        const body = await page.locator(selector).boundingBox();
        expect(body.x).toBeGreaterThanOrEqual(0);
        expect(body.x + body.width).toBeLessThanOrEqual(width);
      }
      if (width === 1280) {
        expect(await boxes()).toEqual(closed);
        await page.keyboard.press('Escape');
        await expect(reason(page)).toBeHidden();
        await expect(panel(page).locator('summary')).toBeFocused();
        await page.keyboard.press('Escape');
        await expect(page.locator('.settings-body')).toBeHidden();
        await expect(page.locator('details[data-settings] > summary')).toBeFocused();
        await openSettings(page);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
      const { violations } = await new AxeBuilder({ page }).include('header.top').analyze();
      const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      expect(serious).toEqual([]);
    });
  }

  test('the panel shows only for the Automatic backend', async ({ page }) => {
    await openPage(page, '?step=self-attention&backend=wasm-simd');
    await openSettings(page);
    await expect(panel(page)).toBeHidden();
  });
});
