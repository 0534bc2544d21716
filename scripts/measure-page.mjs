#!/usr/bin/env node
// Measures the playground page's budgets (issue #3) in headless Chromium, on the built dist/:
//   1. control change → repaint, median over repeated changes, at teaching sizes up to T=32, d=64:
//      from a key press's input event on a slider to the end of the frame that shows the new tensors;
//   2. first load → interactive (the first step drawn, controls live) from 127.0.0.1, plain static
//      host headers (no COOP/COEP);
//   3. everything shipped in dist/, gzip -9 (the single-file page reported on its own).
//
//   node scripts/measure-page.mjs [--json build/page-budgets.json] [--only STEP] [--dist DIR]
// (--dist: another build of the page under the repository, e.g. one of the commit before, to compare side by side)
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
// The views' extras (issue 11) are on in every case: the flow picture, and the computation of the weight
// under the pointer next to the formula.
const REPAINT_CASES = [
  { step: 'loop', query: 'T=32&dModel=64' },
  { step: 'self-attention', query: 'T=32&dModel=64' },
  { step: 'weights', query: 'T=32&dModel=64&dOut=64' },
  { step: 'causal', query: 'T=32&dModel=64&dOut=64' },
  { step: 'dropout', query: 'T=32&dModel=64&dOut=64' },
  { step: 'multihead', query: 'T=32&dModel=64&dOut=64&heads=4' },
  { step: 'multihead', query: 'T=32&dModel=64&dOut=64&heads=8' },
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

// Control changes as a reader makes them: key presses on the focused slider (trusted input, so the
// browser handles them as it handles a person's), each at a random moment of the frame, since a
// change dispatched right after a frame started waits a whole frame for the next one. Each change is
// timed from its input event's timestamp to the end of the frame that shows the new tensors: a
// message posted from that frame's animation callback runs once the browser has done the frame's
// style, layout and paint on the main thread. Alongside, where the time went: the page's compute and
// drawing (input → new tensors in the DOM) and the browser's frame work (animation callback → painted).
async function installRepaintProbe(page) {
  // The views' extras on, as a reader has them: a weights cell inspected, so its computation
  // under the formula (values in the formula) is redrawn with every change; the flow picture is always on.
  const weights = page.locator('figure[data-tensor="weights"] canvas').first();
  if (await weights.count()) await weights.focus(); // inspects cell [0, 0]; it stays inspected when the slider takes focus
  await page.evaluate(() => {
    window.__repaints = [];
    let inputAt = null;
    document.addEventListener('input', (event) => { inputAt = event.timeStamp; }, true);
    (window.attentionPlayground.onFrame ?? window.attentionPlayground.onRender)((run) => {
      const frameAt = performance.now();
      const draw = performance.getEntriesByName('ap:draw').at(-1);
      const channel = new MessageChannel();
      channel.port1.onmessage = () => window.__repaints.push({
        inputAt, frameAt, paintedAt: performance.now(), drawnAt: draw.startTime + draw.duration, computeMs: run.ms,
      });
      channel.port2.postMessage(null);
    });
    const slider = document.querySelector('.controls input[type="range"][data-control="temperature"]')
      ?? document.querySelector('.controls input[type="range"][data-control="T"]');
    slider.focus();
  });
}

async function repaintTimes(page, repeats) {
  const start = await page.evaluate(() => window.__repaints.length);
  for (let i = 0; i < repeats; i++) {
    await page.waitForTimeout(20 + Math.random() * 40); // a random phase of the 16.7 ms frame
    await page.keyboard.press(i % 2 ? 'ArrowRight' : 'ArrowLeft'); // left first: T starts at its maximum
    await page.waitForFunction((n) => window.__repaints.length >= n, start + i + 1);
  }
  const records = (await page.evaluate(() => window.__repaints)).slice(start);
  return {
    times: records.map((r) => r.paintedAt - r.inputAt),
    work: records.map((r) => r.drawnAt - r.inputAt),
    compute: records.map((r) => r.computeMs),
    frame: records.map((r) => r.paintedAt - r.frameAt),
  };
}

async function main() {
  const jsonIndex = process.argv.indexOf('--json');
  const jsonPath = jsonIndex > 0 ? process.argv[jsonIndex + 1] : null;
  const server = await startServer({ root: '.', port: 0, isolated: false });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const results = { repaint: [], load: null, shipped: shippedSizes(), browser: browser.version(), date: new Date().toISOString() };
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const distIndex = process.argv.indexOf('--dist');
    const dist = distIndex > 0 ? process.argv[distIndex + 1].replace(/\/+$/, '') : 'dist';
    const onlyIndex = process.argv.indexOf('--only');
    const only = onlyIndex > 0 ? process.argv[onlyIndex + 1] : null; // e.g. --only multihead: those cases alone
    for (const { step, query } of REPAINT_CASES.filter((c) => !only || c.step === only)) {
      await page.goto(`${server.url}${dist}/index.html?step=${step}${query ? `&${query}` : ''}`);
      await waitForFirstRender(page);
      await installRepaintProbe(page);
      await repaintTimes(page, 3); // warm-up: JIT, first WASM calls
      const { times, work, compute, frame } = await repaintTimes(page, REPEATS);
      const state = await page.evaluate(() => window.attentionPlayground.getState());
      results.repaint.push({
        step, T: state.T, dModel: state.dModel, dOut: state.dOut, heads: state.heads,
        backend: await page.evaluate(() => window.attentionPlayground.lastRun().backend),
        medianMs: median(times), maxMs: Math.max(...times), workMedianMs: median(work),
        computeMedianMs: median(compute), frameMedianMs: median(frame),
      });
    }
    const loads = [];
    for (let i = 0; i < (only ? 1 : LOADS); i++) {
      const fresh = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await fresh.goto(`${server.url}${dist}/index.html?step=causal`);
      await waitForFirstRender(fresh);
      loads.push(await fresh.evaluate(() => {
        const paint = performance.getEntriesByName('ap:first-repaint')[0];
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
  console.log('control change → repaint: input event → its frame painted (median of %d key presses at random frame phase, ms);', REPEATS);
  console.log('  of which: input → tensors in the DOM (the core\'s compute in brackets), and the browser\'s frame work (style, layout, paint)');
  for (const r of results.repaint) {
    console.log(`  ${r.step.padEnd(15)} T=${String(r.T).padEnd(3)} d_model=${String(r.dModel).padEnd(3)} d_out=${String(r.dOut).padEnd(3)} H=${r.heads}  ${r.backend.padEnd(13)} median ${r.medianMs.toFixed(1).padStart(5)}  max ${r.maxMs.toFixed(1).padStart(5)}  | in the DOM ${r.workMedianMs.toFixed(1)} (compute ${r.computeMedianMs.toFixed(1)})  frame work ${r.frameMedianMs.toFixed(1)}`);
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
