// The Real model view (view=model): the built-in tiny GPT-2 (labelled untrained) opens with every layer × head's
// weights (at 1280 the first layer's on the first screen, above the rest), the next-token top-10 and the forward's
// time, backend and threads (one: the tiny model is below the
// workers' crossover, and the line says so); switching a head off changes the predictions; on 2 Web Workers
// (model-threads=2) the same heads, top-10 and ablation; the single-file page from file://, where no worker
// starts, runs on one thread and says why; with WebAssembly blocked the JS reference runs it, saying why; a
// checkpoint from a URL (the test server) streams with progress into the cache and "forget" empties it; a
// slow download is cancelled; dropped files load; offline (the hub unreachable) the view says where to get a checkpoint; axe finds
// nothing serious at 1280 and 390 px.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { test, expect } from '@playwright/test';

async function seriousFindings(page) {
  const { violations } = await new AxeBuilder({ page }).include('#real-model').analyze();
  return violations.filter((v) => ['serious', 'critical'].includes(v.impact)).map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

for (const width of [1280, 390]) {
  test(`the tiny model's heads, top-10 and timing at ${width} px; ablation changes the predictions; axe clean`, async ({ page }, testInfo) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width, height: width > 400 ? 800 : 844 });
    await page.goto('/dist/?view=model');
    const view = page.locator('#real-model');
    await expect(view.locator('.real-model-untrained')).toBeVisible();
    await expect(view.locator('.real-model-untrained')).toContainText('Untrained');
    await expect(view.locator('canvas')).toHaveCount(8);
    await expect(view.locator('.real-model-top tbody tr')).toHaveCount(10);
    await expect(view.locator('.real-model-timing')).toHaveText(/^Forward of 22 tokens: \d+\.\d ms on wasm-simd · 1 thread · path: weights$/);
    await expect(view.locator('.real-model-threads-note')).toHaveText("Why one thread: threads 'auto': even a full context (32 tokens: 0.2M multiply-adds between exchanges, below the workers' crossover (1M)).");
    await expect(view.locator('#real-model-threads')).toHaveValue('auto');
    await expect(view.locator('.real-model-info')).toContainText('2 layers × 4 heads');
    await expect(view.locator('.head-label')).toHaveCount(8); // headScores' labels, where a score passes its threshold
    // on a phone the other sources and the file picker are folded; on a laptop they are open, without a fold
    await expect(view.locator('.real-model-more')).toHaveJSProperty('open', width > 400);
    if (width > 400) {
      // picture first: the first layer's heads whole on the first screen, above the next-token table
      const [firstHead, table] = await Promise.all([view.locator('canvas').first().boundingBox(), view.locator('.real-model-top').boundingBox()]);
      expect(firstHead.y + firstHead.height).toBeLessThanOrEqual(800 - 24);
      expect(table.y).toBeGreaterThan(firstHead.y);
    }
    await expect(page.locator('.tabs a[data-view="model"]')).toHaveAttribute('aria-current', 'page');
    const before = await view.locator('.real-model-top tbody').innerText();
    await view.locator('[data-ablate="1.2"]').check();
    await expect(view.locator('.real-model-top thead th')).toHaveCount(4);
    const after = await view.locator('.real-model-top tbody').innerText();
    expect(after).not.toBe(before);
    await expect(view.locator('.real-model-notes')).toContainText('Heads switched off: 1');
    await view.locator('#real-model-text').fill('the the the cat');
    await expect(view.locator('.real-model-top caption')).toHaveText('Next token after “at”'); // " cat" is the tokens "Ġc" "at"
    await expect(page).toHaveURL(/model-text=the\+the\+the\+cat|model-text=the%20the%20the%20cat/);
    await page.screenshot({ path: testInfo.outputPath(`real-model-${width}.png`), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await seriousFindings(page)).toEqual([]);
  });
}

test('a checkpoint from a URL: progress, the cache, forget, cancel; files dropped on the view; the offline message', async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  await page.goto('/dist/?view=model');
  const view = page.locator('#real-model');
  await expect(view.locator('canvas')).toHaveCount(8);
  const source = view.locator('#real-model-source');
  const url = `${baseURL}tests/fixtures/gpt2`;
  // progress, then the cache
  const progressTexts = [];
  page.on('console', () => {});
  await source.fill(url);
  await view.locator('[data-action="load-model"]').click();
  await expect(view.locator('.real-model-info')).toContainText(`${url}: 2 layers × 4 heads`);
  await expect(view.locator('.real-model-untrained')).toBeHidden();
  expect(await page.evaluate(async (u) => Boolean(await (await caches.open('attention-playground-checkpoints')).match(`${u}/model.safetensors`)), url)).toBe(true);
  await view.locator('[data-action="forget-models"]').click();
  await expect(view.locator('.real-model-message')).toHaveText(/forgotten \(the cache is empty\)/);
  expect(await page.evaluate(() => caches.has('attention-playground-checkpoints'))).toBe(false);
  // a slow model file: progress shows, Cancel stops it
  await page.route('**/tests/fixtures/gpt2/model.safetensors', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await route.continue().catch(() => {});
  });
  await view.locator('[data-action="load-model"]').click();
  await expect(view.locator('.real-model-progress-text')).toContainText(/merges\.txt|Loading/);
  await view.locator('[data-action="cancel-load"]').click();
  await expect(view.locator('.real-model-message')).toContainText('Loading cancelled');
  progressTexts.push(await view.locator('.real-model-progress-text').innerText());
  // files dropped on the view: the fixture checkpoint's four files
  await page.evaluate(async () => {
    const names = ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt'];
    const transfer = new DataTransfer();
    for (const name of names) transfer.items.add(new File([await (await fetch(`/tests/fixtures/gpt2/${name}`)).blob()], name));
    document.querySelector('.real-model').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  });
  await expect(view.locator('.real-model-info')).toContainText('model: 2 layers × 4 heads');
  await expect(view.locator('.real-model-top tbody tr')).toHaveCount(10);
  // offline: the hub unreachable
  await page.route('https://huggingface.co/**', (route) => route.abort('internetdisconnected'));
  await source.fill('gpt2');
  await view.locator('[data-action="load-model"]').click();
  await expect(view.locator('.real-model-message')).toContainText('https://huggingface.co/gpt2/resolve/main/config.json');
  await expect(view.locator('.real-model-message')).toContainText('load “gpt2”');
});

test('on 2 Web Workers: the heads, the top-10 and ablation as on one thread, the line says so; back to one thread', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  await page.goto('/dist/?view=model&model-threads=1');
  const view = page.locator('#real-model');
  await expect(view.locator('.real-model-timing')).toContainText('1 thread · path: weights');
  await expect(view.locator('.real-model-heads')).toHaveAttribute('aria-busy', 'false');
  const oneThread = await view.locator('.real-model-top tbody').innerText();
  const oneThreadLabels = await view.locator('.head-label').allInnerTexts();
  await view.locator('#real-model-threads').selectOption('2');
  await expect(page).toHaveURL(/model-threads=2/);
  await expect(view.locator('.real-model-timing')).toHaveText(/^Forward of 22 tokens: \d+\.\d ms on wasm-simd · 2 Web Workers · path: workers \(weights\)$/);
  await expect(view.locator('.real-model-threads-note')).toHaveText(/^One thread would be faster for this forward: 22 tokens: 0\.2M multiply-adds between exchanges, below the workers' crossover \(1M\)\./);
  await expect(view.locator('canvas')).toHaveCount(8);
  expect(await view.locator('.real-model-top tbody').innerText()).toBe(oneThread);
  await expect(view.locator('.real-model-heads')).toHaveAttribute('aria-busy', 'false'); // labelled from the workers' probes
  expect(await view.locator('.head-label').allInnerTexts()).toEqual(oneThreadLabels);
  await view.locator('[data-ablate="1.2"]').check();
  await expect(view.locator('.real-model-top thead th')).toHaveCount(4);
  expect(await view.locator('.real-model-top tbody').innerText()).not.toBe(oneThread);
  await expect(view.locator('.real-model-timing')).toContainText('2 Web Workers');
  await page.screenshot({ path: testInfo.outputPath('real-model-workers.png'), fullPage: true });
  expect(await seriousFindings(page)).toEqual([]);
  await view.locator('#real-model-threads').selectOption('1');
  await expect(view.locator('.real-model-timing')).toContainText('1 thread · path: weights');
});

test('the single-file page from file://: WASM from the page, no worker can start, and the view says why', async ({ page }) => {
  test.setTimeout(60_000);
  await page.goto(`${pathToFileURL(resolve('dist/playground-single.html')).href}?view=model&model-threads=2`);
  const view = page.locator('#real-model');
  await expect(view.locator('.real-model-top tbody tr')).toHaveCount(10);
  await expect(view.locator('.real-model-timing')).toHaveText(/ms on wasm-simd · 1 thread · path: weights$/);
  await expect(view.locator('.real-model-threads-note')).toHaveText(/^Why one thread: the workers could not start \(.+\); one thread\.$/);
});

test('WebAssembly blocked: the JS reference runs the model, and the view says why', async ({ page }) => {
  await page.route('**/*.wasm', (route) => route.abort('blockedbyclient'));
  await page.goto('/dist/?view=model');
  const view = page.locator('#real-model');
  await expect(view.locator('.real-model-top tbody tr')).toHaveCount(10);
  await expect(view.locator('.real-model-timing')).toHaveText(/ms on js · 1 thread · path: teaching$/);
  await expect(view.locator('.real-model-threads-note')).toHaveText(/^WebAssembly could not run the model \(.+\); the JS reference runs it, more slowly\.$/);
});
