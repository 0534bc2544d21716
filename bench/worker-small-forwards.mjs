// Short forwards (T = 1..16 tokens) of a GPT-2 model on its workers against the calling thread's fast path:
// what createGpt2's worker model costs when a short text runs on the workers instead of on a second, one-thread
// copy of the model (web/src/gpt2/worker-model.js). Two models: the tiny fixture (tests/fixtures/gpt2, untrained)
// GPT-2 small's shape (124M, random weights), and a mid-sized one between them (--models=mid). Node's worker_threads behind the Web Worker interface
// (node-web-worker.mjs), the SIMD build (relaxed tiles where Node has them). Wall and CPU time (this process, all
// its threads) per forward, medians; every worker forward's logits checked against the one-thread ones first.
// Usage: node --experimental-wasm-relaxed-simd bench/worker-small-forwards.mjs [--sizes=1,2,4,8,16] [--workers=2]
//   [--models=tiny,mid,small] [--attention] (every layer's weights kept, as the Real model view asks)
// Writes bench/results/worker-small-forwards.json and .md (with --attention: worker-small-forwards-weights.*).
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { mulberry32 } from '../web/src/core/random.js';
import { installRelaxedTile } from '../web/src/core/backends/relaxed-tile.js';
import { gpt2Config, gpt2ParameterShapes } from '../web/src/gpt2/checkpoint.js';
import { loadGpt2FromDirectory } from '../web/src/gpt2/load.js';
import { createWasmGpt2 } from '../web/src/gpt2/wasm-model.js';
import { createWorkerGpt2, startGpt2Workers } from '../web/src/gpt2/worker-model.js';
import { gpt2ForwardWork } from '../web/src/gpt2/worker-plan.js';
import { nodeWebWorker } from './node-web-worker.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, '..');
const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const SIZES = arg('sizes', '1,2,4,8,16').split(',').map(Number);
const WORKERS = Number(arg('workers', '2'));
const MODELS = arg('models', 'tiny,mid,small').split(',');
const ATTENTION = process.argv.includes('--attention');
const RUNS = 9;
const OUT = ATTENTION ? 'worker-small-forwards-weights' : 'worker-small-forwards';
const SMALL = gpt2Config({ vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: 12, n_head: 12 });
// between the two: where the work between exchanges crosses what an exchange costs
const MID = gpt2Config({ vocab_size: 8192, n_positions: 256, n_embd: 256, n_layer: 4, n_head: 4 });
const wasmBinary = readFileSync(path.join(ROOT, 'web/src/core/wasm/attention-simd.wasm'));
const tileBinary = readFileSync(path.join(ROOT, 'web/src/core/wasm/relaxed-tile.wasm'));

/** GPT-2's initialisation (bench/gpt2.mjs's): linear and embedding weights N(0, 0.02), LayerNorm weights 1. */
function randomParameters(config, seed) {
  const uniform = mulberry32(seed);
  const parameters = {};
  for (const [name, shape] of Object.entries(gpt2ParameterShapes(config))) {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    if (name.includes('ln_') && name.endsWith('.weight')) data.fill(1);
    else if (shape.length === 2) for (let i = 0; i < data.length; i++) data[i] = (uniform() - 0.5) * 0.07;
    parameters[name] = { data, shape };
  }
  return parameters;
}

/** {wallMs, cpuMs}: the medians over RUNS runs after one warm-up (CPU: this process, all its threads). */
async function timed(run) {
  await run();
  const samples = [];
  for (let i = 0; i < RUNS; i++) {
    const [wall, cpu] = [performance.now(), process.cpuUsage()];
    await run();
    const { user, system } = process.cpuUsage(cpu);
    samples.push({ wallMs: performance.now() - wall, cpuMs: (user + system) / 1000 });
  }
  const median = (key) => samples.map((sample) => sample[key]).sort((a, b) => a - b)[RUNS >> 1];
  return { wallMs: median('wallMs'), cpuMs: median('cpuMs') };
}

async function measure(name, config, parameters) {
  const glue = await import('../web/src/core/wasm/attention-simd.mjs');
  const core = await glue.default({ wasmBinary });
  await installRelaxedTile(core, tileBinary);
  // the calling thread's copy: what a worker model builds on first use for a forward below the crossover
  const building = performance.now();
  const one = createWasmGpt2({ heapStats: () => core.heapStats(), createGpt2Model: (...c) => new core.Gpt2Inference(...c) }, config, parameters);
  const copyMs = performance.now() - building;
  const copyHeapBytes = core.heapStats().heapBytes;
  console.log(`${name}: the one-thread copy built in ${copyMs.toFixed(0)} ms, its WASM heap ${(copyHeapBytes / 1e6).toFixed(0)} MB`);
  const spawn = () => nodeWebWorker(new URL('./gpt2-worker.js', new URL('../web/src/gpt2/', import.meta.url)));
  const { pool } = await startGpt2Workers(WORKERS, { build: 'simd', wasmBinary, tileBinary, spawn });
  const workers = await createWorkerGpt2(pool, config, parameters, { crossover: { minWork: 0 } });
  const rows = [];
  const flags = new Uint8Array(0);
  for (const T of SIZES) {
    const uniform = mulberry32(100 + T);
    const tokens = Array.from({ length: T }, () => Math.floor(uniform() * config.vocabSize));
    const want = one.forward(tokens, flags, ATTENTION).logits;
    const got = (await workers.forward(tokens, flags, ATTENTION)).logits;
    const worst = want.reduce((m, v, i) => Math.max(m, Math.abs(v - got[i])), 0);
    if (!(worst <= 1e-3)) throw new Error(`${name} T=${T}: the workers' logits differ from one thread's by ${worst}`);
    const oneThread = await timed(() => one.forward(tokens, flags, ATTENTION));
    const onWorkers = await timed(() => workers.forward(tokens, flags, ATTENTION));
    const perExchange = gpt2ForwardWork(config, T) / (2 * config.layers + 1);
    rows.push({ model: name, T, perExchange, oneThread, workers: onWorkers, copyMs, copyHeapBytes });
    console.log(`${name} T=${T}: one thread ${oneThread.wallMs.toFixed(2)} ms (cpu ${oneThread.cpuMs.toFixed(2)}), ` +
      `${WORKERS} workers ${onWorkers.wallMs.toFixed(2)} ms (cpu ${onWorkers.cpuMs.toFixed(2)})`);
  }
  one.dispose();
  workers.dispose();
  return rows;
}

const rows = [];
if (MODELS.includes('tiny')) {
  const { config, parameters } = await loadGpt2FromDirectory(path.join(ROOT, 'tests/fixtures/gpt2'));
  rows.push(...await measure('tiny (fixture)', config, parameters));
}
if (MODELS.includes('mid')) rows.push(...await measure('mid (256 wide, 4 layers, 8192 tokens)', MID, randomParameters(MID, 24)));
if (MODELS.includes('small')) rows.push(...await measure('GPT-2 small shape', SMALL, randomParameters(SMALL, 23)));

const machine = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, load: os.loadavg().map((n) => n.toFixed(2)).join(' ') };
const result = { machine, workers: WORKERS, attention: ATTENTION, runs: RUNS, rows };
const md = [`# Short GPT-2 forwards: ${WORKERS} workers or the calling thread (${ATTENTION ? 'with' : 'without'} the weights), ${machine.date}`, '',
  `Node ${machine.node}, ${machine.cpus} CPUs, load ${machine.load}; medians of ${RUNS} runs; CPU: this process, all its threads.`, '',
  '| model | T | multiply-adds between exchanges | one thread ms | one thread CPU ms | workers ms | workers CPU ms | workers / one thread (CPU) | one-thread copy: built in ms, heap MB |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.model} | ${r.T} | ${(r.perExchange / 1e6).toFixed(2)}M | ${r.oneThread.wallMs.toFixed(2)} | ${r.oneThread.cpuMs.toFixed(2)} | ${r.workers.wallMs.toFixed(2)} | ` +
    `${r.workers.cpuMs.toFixed(2)} | ${(r.workers.cpuMs / r.oneThread.cpuMs).toFixed(2)} | ${r.copyMs.toFixed(0)}, ${(r.copyHeapBytes / 1e6).toFixed(0)} |`)];
writeFileSync(path.join(HERE, `results/${OUT}.json`), `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(path.join(HERE, `results/${OUT}.md`), `${md.join('\n')}\n`);
console.log(md.join('\n'));
process.exit(0);
