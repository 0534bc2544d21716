// The page's content (issue 11): the book's numbers at the defaults, the PyTorch panel that torch ran
// (tests/fixtures/torchSnippets.json) with its copy button, the C++ panel cut from the real source, and
// the course page under `npm start`'s server. Iterates over the steps the page lists, not a fixed 11.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { startServer } from '../../scripts/serve.mjs';
import { openPage, watchConsole } from './page-helpers.js';

const RECORDED = JSON.parse(readFileSync(new URL('../fixtures/torchSnippets.json', import.meta.url), 'utf8'));
const CPP_DIR = new URL('../../cpp/attention/', import.meta.url);
const SOURCES = Object.fromEntries(readdirSync(CPP_DIR).filter((f) => f.endsWith('.cpp'))
  .map((f) => [`cpp/attention/${f}`, readFileSync(new URL(f, CPP_DIR), 'utf8')]));

async function row(page, tensor, index) {
  const cells = await page.locator(`table[data-tensor="${tensor}"] tbody tr`).nth(index).locator('td').allTextContents();
  return cells.map((text) => Number(text.replace('−', '-')));
}

test('every step shows the PyTorch snippet torch ran and a C++ panel cut from the source', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page);
  const ids = await page.locator('.toc a[data-step]').evaluateAll((links) => links.map((a) => a.dataset.step));
  expect(ids).toEqual(RECORDED.steps.map((s) => s.id));
  for (const { id, text } of RECORDED.steps) {
    await openPage(page, `?step=${id}`);
    await expect(page.locator('.code figure').nth(1).locator('pre')).toHaveText(text, { useInnerText: false });
    const cpp = await page.locator('.code figure').nth(0).locator('pre').textContent();
    for (const block of cpp.split(/\n\n(?=\/\/ cpp\/attention\/)/)) {
      const [where, ...code] = block.split('\n');
      const [, path, first, last] = /^\/\/ (\S+), lines (\d+)–(\d+)$/.exec(where);
      const lines = SOURCES[path].split('\n').slice(Number(first) - 1, Number(last)).filter((l) => !/\/\/ (region: |endregion)/.test(l));
      expect(code.map((l) => l.trim()), `${id}: ${where}`).toEqual(lines.map((l) => l.trim()));
    }
  }
  expect(problems).toEqual([]);
});

test('with the trained model, the PyTorch panel writes out its weights: the snippet torch ran', async ({ page }) => {
  const problems = watchConsole(page);
  expect(RECORDED.trained.length).toBeGreaterThan(0);
  for (const { query, text } of RECORDED.trained) {
    await openPage(page, `?${query}`);
    await expect(page.locator('.code figure').nth(1).locator('pre'), query).toHaveText(text, { useInnerText: false });
  }
  expect(problems).toEqual([]);
});

test('the book’s numbers at the defaults (Raschka ch. 3)', async ({ page }) => {
  await openPage(page, '?step=self-attention');
  expect(await row(page, 'weights', 1)).toEqual([0.1385, 0.2379, 0.2333, 0.124, 0.1082, 0.1581]);
  await openPage(page, '?step=weights');
  expect(await row(page, 'W_query', 0)).toEqual([0.2961, 0.5166]);
  expect(await row(page, 'W_query', 2)).toEqual([0.074, 0.8665]);
  await openPage(page, '?step=weights&layout=linear');
  expect(await row(page, 'W_query.weight', 0)).toEqual([0.3161, 0.4568, 0.5118]);
  expect(await row(page, 'W_query.weight', 1)).toEqual([-0.1683, -0.3379, -0.0918]);
  expect(await row(page, 'output', 0)).toEqual([-0.0739, 0.0713]);
  await openPage(page, '?step=causal');
  expect(await row(page, 'weights before the mask', 0)).toEqual([0.1921, 0.1646, 0.1652, 0.155, 0.1721, 0.151]);
});

test('the copy button copies the runnable snippet', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await openPage(page, '?step=causal');
  const button = page.locator('[data-action="copy-torch"]');
  await expect(button).toHaveText('Copy');
  // The panel is written just after the render (app.js: the snippet waits for the controls to be still).
  await expect(page.locator('.code figure').nth(1).locator('pre')).not.toBeEmpty();
  await page.locator('[data-code-tab="torch"]').click(); // the code's tabs: C++ shows first
  await button.click();
  await expect(button).toHaveText('Copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(RECORDED.steps.find((s) => s.id === 'causal').text);
});

test('npm start serves the course page example beside the build', async ({ page }) => {
  const repository = fileURLToPath(new URL('../../', import.meta.url));
  const server = await startServer({ root: `${repository}dist`, port: 0, benchFrom: repository });
  try {
    const problems = watchConsole(page);
    await page.goto(`${server.url}examples/course-page.html`);
    await expect(page.frameLocator('#causal-frame').locator('.step-title')).toHaveText('Causal mask');
    await expect(page.locator('attention-playground').frameLocator('iframe').locator('.step-title')).toHaveText('Multi-head attention');
    expect(problems).toEqual([]);
  } finally {
    await server.close();
  }
});
