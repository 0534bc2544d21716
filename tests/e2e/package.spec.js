// The npm package as a user gets it: `npm pack` (the build's .wasm files and page/ included), the
// tarball installed into a throwaway project under os.tmpdir() with `npm install --offline` (no network:
// the dependencies come from the local npm cache), then imported BY NAME from Node, and bundled with
// Vite into a page that Chromium opens. Packed, installed and built once (beforeAll: ~5 s on 2 cores).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { startServer } from '../../scripts/serve.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const NAME = PACKAGE.name;
const TOLERANCE = 1e-5;

// Under `npm test` npm exports this project's own script context (npm_package_*, npm_config_local_prefix,
// INIT_CWD…): the throwaway project's npm and Node must not inherit it.
const ENV = Object.fromEntries(Object.entries(process.env)
  .filter(([key]) => !/^(npm_package_|npm_lifecycle_|npm_config_(local_)?prefix$|INIT_CWD$)/.test(key)));
ENV.npm_config_update_notifier = 'false';

/** Runs a command to completion (bounded); its stdout, or an Error with its output. */
function run(command, args, cwd, timeout = 60_000) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout, env: ENV });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${result.status ?? result.signal}:\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/**
 * A lockfile for the throwaway project: the tarball, and the package's runtime dependencies exactly as
 * this repository's lockfile pins them (with their registry URLs), so `npm install --offline` reads
 * every tarball from the cache by URL and integrity and never needs a registry document.
 */
function consumerLockfile(tarballName, tarball, dependencies) {
  const registry = (process.env.npm_config_registry ?? 'https://registry.npmjs.org/').replace(/\/?$/, '/');
  const ours = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages;
  const packages = {
    '': { name: 'consumer', dependencies },
    [`node_modules/${NAME}`]: {
      version: PACKAGE.version,
      resolved: `file:${tarballName}`,
      integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
      dependencies: PACKAGE.dependencies,
    },
  };
  for (const [path, entry] of Object.entries(ours)) {
    if (!path.startsWith('node_modules/') || entry.dev || entry.devOptional || entry.link) continue;
    const name = path.slice('node_modules/'.length);
    packages[path] = { ...entry, resolved: entry.resolved ?? `${registry}${name}/-/${name.split('/').pop()}-${entry.version}.tgz` };
  }
  return { name: 'consumer', lockfileVersion: 3, requires: true, packages };
}

// The book's six tokens, "Your journey starts with one step" (3-d embeddings), and the numbers of its
// step 5 for the query "journey": weights and context vector.
const JOURNEY = [0.43, 0.15, 0.89, 0.55, 0.87, 0.66, 0.57, 0.85, 0.64, 0.22, 0.58, 0.33, 0.77, 0.25, 0.10, 0.05, 0.80, 0.55];
const JOURNEY_WEIGHTS = [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581];
const JOURNEY_CONTEXT = [0.4419, 0.6515, 0.5683];

// What both consumers run: the step, and a multi-head call large enough for the workers (the pool takes
// fused calls above its crossover: here 384 tokens, d=256, 8 heads), against one thread.
const SHARED = `
import { loadAttention } from '${NAME}';

const JOURNEY = ${JSON.stringify(JOURNEY)};
const filled = (length, seed, scale = 0.5) => Float32Array.from({ length }, (_, i) => Math.sin(i * 0.731 + seed) * scale);
const tensor = (shape, seed, scale) => ({ data: filled(shape.reduce((a, b) => a * b), seed, scale), shape });

export async function exercise(threads) {
  const attention = await loadAttention({ backend: 'wasm-simd', threads });
  const single = await loadAttention({ backend: 'wasm-simd', threads: 1 });
  const baseline = await loadAttention({ backend: 'wasm-baseline', threads: 1 });
  const { threads: inUse, threadsReason } = attention;
  const step = attention.attentionWithoutWeights({ data: new Float32Array(JOURNEY), shape: [6, 3] });
  const stepBaseline = baseline.attentionWithoutWeights({ data: new Float32Array(JOURNEY), shape: [6, 3] });
  const x = tensor([384, 256], 1);
  const weights = {
    query: tensor([256, 256], 2, 0.1), key: tensor([256, 256], 3, 0.1), value: tensor([256, 256], 4, 0.1),
    outWeight: tensor([256, 256], 5, 0.1), outBias: tensor([256], 6),
  };
  const options = { heads: 8, causal: true, intermediates: false };
  const pending = attention.multiheadAttentionSplit(x, weights, options);
  const lastCall = attention.lastCall;
  const ours = (await pending).output;
  const theirs = (await single.multiheadAttentionSplit(x, weights, options)).output;
  let maxDifference = 0;
  for (let i = 0; i < ours.data.length; i++) maxDifference = Math.max(maxDifference, Math.abs(ours.data[i] - theirs.data[i]));
  attention.dispose();
  return {
    backend: attention.backend, threads: inUse, threadsReason,
    journeyWeights: Array.from(step.weights.data.slice(6, 12)), journeyContext: Array.from(step.output.data.slice(3, 6)),
    outputShape: step.output.shape, baselineBackend: baseline.backend,
    baselineContext: Array.from(stepBaseline.output.data.slice(3, 6)),
    multihead: { isPromise: pending instanceof Promise, lastCall, shape: ours.shape, maxDifference, finite: ours.data.every(Number.isFinite) },
  };
}
`;

const NODE_CHECK = `
import { existsSync } from 'node:fs';
import { exercise } from './shared.js';

const entry = import.meta.resolve('${NAME}');
const beside = (path) => existsSync(new URL(path, new URL('./core/', entry)));
let deepImport = 'allowed';
try { await import('${NAME}/web/src/core/api.js'); } catch (error) { deepImport = error.code; }
const result = await exercise(2);
console.log(JSON.stringify({
  ...result, entry, element: import.meta.resolve('${NAME}/element'), deepImport,
  files: {
    simd: beside('./wasm/attention-simd.wasm'), baseline: beside('./wasm/attention-baseline.wasm'),
    relaxedTile: beside('./wasm/relaxed-tile.wasm'), worker: beside('./backends/attention-worker.js'),
    types: beside('./index.d.ts'),
  },
}));
`;

const PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>A page built on ${NAME}</title></head>
<body><pre id="out">loading</pre>
<attention-playground step="multihead" hide="code" src="../node_modules/${NAME}/page/index.html"></attention-playground>
<script type="module" src="./main.js"></script></body></html>
`;

const PAGE_MAIN = `
import '${NAME}/element';
import { exercise } from './shared.js';

window.packageCheck = exercise(2).then((result) => {
  document.getElementById('out').textContent = JSON.stringify(result, null, 1);
  return result;
}, (error) => ({ error: String(error?.stack ?? error) }));
`;

let work = null;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(join(tmpdir(), 'attention-playground-pack-'));
  work = { dir };
  const project = join(dir, 'consumer');
  mkdirSync(join(project, 'page'), { recursive: true });
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', project], ROOT));
  const tarball = readFileSync(join(project, packed.filename));
  const dependencies = { [NAME]: `file:${packed.filename}` };
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies }, null, 2));
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify(consumerLockfile(packed.filename, tarball, dependencies), null, 2));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], project);
  writeFileSync(join(project, 'shared.js'), SHARED);
  writeFileSync(join(project, 'page', 'shared.js'), SHARED);
  writeFileSync(join(project, 'node-check.mjs'), NODE_CHECK);
  writeFileSync(join(project, 'page', 'index.html'), PAGE_HTML);
  writeFileSync(join(project, 'page', 'main.js'), PAGE_MAIN);
  // Vite from this repository, the package from the project's node_modules. assetsInlineLimit 0: every
  // asset is its own file, so the test sees each one requested (by default Vite inlines the 3.7 KB
  // relaxed-SIMD tile as a data: URL, which fetch() reads as well).
  const { build } = await import('vite');
  await build({
    configFile: false, root: join(project, 'page'), base: './', logLevel: 'error',
    build: { outDir: join(project, 'out'), emptyOutDir: true, target: 'es2022', assetsInlineLimit: 0 },
  });
  Object.assign(work, { project, packed, server: await startServer({ root: project, port: 0, isolated: false }) });
});

test.afterAll(async () => {
  await work?.server?.close();
  if (work) rmSync(work.dir, { recursive: true, force: true });
});

test('npm pack: the built .wasm files and the English model (once each), the worker, the page, LICENSE and types are in a tarball under 2 MB', () => {
  const { packed } = work;
  const paths = packed.files.map((file) => file.path);
  for (const path of [
    'web/src/core/index.js', 'web/src/core/index.d.ts', 'web/src/core/wasm/attention-simd.wasm', 'web/src/core/wasm/attention-baseline.wasm',
    'web/src/core/wasm/relaxed-tile.wasm', 'web/src/core/backends/attention-worker.js', 'page/index.html',
    'page/attention-playground.js', 'page/attention-playground.d.ts', 'LICENSE', 'README.md', 'docs/design.md', 'package.json',
  ]) expect(paths, path).toContain(path);
  expect(paths.filter((path) => /^(tests|cpp|bench|scripts|build|dist)\//.test(path) || path.endsWith('playground-single.html'))).toEqual([]);
  // page/ takes the core's .wasm files and Emscripten glue (vite.config.js, --mode package): one copy of each.
  expect(paths.filter((path) => /\.wasm$/.test(path)).sort()).toEqual([
    'web/src/core/wasm/attention-baseline.wasm', 'web/src/core/wasm/attention-simd.wasm', 'web/src/core/wasm/relaxed-tile.wasm',
  ]);
  expect(paths.filter((path) => /attention-(simd|baseline)/.test(path) && !path.startsWith('web/src/core/wasm/'))).toEqual([]);
  // the shipped English model (docs/model.md): once, in the model folder the package's page reads it from
  expect(paths.filter((path) => path.endsWith('.safetensors'))).toEqual(['web/src/model/english.safetensors']);
  // under 1 MB before the English model (0.84 MB of float16 weights) joined it
  expect(packed.size).toBeLessThan(2_000_000);
  expect(existsSync(join(work.project, 'node_modules', NAME, 'LICENSE'))).toBe(true);
});

test('Node imports the package by name: the step, a multi-head call, and one thread (Node has no Web Worker)', () => {
  const result = JSON.parse(run(process.execPath, ['node-check.mjs'], work.project));
  expect(result.entry).toContain(`/node_modules/${NAME}/web/src/index.js`);
  expect(result.element).toContain(`/node_modules/${NAME}/page/attention-playground.js`);
  expect(result.deepImport).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  expect(result.files).toEqual({ simd: true, baseline: true, relaxedTile: true, worker: true, types: true });
  expect(result.backend).toBe('wasm-simd');
  expect(result.baselineBackend).toBe('wasm-baseline');
  expect(result.outputShape).toEqual([6, 3]);
  result.journeyWeights.forEach((w, i) => expect(w).toBeCloseTo(JOURNEY_WEIGHTS[i], 4));
  result.journeyContext.forEach((c, i) => expect(c).toBeCloseTo(JOURNEY_CONTEXT[i], 4));
  result.baselineContext.forEach((c, i) => expect(c).toBeCloseTo(JOURNEY_CONTEXT[i], 4));
  // threads: 2 asked for; Node has no Web Worker, so the call runs on this thread, and says why.
  expect(result.threads).toBe(1);
  expect(result.threadsReason).toBe('this environment has no Web Worker');
  expect(result.multihead).toMatchObject({ isPromise: false, shape: [384, 256], finite: true });
  expect(result.multihead.maxDifference).toBe(0);
});

test('a Vite bundle of the package runs the step and a multi-head call on 2 workers; the element shows the packaged page', async ({ page }) => {
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
  const served = [];
  page.context().on('response', (response) => served.push(`${response.status()} ${new URL(response.url()).pathname}`));
  await page.goto(`${work.server.url}out/index.html`);
  const result = await page.evaluate(() => window.packageCheck);
  expect(result.error).toBeUndefined();
  expect(result.backend).toBe('wasm-simd');
  expect(result.baselineBackend).toBe('wasm-baseline');
  result.journeyWeights.forEach((w, i) => expect(w).toBeCloseTo(JOURNEY_WEIGHTS[i], 4));
  result.journeyContext.forEach((c, i) => expect(c).toBeCloseTo(JOURNEY_CONTEXT[i], 4));
  result.baselineContext.forEach((c, i) => expect(c).toBeCloseTo(JOURNEY_CONTEXT[i], 4));
  expect(result.threadsReason).toBeNull();
  expect(result.threads).toBe(2);
  expect(result.multihead).toMatchObject({ isPromise: true, shape: [384, 256], finite: true });
  expect(result.multihead.lastCall.threads).toBe(2);
  expect(result.multihead.maxDifference).toBeLessThanOrEqual(TOLERANCE);
  // Every file the core locates through import.meta.url came from the bundle's assets, and was found:
  // both WASM builds, the relaxed-SIMD tile and the worker script. The main thread and each of the two
  // workers load their own SIMD core and tile.
  const count = (asset) => served.filter((line) => asset.test(line)).length;
  const log = `requests:\n${served.join('\n')}`;
  expect(count(/^200 \/out\/assets\/attention-worker-[\w-]+\.js$/), log).toBe(2);
  expect(count(/^200 \/out\/assets\/attention-simd-[\w-]+\.wasm$/), log).toBeGreaterThanOrEqual(3);
  expect(count(/^200 \/out\/assets\/relaxed-tile-[\w-]+\.wasm$/), log).toBeGreaterThanOrEqual(3);
  expect(count(/^200 \/out\/assets\/attention-baseline-[\w-]+\.wasm$/), log).toBe(1);

  // The element, imported from the package by name and bundled, shows the packaged page (src).
  const element = page.locator('attention-playground');
  await expect(element.frameLocator('iframe').locator('.step-title')).toHaveText('Multi-head attention');
  await expect.poll(async () => (await element.evaluate((el) => el.getTensors())).tensors.weights?.shape).toEqual([2, 6, 6]);
  // The packaged page ran on the core's own .wasm file and glue (the package has no other copy).
  expect(count(new RegExp(`^200 /node_modules/${NAME}/web/src/core/wasm/attention-simd\\.wasm$`)), log).toBeGreaterThanOrEqual(1);
  expect(count(new RegExp(`^200 /node_modules/${NAME}/web/src/core/wasm/attention-simd\\.mjs$`)), log).toBeGreaterThanOrEqual(1);
  expect(served.filter((line) => !line.startsWith('200 '))).toEqual([]);
  expect(problems).toEqual([]);
});

test('unbundled, the element finds the page beside it in the package (as from a CDN or a static copy)', async ({ page }) => {
  writeFileSync(join(work.project, 'element.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>element</title>
<script type="module" src="./node_modules/${NAME}/page/attention-playground.js"></script></head>
<body><attention-playground step="causal"></attention-playground></body></html>`);
  await page.goto(`${work.server.url}element.html`);
  const element = page.locator('attention-playground');
  await expect(element.frameLocator('iframe').locator('.step-title')).toHaveText('Causal mask');
  expect((await element.evaluate((el) => el.getState())).step).toBe('causal');
});

test('the packaged page trains step 12 in its Web Worker, which loads the page\'s own chunks (no second copy of the trainer)', async ({ page }) => {
  test.setTimeout(180_000);
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
  const served = [];
  page.context().on('response', (response) => served.push(`${response.status()} ${new URL(response.url()).pathname}`));
  // The worker scripts are entries of the page's build, not bundles of their own: the trainer, the GPU
  // runtime and the GPU training engine are each in one of the page's chunks (their messages, one file each).
  const assets = join(work.project, 'node_modules', NAME, 'page', 'assets');
  const scripts = readdirSync(assets).filter((name) => name.endsWith('.js')).map((name) => readFileSync(join(assets, name), 'utf8'));
  for (const text of ['the attention kernels take at most', 'bytes; the device binds at most', 'per block; the WebGPU device binds at most']) {
    expect(scripts.filter((script) => script.includes(text)), text).toHaveLength(1);
  }

  await page.goto(`${work.server.url}node_modules/${NAME}/page/index.html?step=learn`);
  await expect(page.locator('.step-title')).toHaveText('Learn the weights');
  await page.evaluate(async () => (await window.attentionPlayground.training()).ready());
  await page.locator('.learn-slot [data-train="play"]').click();
  await page.waitForFunction(() => window.attentionPlayground.trainingView()?.getRun().step >= 5, null, { timeout: 150_000 });
  await page.evaluate(() => { const demo = window.attentionPlayground.trainingView(); if (demo.playing) demo.pause(); });
  const where = await page.evaluate(() => window.attentionPlayground.trainingView().where);
  const log = `requests:\n${served.join('\n')}`;
  expect(where, log).toBe('worker');
  expect(served.filter((line) => new RegExp(`^200 /node_modules/${NAME}/page/assets/train-worker-[\\w-]+\\.js$`).test(line)), log).toHaveLength(1);
  // The worker ran the core's own WASM build (the package holds one copy of each).
  expect(served.filter((line) => /\/web\/src\/core\/wasm\/attention-simd\.wasm$/.test(line)).length, log).toBeGreaterThanOrEqual(1);
  expect(served.filter((line) => !line.startsWith('200 '))).toEqual([]);
  expect(problems).toEqual([]);
});
