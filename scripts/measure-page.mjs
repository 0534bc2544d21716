#!/usr/bin/env node
// Measures the playground page's budgets (issue #3) in headless Chromium, on the built dist/:
//   1. control change → repaint, median over repeated changes, at teaching sizes up to T=32, d=64:
//      from the input event a control fires to the animation frame that shows the new tensors;
//   2. first load → interactive (the first step drawn, controls live) from 127.0.0.1, plain static
//      host headers (no COOP/COEP);
//   3. everything shipped in dist/, gzip -9 (the single-file page reported on its own).
//
//   node scripts/measure-page.mjs [--json build/page-budgets.json]
// Run scripts/build.sh first. Not a test: it reports numbers, it does not judge them.
import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { startServer } from './serve.mjs';
import { CHROMIUM_ARGS } from '../playwright.config.js';

const REPEATS = 25;
const LOADS = 7;
// Steps and sizes for the repaint budget: every step that draws attention at the largest teaching size.
const REPAINT_CASES = [
  { step: 'loop', query: 'T=32&dModel=64' },
  { step: 'self-attention', query: 'T=32&dModel=64' },
  { step: 'weights', query: 'T=32&dModel=64&dOut=64' },
  { step: 'causal', query: 'T=32&dModel=64&dOut=64' },
  { step: 'dropout', query: 'T=32&dModel=64&dOut=64' },
  { step: 'multihead', query: 'T=32&dModel=64&dOut=64&heads=4' },
  { step: 'cross', query: 'T=32&dModel=64&dOut=64&heads=4' },
  { step: 'causal', query: '' }, // the default teaching size (T=6, d=3)
];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function shippedSizes() {
  const rows = filesUnder('dist').map((path) => {
    const bytes = readFileSync(path);
    return { file: relative('dist', path), raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const single = rows.filter((r) => r.file === 'playground-single.html');
  const site = rows.filter((r) => r.file !== 'playground-single.html');
  const sum = (list, key) => list.reduce((total, r) => total + r[key], 0);
  return { siteRaw: sum(site, 'raw'), siteGzip: sum(site, 'gzip'), single: single[0] ?? null, files: site.sort((a, b) => b.gzip - a.gzip) };
}

async function waitForFirstRender(page) {
  await page.waitForFunction(() => window.attentionPlayground?.lastRun()?.result);
}

// One control change through the page's own input path (a range input's 'input' event), timed to
// the animation frame in which the new tensors are drawn.
async function repaintTimes(page, repeats) {
  return page.evaluate(async (count) => {
    const slider = document.querySelector('.controls input[type="range"][data-control="temperature"]')
      ?? document.querySelector('.controls input[type="range"][data-control="T"]');
    const times = [];
    const work = [];
    for (let i = 0; i < count; i++) {
      const drawn = new Promise((resolve) => {
        const stop = window.attentionPlayground.onRender(() => {
          stop();
          resolve(performance.now());
        });
      });
      const before = Number(slider.value);
      slider.value = String(slider.dataset.control === 'temperature' ? (i % 2 ? 1 : 1.5) : (before === 32 ? 31 : 32));
      const started = performance.now();
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      times.push((await drawn) - started);
      // The page's own share: input event → new tensors in the DOM (compute + draw), before the frame.
      const draw = performance.getEntriesByName('ap:draw').at(-1);
      work.push(draw.startTime + draw.duration - started);
    }
    return { times, work };
  }, repeats);
}

async function main() {
  const jsonIndex = process.argv.indexOf('--json');
  const jsonPath = jsonIndex > 0 ? process.argv[jsonIndex + 1] : null;
  const server = await startServer({ root: '.', port: 0, isolated: false });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const results = { repaint: [], load: null, shipped: shippedSizes(), browser: browser.version(), date: new Date().toISOString() };
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    for (const { step, query } of REPAINT_CASES) {
      await page.goto(`${server.url}dist/index.html?step=${step}${query ? `&${query}` : ''}`);
      await waitForFirstRender(page);
      await repaintTimes(page, 3); // warm-up: JIT, first WASM calls
      const { times, work } = await repaintTimes(page, REPEATS);
      const state = await page.evaluate(() => window.attentionPlayground.getState());
      results.repaint.push({
        step, T: state.T, dModel: state.dModel, dOut: state.dOut, heads: state.heads,
        backend: await page.evaluate(() => window.attentionPlayground.lastRun().backend),
        medianMs: median(times), maxMs: Math.max(...times), workMedianMs: median(work),
      });
    }
    const loads = [];
    for (let i = 0; i < LOADS; i++) {
      const fresh = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await fresh.goto(`${server.url}dist/index.html?step=causal`);
      await waitForFirstRender(fresh);
      loads.push(await fresh.evaluate(() => {
        const paint = performance.getEntriesByName('ap:repaint')[0];
        return paint.startTime + paint.duration; // since navigation start: the first step on screen
      }));
      await fresh.close();
    }
    results.load = { medianMs: median(loads), runsMs: loads };
  } finally {
    await browser.close();
    await server.close();
  }

  results.loadAverage = (await import('node:os')).loadavg();
  console.log(`Chromium ${results.browser}; load average ${results.loadAverage.map((l) => l.toFixed(2)).join(' ')} on ${(await import('node:os')).cpus().length} cores`);
  console.log('control change → repaint (median of %d, ms):', REPEATS);
  for (const r of results.repaint) {
    console.log(`  ${r.step.padEnd(15)} T=${String(r.T).padEnd(3)} d_model=${String(r.dModel).padEnd(3)} d_out=${String(r.dOut).padEnd(3)} H=${r.heads}  ${r.backend.padEnd(13)} median ${r.medianMs.toFixed(1).padStart(6)}  max ${r.maxMs.toFixed(1).padStart(6)}  (compute+draw median ${r.workMedianMs.toFixed(1)})`);
  }
  console.log(`first load → first step drawn (median of ${LOADS}): ${results.load.medianMs.toFixed(0)} ms`);
  console.log(`shipped (dist/ without the single file): ${(results.shipped.siteRaw / 1024).toFixed(0)} KiB raw, ${(results.shipped.siteGzip / 1024).toFixed(0)} KiB gzip`);
  if (results.shipped.single) {
    console.log(`single file: ${(results.shipped.single.raw / 1024).toFixed(0)} KiB raw, ${(results.shipped.single.gzip / 1024).toFixed(0)} KiB gzip`);
  }
  for (const f of results.shipped.files.slice(0, 8)) console.log(`  ${f.file.padEnd(48)} ${(f.gzip / 1024).toFixed(1).padStart(7)} KiB gzip`);
  if (jsonPath) {
    mkdirSync(dirname(jsonPath), { recursive: true });
    writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
  }
}

await main();
