#!/usr/bin/env node
// `npm run bench`: serves the repository (cross-origin isolated, so the threaded peers can run),
// opens bench/index.html in Debian's headless Chromium, runs the whole suite in that one page and
// writes bench/results/latest.{json,md,svg}.
//
//   node bench/run.mjs [--quick] [--only=word,word]
//     --quick: the two smallest sizes of each task, the tiny training model (a smoke run, written to results/quick.*)
//     --only:  only the contestants whose names contain one of the words (also written to quick.*);
//              the word 'training' selects the training section (bench/training.js), alone or with others
// The training section's PyTorch row: bench/train_torch.py, run here after the page when /usr/bin/python3
// can import torch (one thread); the report says so when it cannot. A full run then rewrites bench/README.md's
// training figures from latest.json (bench/readme-figures.mjs).
//   node bench/run.mjs --render      re-renders latest.md and latest.svg from latest.json (no browser)
import { writeFile, mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';

import { CHROMIUM_ARGS } from '../playwright.config.js';
import { startServer } from '../scripts/serve.mjs';
import { toMarkdown, toSvg } from './report.js';
import { runTorchTraining } from './torch-training.mjs';
import { rendererMemory } from './renderer-memory.mjs';
import { writeReadmeFigures } from './readme-figures.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench', 'results');
const LIMIT_MS = 20 * 60 * 1000; // the kernels (~5 min on a quiet machine) and the training section (~1.5 min)
const quick = process.argv.includes('--quick');
const only = process.argv.find((argument) => argument.startsWith('--only='))?.slice('--only='.length);

async function version(pkg) {
  try {
    return JSON.parse(await readFile(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return 'not installed';
  }
}

function machineLine(report) {
  return `${report.machine.cpu}, load average ${report.machine.loadAverage.join(' / ')} (shared machine)`;
}

if (process.argv.includes('--render')) {
  const report = JSON.parse(await readFile(join(RESULTS, 'latest.json'), 'utf8'));
  await writeFile(join(RESULTS, 'latest.md'), toMarkdown(report, { machine: machineLine(report) }));
  await writeFile(join(RESULTS, 'latest.svg'), toSvg(report));
  console.log('re-rendered bench/results/latest.md and .svg from latest.json');
  process.exit(0);
}

const server = await startServer({ root: ROOT, port: 0, isolated: true });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
try {
  const page = await browser.newPage();
  page.on('console', (message) => {
    const text = message.text();
    if (text.startsWith('[bench] ')) console.log(text.slice(8));
    else if (message.type() === 'error' || message.type() === 'warning') console.log(`  (page ${message.type()}: ${text})`);
  });
  page.on('pageerror', (error) => console.log(`  (page error: ${error.message})`));
  // Peak RSS and CPU time of the page's renderer process around each training run (Linux /proc; absent elsewhere).
  const memory = rendererMemory(process.pid);
  if (memory) await page.exposeFunction('benchMemory', (action) => (action === 'reset' ? memory.reset() : action === 'cpu' ? memory.cpuMs() : memory.read()));
  const filter = only ? `&only=${encodeURIComponent(only)}` : '';
  await page.goto(`${server.url}bench/index.html?autorun=${quick ? 'quick' : 'full'}${filter}`);
  await page.waitForFunction(() => window.benchDone === true, null, { timeout: LIMIT_MS, polling: 1000 });
  const failure = await page.evaluate(() => window.benchError ?? null);
  if (failure) throw new Error(`the suite failed in the page:\n${failure}`);
  const report = await page.evaluate(() => { const { markdown, ...rest } = window.benchReport; return rest; });
  await browser.close();
  if (report.training) await runTorchTraining(report.training, { root: ROOT, log: (text) => console.log(text) });

  const cpus = os.cpus();
  report.machine = {
    cpu: cpus[0]?.model ?? 'unknown', logicalCores: cpus.length, memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()}`, loadAverage: os.loadavg().map((x) => +x.toFixed(2)),
    note: 'shared machine: other processes were running; figures are medians, see min/max',
  };
  report.browser = { name: 'Chromium', version: browser.version(), headless: true, flags: CHROMIUM_ARGS };
  report.versions = {
    node: process.version,
    'onnxruntime-web': await version('onnxruntime-web'),
    '@tensorflow/tfjs': await version('@tensorflow/tfjs'),
    '@tensorflow/tfjs-core': await version('@tensorflow/tfjs-core'),
    '@tensorflow/tfjs-backend-wasm': await version('@tensorflow/tfjs-backend-wasm'),
    'playwright-core': await version('playwright-core'),
    emscripten: '3.1.6 (Debian)',
  };
  const machine = machineLine(report);
  await mkdir(RESULTS, { recursive: true });
  const prefix = quick || only ? 'quick' : 'latest';
  await writeFile(join(RESULTS, `${prefix}.json`), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(RESULTS, `${prefix}.md`), toMarkdown(report, { machine }));
  await writeFile(join(RESULTS, `${prefix}.svg`), toSvg(report));
  console.log(`\nwrote bench/results/${prefix}.json, .md and .svg (${report.environment.seconds.toFixed(0)} s in the page)`);
  if (prefix === 'latest') console.log(await writeReadmeFigures(ROOT));
} finally {
  await browser.close();
  await server.close();
}
