#!/usr/bin/env node
// Where every step of the walk ends, at its defaults, on a laptop (1280×800) and a phone (390×844), in headless
// Chromium on the built dist/: the bottom of the main figure's last heatmap (what the first screen must hold at
// 1280) and the page's full height. Not a test: it reports the figures for the note of a layout change.
//   node scripts/measure-step-heights.mjs [--dist DIR] [--json FILE] [--shots DIR]
// (--shots: a first-screen screenshot of every step at both sizes into DIR, e.g. build/shots)
// (--dist: another build of the page under the repository, e.g. one of the commit before, to compare side by side)
import { mkdirSync, writeFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { startServer } from './serve.mjs';
import { CHROMIUM_ARGS } from '../playwright.config.js';

const SIZES = [{ width: 1280, height: 800 }, { width: 390, height: 844 }];

function argument(name, fallback) {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : fallback;
}

const dist = argument('--dist', 'dist').replace(/\/+$/, '');
const shots = argument('--shots', null);
if (shots) mkdirSync(shots, { recursive: true });
const server = await startServer({ root: '.', port: 0, isolated: false });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
const rows = [];
try {
  for (const size of SIZES) {
    const page = await browser.newPage({ viewport: size });
    await page.goto(`${server.url}${dist}/index.html`);
    await page.waitForFunction(() => window.attentionPlayground?.lastRun()?.result);
    const ids = await page.locator('.toc a[data-step]').evaluateAll((links) => links.map((link) => link.dataset.step));
    for (const [index, id] of ids.entries()) {
      await page.evaluate((step) => new Promise((resolve) => {
        const api = window.attentionPlayground;
        if (api.getState().step === step) return resolve();
        const stop = api.onRender(() => { stop(); resolve(); });
        api.setState({ step });
      }), id);
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      await page.evaluate(() => window.scrollTo(0, 0));
      const figures = await page.evaluate(() => {
        const canvases = [...document.querySelectorAll('[data-main-figure] canvas')];
        const lastHeatmap = canvases.length ? Math.max(...canvases.map((c) => c.getBoundingClientRect().bottom)) : null;
        const firstHeatmap = canvases.length ? Math.min(...canvases.map((c) => c.getBoundingClientRect().top)) : null;
        return { firstHeatmap, lastHeatmap, page: document.documentElement.scrollHeight };
      });
      if (shots) await page.screenshot({ path: `${shots}/${size.width}-${String(index + 1).padStart(2, '0')}-${id}.png` });
      rows.push({ width: size.width, height: size.height, step: index + 1, id, ...figures });
    }
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
const round = (value) => (value === null ? '—' : String(Math.round(value)));
console.log(`${dist}: step, then per viewport: the main figure's first heatmap top, last heatmap bottom, page height (px)`);
for (const size of SIZES) {
  console.log(`${size.width}×${size.height}`);
  for (const row of rows.filter((r) => r.width === size.width)) {
    console.log(`  ${String(row.step).padStart(2)} ${row.id.padEnd(15)} first ${round(row.firstHeatmap).padStart(5)}  last ${round(row.lastHeatmap).padStart(5)}  page ${round(row.page).padStart(5)}`);
  }
}
const json = argument('--json', null);
if (json) writeFileSync(json, `${JSON.stringify(rows, null, 2)}\n`);
