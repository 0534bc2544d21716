// Heatmap canvases keep their bitmaps across size changes (heatmap-canvas.js sizeCanvas) and stay as crisp as
// a bitmap of the exact size: after T goes from 32 to 29, a heatmap on screen is pixel for pixel the one a
// page opened at T=29 draws, at device pixel ratios 1, 2 and 3 (bucketed bitmaps) and 1.5 (a figure that
// does not cover whole device pixels there: exact bitmaps). Pixels, not timings.
import { test, expect } from '@playwright/test';
import { afterRender, openPage, watchConsole } from './page-helpers.js';

const canvas = 'figure[data-tensor="scores"] canvas';

// The heatmap's pixels once the page has settled: two captures a frame apart that agree (as Playwright's
// toHaveScreenshot does). Work the page does once the controls are still (the PyTorch panel writes x's rows
// 150 ms after a change, and fewer rows move what lies below) can otherwise land between finding the element
// and capturing it; a drawing that is wrong stays wrong in every capture and still fails the comparison.
async function shot(page) {
  const target = page.locator(canvas);
  await target.scrollIntoViewIfNeeded();
  const nextFrames = () => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await nextFrames();
  let previous = await target.screenshot();
  for (let attempt = 0; attempt < 20; attempt++) {
    await nextFrames();
    const current = await target.screenshot();
    if (current.equals(previous)) return current;
    previous = current;
  }
  throw new Error('the heatmap never held still for two captures in a row');
}

for (const ratio of [1, 2, 3, 1.5]) {
  test(`device pixel ratio ${ratio}: a heatmap resized by a T change shows the pixels of one drawn at that size`, async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: ratio });
    const page = await context.newPage();
    const problems = watchConsole(page);
    await openPage(page, '?step=self-attention&T=32&dModel=64');
    const before = await page.locator(canvas).evaluate((c) => [c.width, c.height]);
    await afterRender(page, () => page.evaluate(() => window.attentionPlayground.setState({ T: 29 })));
    const after = await page.locator(canvas).evaluate((c) => ({ size: [c.width, c.height], cssWidth: c.getBoundingClientRect().width }));
    const resized = await shot(page);

    const fresh = await context.newPage();
    await openPage(fresh, '?step=self-attention&T=29&dModel=64');
    const exact = await fresh.locator(canvas).evaluate((c) => ({ size: [c.width, c.height], cssWidth: c.getBoundingClientRect().width }));
    const drawn = await shot(fresh);

    expect(after.cssWidth).toBe(exact.cssWidth); // the figure takes its new size either way
    if (ratio === 1.5) expect(after.size).toEqual(exact.size); // 587 px × 1.5 is not whole: an exact bitmap
    else expect(after.size).toEqual(before); // the bitmap from T=32 is kept (it is within two steps)
    expect(resized.equals(drawn), 'the resized heatmap is pixel for pixel the freshly drawn one').toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
}
