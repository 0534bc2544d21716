#!/usr/bin/env node
// Measures the training page's budgets (issue 13) in headless Chromium, on the built dist/:
//   1. repaint while training: a Training-tab run (the default induction model, in its Web Worker) goes on
//      while the reader moves a slider of the walk at T=32, d=64 (the causal step's temperature, and the
//      self-attention step's T, which resizes every figure); median of key press → painted frame, as
//      scripts/measure-page.mjs measures it (with its split: input → tensors in the DOM, and the browser's frame
//      work), beside the same without a run, and how many training steps the run made meanwhile;
//   2. step 12's default demo: wall time from Play to the first step whose training loss is below 0.1;
//   3. the Training tab's JavaScript beyond the walk: every JS and CSS file the browser fetches (page and worker)
//      when the walk's first step is open and the reader opens the Training tab, gzip -9, minus what the walk had
//      already fetched; plus the index chunk's growth against `--base <dir>` (a built dist/ of the page before
//      this work, when given). The .wasm files are the walk's own: the trainer uses the same builds.
//
//   node scripts/measure-training.mjs [--base /path/to/old/dist] [--json build/training-budgets.json] [--dist DIR]
// (--dist: the repaint figures on another build under the repository, e.g. the commit before, to compare)
// Run `npx vite build` first. Not a test: it reports numbers, it does not judge them.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { startServer } from './serve.mjs';
import { CHROMIUM_ARGS } from '../playwright.config.js';

const REPEATS = 25;
const LEARN_LOSS = 0.1;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const gzip = (path) => gzipSync(readFileSync(path), { level: 9 }).length;
function assets(dist) {
  return readdirSync(join(dist, 'assets')).map((name) => ({ name, path: join(dist, 'assets', name) }));
}
function sizes(baseDist) {
  const files = assets('dist');
  const only = files.filter((f) => /^(view|train-worker)-.*\.(js|css)$/.test(f.name)).map((f) => ({ file: f.name, gzip: gzip(f.path) }));
  const index = files.find((f) => /^index-.*\.js$/.test(f.name));
  const result = { trainingOnly: only, trainingOnlyGzip: only.reduce((s, f) => s + f.gzip, 0), indexGzip: gzip(index.path) };
  if (baseDist && existsSync(baseDist)) {
    const baseIndex = assets(baseDist).find((f) => /^index-.*\.js$/.test(f.name));
    result.baseIndexGzip = gzip(baseIndex.path);
    result.indexGrowthGzip = result.indexGzip - result.baseIndexGzip;
  }
  return result;
}

// The walk's cases: a step at T=32, d=64 and the slider moved (as measure-page.mjs: left first, from the maximum).
const WALK_CASES = [
  { name: 'causal, temperature', query: 'step=causal&T=32&dModel=64&dOut=64', slider: 'temperature' },
  { name: 'self-attention, T', query: 'step=self-attention&T=32&dModel=64', slider: 'T' },
];

async function installRepaintProbe(page, slider) {
  await page.evaluate((name) => {
    window.__repaints = [];
    let inputAt = null;
    document.addEventListener('input', (event) => { inputAt = event.timeStamp; }, true);
    (window.attentionPlayground.onFrame ?? window.attentionPlayground.onRender)(() => {
      const frameAt = performance.now();
      const draw = performance.getEntriesByName('ap:draw').at(-1);
      const channel = new MessageChannel();
      channel.port1.onmessage = () => window.__repaints.push({ inputAt, frameAt, paintedAt: performance.now(), drawnAt: draw.startTime + draw.duration });
      channel.port2.postMessage(null);
    });
    document.querySelector(`.controls input[type="range"][data-control="${name}"]`).focus();
  }, slider);
}

async function repaintTimes(page, repeats) {
  const start = await page.evaluate(() => window.__repaints.length);
  for (let i = 0; i < repeats; i++) {
    await page.waitForTimeout(20 + Math.random() * 40);
    await page.keyboard.press(i % 2 ? 'ArrowRight' : 'ArrowLeft');
    await page.waitForFunction((n) => window.__repaints.length >= n, start + i + 1);
  }
  const records = (await page.evaluate(() => window.__repaints)).slice(start);
  const times = records.map((r) => r.paintedAt - r.inputAt);
  return {
    medianMs: median(times), maxMs: Math.max(...times),
    workMedianMs: median(records.map((r) => r.drawnAt - r.inputAt)), frameMedianMs: median(records.map((r) => r.paintedAt - r.frameAt)),
  };
}

async function main() {
  const arg = (name) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : null);
  const jsonPath = arg('--json');
  const server = await startServer({ root: '.', port: 0, isolated: false });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const results = { sizes: sizes(arg('--base')), browser: browser.version(), date: new Date().toISOString() };
  try {
    const weight = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const fetched = new Set();
    weight.context().on('response', (response) => { if (response.url().includes('/dist/')) fetched.add(response.url().split('/dist/')[1].split('?')[0]); });
    await weight.goto(`${server.url}dist/index.html?step=causal`);
    await weight.waitForFunction(() => window.attentionPlayground?.lastRun()?.result);
    await weight.waitForTimeout(500);
    const walkFiles = new Set(fetched);
    await weight.evaluate(() => window.attentionPlayground.setState({ view: 'train' }));
    await weight.evaluate(async () => { const v = await window.attentionPlayground.training(); await v.ready(); });
    await weight.waitForTimeout(500);
    const added = [...fetched].filter((f) => !walkFiles.has(f) && /\.(js|css)$/.test(f)).map((file) => ({ file, gzip: gzip(join('dist', file)) }));
    results.sizes.trainingTabFetched = added;
    results.sizes.trainingTabFetchedGzip = added.reduce((sum, f) => sum + f.gzip, 0);
    await weight.close();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const dist = (arg('--dist') ?? 'dist').replace(/\/+$/, '');
    results.repaint = [];
    for (const { name, query, slider } of WALK_CASES) {
      // Without a run.
      await page.goto(`${server.url}${dist}/index.html?${query}`);
      await page.waitForFunction(() => window.attentionPlayground?.lastRun()?.result);
      await installRepaintProbe(page, slider);
      await repaintTimes(page, 3);
      const idle = await repaintTimes(page, REPEATS);
      // With a run: start it on the Training tab, go back to the walk, move the slider.
      await page.goto(`${server.url}${dist}/index.html?${query}&view=train&train-steps=100000`);
      await page.evaluate(async () => { const v = await window.attentionPlayground.training(); await v.ready(); v.play(); });
      await page.evaluate(() => window.attentionPlayground.setState({ view: 'walk' }));
      await page.waitForFunction(() => window.attentionPlayground.lastRun()?.result);
      await installRepaintProbe(page, slider);
      await page.evaluate(() => window.attentionPlayground.onTrainProgress(({ step }) => { window.__trainStep = step; }));
      await page.waitForFunction(() => (window.__trainStep ?? 0) > 0); // the run is under way
      await repaintTimes(page, 3);
      const trainStep = () => page.evaluate(() => window.__trainStep ?? null);
      const before = await trainStep();
      const startedAt = Date.now();
      const training = await repaintTimes(page, REPEATS);
      const seconds = (Date.now() - startedAt) / 1000;
      const after = await trainStep();
      const state = await page.evaluate(() => window.attentionPlayground.getState());
      results.repaint.push({ case: name, T: state.T, dModel: state.dModel, idle, training: { ...training, trainingStepsDuring: (after ?? 0) - (before ?? 0), seconds } });
    }
    // The first case under the names earlier versions of this script wrote.
    results.repaintIdle = results.repaint[0].idle;
    results.repaintTraining = results.repaint[0].training;
    // Step 12's demo.
    const demo = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await demo.goto(`${server.url}dist/index.html?step=learn`);
    await demo.evaluate(async () => { const v = await window.attentionPlayground.training(); await v.ready(); });
    results.learn = await demo.evaluate((threshold) => new Promise((resolve) => {
      const started = performance.now();
      const view = window.attentionPlayground.trainingView();
      const stop = window.attentionPlayground.onTrainProgress(() => {
        const { losses } = view.getRun();
        const index = losses.findIndex((l) => l !== null && l < threshold);
        if (index >= 0) {
          stop();
          view.pause();
          resolve({ threshold, step: index + 1, seconds: (performance.now() - started) / 1000 });
        }
      });
      view.play();
    }), LEARN_LOSS);
  } finally {
    await browser.close();
    await server.close();
  }
  results.loadAverage = (await import('node:os')).loadavg();
  console.log(JSON.stringify(results, null, 2));
  console.log(`Chromium ${results.browser}; load average ${results.loadAverage.map((l) => l.toFixed(2)).join(' ')} on ${(await import('node:os')).cpus().length} cores`);
  console.log(`control change → repaint, input event → its frame painted (median of ${REPEATS} key presses at random frame phase, ms), without a run and while a Training-tab run goes on in its worker:`);
  const line = (r) => `median ${r.medianMs.toFixed(1).padStart(5)}  max ${r.maxMs.toFixed(1).padStart(5)}  | in the DOM ${r.workMedianMs.toFixed(1)}  frame work ${r.frameMedianMs.toFixed(1)}`;
  for (const r of results.repaint) {
    console.log(`  ${r.case.padEnd(22)} T=${r.T} d_model=${r.dModel}  no run:   ${line(r.idle)}`);
    console.log(`  ${''.padEnd(22)} ${''.padEnd(`T=${r.T} d_model=${r.dModel}`.length)}  training: ${line(r.training)}  (${r.training.trainingStepsDuring} steps in ${r.training.seconds.toFixed(1)} s)`);
  }
  console.log(`step 12's demo: training loss below ${results.learn.threshold} at step ${results.learn.step}, ${results.learn.seconds.toFixed(2)} s after Play`);
  if (jsonPath) {
    mkdirSync(dirname(jsonPath), { recursive: true });
    writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
  }
}

await main();
