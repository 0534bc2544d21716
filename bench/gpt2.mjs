// GPT-2 small's forward (124M parameters, random weights in GPT-2's layout: nothing to download) at T = 128
// and 512 tokens, in Node (V8, the engine of Chromium's tab), one process, one contestant after another:
//   ours          the WASM fast path (web/src/gpt2/wasm-model.js: packed GEMM, fused causal attention), one
//                 thread, with the relaxed-SIMD tiles when Node runs with --experimental-wasm-relaxed-simd
//                 (run.mjs-style flags below), else the simd128 tiles
//   ours, 2 workers  the same kernels on two workers (web/src/gpt2/worker-model.js: each holds half the heads,
//                 of the MLP and of the vocabulary; Node's worker_threads behind the Web Worker interface,
//                 node-web-worker.mjs); its row gives its speed-up over the one-thread row
//   ours, webgpu  web/src/gpt2/webgpu-model.js on Dawn (npm webgpu, bench/dawn/dawn.js): every block on the GPU;
//                 for a machine with a GPU (`--only=ours,webgpu`); without an adapter its row says why
//   onnxruntime-web 1 thread, the same graph encoded at run time (gpt2-graph.js): standard ops, and with its
//                 com.microsoft Attention + FastGelu ops
//   tfjs-wasm     TensorFlow.js's wasm backend, threads off, the same graph in tf ops
//   PyTorch       CPU eager, one thread, OpenBLAS (bench/gpt2_torch.py, run first when /usr/bin/python3 has torch)
// % of peak divides by one core's relaxed-SIMD FMA peak measured in the same run, before and after the
// contestants (bench/fma-peak.js, the faster of the two), or bench/report.js's estimate where it cannot run.
// Every contestant's first output is checked before it is timed: |logits − reference| ≤ 1e-3 + 1e-3·|reference|,
// the reference being PyTorch's logits when it ran, else onnxruntime-web's standard-ops graph.
// Usage: node --experimental-wasm-relaxed-simd bench/gpt2.mjs [--sizes=128,512] [--only=ours,ours2,webgpu,onnx,tfjs,torch]
// Writes bench/results/gpt2.json and gpt2.md (--out=NAME: NAME.json and NAME.md, for a run of some contestants);
// --report writes the .md again from the .json.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { mulberry32 } from '../web/src/core/random.js';
import { installRelaxedTile } from '../web/src/core/backends/relaxed-tile.js';
import { gpt2Config, gpt2ParameterShapes } from '../web/src/gpt2/checkpoint.js';
import { createWasmGpt2 } from '../web/src/gpt2/wasm-model.js';
import { createWorkerGpt2, startGpt2Workers } from '../web/src/gpt2/worker-model.js';
import { nodeWebWorker } from './node-web-worker.mjs';
import { gpt2OnnxModel, gpt2TfjsForward } from './gpt2-graph.js';
import { measureFmaPeak } from './fma-peak.js';
import { FMA_PEAK_GFLOPS } from './report.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, '..');
const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const SIZES = arg('sizes', '128,512').split(',').map(Number);
// webgpu only by name: on a machine without a GPU it would time a CPU emulation
const ONLY = arg('only', 'ours,ours2,onnx,tfjs,torch').split(',');
const OUT = arg('out', 'gpt2');
const CONFIG = gpt2Config({ vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: 12, n_head: 12 });
const TOLERANCE = { atol: 1e-3, rtol: 1e-3 };

/** GPT-2's initialisation: linear and embedding weights N(0, 0.02), LayerNorm weights 1, biases 0 (seeded). */
function randomParameters(seed) {
  const uniform = mulberry32(seed);
  const parameters = {};
  for (const [name, shape] of Object.entries(gpt2ParameterShapes(CONFIG))) {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    if (name.includes('ln_') && name.endsWith('.weight')) data.fill(1);
    else if (shape.length === 2) {
      for (let i = 0; i < data.length; i += 2) {
        const r = Math.sqrt(-2 * Math.log(1 - uniform())) * 0.02;
        const angle = 2 * Math.PI * uniform();
        data[i] = r * Math.cos(angle);
        if (i + 1 < data.length) data[i + 1] = r * Math.sin(angle);
      }
    }
    parameters[name] = { data, shape };
  }
  return parameters;
}

const tokensFor = (T) => { const u = mulberry32(1000 + T); return Array.from({ length: T }, () => Math.floor(u() * CONFIG.vocabSize)); };

/** Multiply-adds of one forward at T tokens (causal attention counts its half), times 2. */
function flops(T) {
  const { dModel: C, layers: L, dMlp: M, vocabSize: V } = CONFIG;
  return 2 * (L * (T * C * 3 * C + C * T * (T + 1) + T * C * C + 2 * T * C * M) + T * C * V);
}

function check(actual, reference) {
  let worst = 0;
  for (let i = 0; i < reference.length; i++) {
    const diff = Math.abs(actual[i] - reference[i]);
    if (!(diff <= TOLERANCE.atol + TOLERANCE.rtol * Math.abs(reference[i]))) return `wrong: logits[${i}] ${actual[i]} vs ${reference[i]}`;
    worst = Math.max(worst, diff);
  }
  return { maxAbsError: worst };
}

async function time(run, T) {
  const runs = T >= 512 ? 3 : 5;
  await run(); // warm-up
  const times = [];
  const cpu = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    await run();
    const used = process.cpuUsage(cpuStarted);
    times.push(performance.now() - started);
    cpu.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  // CPU ms of this process per run (all its threads): on a shared machine, wall time above it is waiting for a core
  return { medianMs: times[Math.floor(times.length / 2)], minMs: times[0], maxMs: times.at(-1), cpuMs: cpu[Math.floor(cpu.length / 2)], runs };
}

async function oursContestant(parameters) {
  const glue = await import('../web/src/core/wasm/attention-simd.mjs');
  const wasmBinary = readFileSync(path.join(ROOT, 'web/src/core/wasm/attention-simd.wasm'));
  const core = await glue.default({ wasmBinary });
  const relaxed = await installRelaxedTile(core, readFileSync(path.join(ROOT, 'web/src/core/wasm/relaxed-tile.wasm')));
  const model = createWasmGpt2({ heapStats: () => core.heapStats(), createGpt2Model: (...c) => new core.Gpt2Inference(...c) }, CONFIG, parameters);
  return {
    name: `ours (wasm-simd${relaxed === '' ? ', relaxed-SIMD tiles' : ''}, 1 thread)`,
    note: relaxed === '' ? '' : `simd128 tiles: ${relaxed}`,
    run: (tokens) => model.forward(tokens, new Uint8Array(0), false).logits,
    dispose: () => model.dispose(),
  };
}

async function oursWorkersContestant(parameters, count = 2) {
  const wasmBinary = readFileSync(path.join(ROOT, 'web/src/core/wasm/attention-simd.wasm'));
  const tileBinary = readFileSync(path.join(ROOT, 'web/src/core/wasm/relaxed-tile.wasm'));
  const spawn = () => nodeWebWorker(new URL('../web/src/gpt2/gpt2-worker.js', import.meta.url));
  const { pool, relaxed } = await startGpt2Workers(count, { build: 'simd', wasmBinary, tileBinary, spawn });
  const engine = await createWorkerGpt2(pool, CONFIG, parameters, { oneThread: () => { throw new Error('the bench sizes are above the crossover'); } });
  return {
    name: `ours (wasm-simd${relaxed ? ', relaxed-SIMD tiles' : ''}, ${count} workers)`,
    run: async (tokens) => (await engine.forward(tokens, new Uint8Array(0), false)).logits,
    dispose: () => engine.dispose(),
  };
}

async function webgpuContestant(parameters) {
  const { installDawn, uninstallDawn } = await import('./dawn/dawn.js');
  await installDawn();
  const { acquireDevice } = await import('../web/src/gpu/device.js');
  const name = 'ours (WebGPU on Dawn)';
  let acquired;
  try {
    acquired = await acquireDevice();
  } catch (error) {
    uninstallDawn();
    return { name, unavailable: error.message };
  }
  const { createWebGpuGpt2 } = await import('../web/src/gpt2/webgpu-model.js');
  let engine;
  try {
    engine = await createWebGpuGpt2(CONFIG, parameters, { device: acquired.device });
  } catch (error) {
    acquired.device.destroy();
    uninstallDawn();
    return { name, unavailable: error.message };
  }
  return {
    name: `ours (WebGPU on Dawn, ${acquired.adapterInfo.label})`,
    run: async (tokens) => (await engine.forward(tokens, new Uint8Array(0), false)).logits,
    dispose: () => { engine.dispose(); acquired.device.destroy(); uninstallDawn(); },
  };
}

async function onnxContestants(parameters, T, ort) {
  ort.env.wasm.numThreads = 1;
  return [false, true].map((contrib) => ({
    name: `onnxruntime-web ${ort.env.versions.web} (wasm, 1 thread, ${contrib ? 'com.microsoft Attention + FastGelu' : 'standard ops'})`,
    async setup() {
      this.session = await ort.InferenceSession.create(gpt2OnnxModel(CONFIG, parameters, T, { contrib }), { executionProviders: ['wasm'] });
      this.input = new ort.Tensor('int64', BigInt64Array.from(tokensFor(T).map(BigInt)), [1, T]);
    },
    run: async function () { return (await this.session.run({ tokens: this.input })).logits.data; },
    dispose() { this.session.release(); },
  }));
}

async function tfjsContestant(parameters) {
  const tf = await import('@tensorflow/tfjs');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(`${path.join(ROOT, 'node_modules/@tensorflow/tfjs-backend-wasm/dist')}/`);
  wasm.setThreadsCount?.(1);
  await tf.setBackend('wasm');
  const model = gpt2TfjsForward(tf, CONFIG, parameters);
  return {
    name: `TensorFlow.js ${tf.version.tfjs} (wasm backend, threads off)`,
    run: async (tokens) => { const out = model.forward(tokens); const data = await out.data(); out.dispose(); return data; },
    dispose: () => model.dispose(),
  };
}

function torchRows(parameters, dir) {
  const order = Object.keys(gpt2ParameterShapes(CONFIG));
  const flat = new Float32Array(order.reduce((n, name) => n + parameters[name].data.length, 0));
  let at = 0;
  for (const name of order) { flat.set(parameters[name].data, at); at += parameters[name].data.length; }
  writeFileSync(path.join(dir, 'parameters.f32'), Buffer.from(flat.buffer));
  writeFileSync(path.join(dir, 'job.json'), JSON.stringify({ config: CONFIG, order, shapes: gpt2ParameterShapes(CONFIG), sizes: SIZES, tokens: Object.fromEntries(SIZES.map((T) => [T, tokensFor(T)])) }));
  const result = spawnSync('/usr/bin/python3', [path.join(HERE, 'gpt2_torch.py'), dir], { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '1' } });
  if (result.status !== 0) return { unavailable: (result.stderr || result.error?.message || 'failed').trim().split('\n').at(-1) };
  return JSON.parse(result.stdout);
}

/** bench/results/gpt2.md from the run's JSON: wall and CPU figures side by side (the machine may be shared). */
function writeReport({ machine, rows }) {
  const sizes = [...new Set(rows.map((r) => r.T))];
  const peak = machine.fmaPeakGflops ?? FMA_PEAK_GFLOPS;
  const peakSource = machine.fmaPeakGflops
    ? `measured in this run (bench/fma-peak.js: 12 independent f32x4 FMA chains, the best round; bench/report.js estimates ${FMA_PEAK_GFLOPS})`
    : '(bench/report.js)';
  const gflopsAt = (r, ms) => flops(r.T) / ms / 1e6;
  const md = [`# GPT-2 small forward (124M, random weights), ${machine.date}`, '',
    `${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average at the end ${machine.load} (1, 5, 15 min). Median of 5 runs (T=128) or 3 (T=512) after one warm-up.`,
    'CPU ms: the process\'s CPU time per run (median; PyTorch: its own process). On a shared machine the wall time includes waiting for a core, so the GFLOP/s, the share of the peak and the ratios are given on CPU time too.',
    `% of peak: of ${peak.toFixed(1)} GFLOP/s, one core's WASM relaxed-SIMD FMA peak ${peakSource}; PyTorch's native AVX2 kernels have a higher ceiling.`, '',
    '| T | contestant | wall ms | CPU ms | GFLOP/s (CPU) | % of peak (CPU) | its time / ours (wall, CPU) | check |', '|---|---|---|---|---|---|---|---|'];
  for (const T of sizes) {
    const ours = rows.find((r) => r.T === T && r.contestant.startsWith('ours') && r.contestant.includes('1 thread') && r.medianMs);
    for (const r of rows.filter((row) => row.T === T)) {
      if (r.unavailable || r.wrong) { md.push(`| ${T} | ${r.contestant} | ${r.unavailable ? `unavailable: ${r.unavailable}` : r.wrong} | | | | | |`); continue; }
      const cpuGflops = gflopsAt(r, r.cpuMs);
      const ratio = ours ? `${(r.medianMs / ours.medianMs).toFixed(2)}×, ${(r.cpuMs / ours.cpuMs).toFixed(2)}×` : '';
      md.push(`| ${T} | ${r.contestant} | ${r.medianMs.toFixed(1)} | ${r.cpuMs.toFixed(1)} | ${cpuGflops.toFixed(1)} | ${(100 * cpuGflops / peak).toFixed(0)}% | ${ratio} | ${r.maxAbsError !== undefined ? `max |diff| ${r.maxAbsError.toExponential(1)} vs ${r.reference}` : 'the reference'} |`);
    }
  }
  const scaling = sizes.map((T) => {
    const one = rows.find((r) => r.T === T && r.contestant.startsWith('ours') && r.contestant.includes('1 thread') && r.medianMs);
    const two = rows.find((r) => r.T === T && r.contestant.startsWith('ours') && r.contestant.includes('workers') && r.medianMs);
    return one && two ? `T=${T}: ${(one.medianMs / two.medianMs).toFixed(2)}× (wall)` : null;
  }).filter(Boolean);
  if (scaling.length) {
    md.push('', `Two workers against our one thread: ${scaling.join(', ')}. On a machine whose load average is near or above its core count this measures the sharing of the cores with other work, not the scaling: compare it on an idle machine.`);
  }
  writeFileSync(path.join(HERE, `results/${OUT}.md`), `${md.join('\n')}\n`);
  return md.join('\n');
}

if (process.argv.includes('--report')) {
  console.log(writeReport(JSON.parse(readFileSync(path.join(HERE, `results/${OUT}.json`), 'utf8'))));
  process.exit(0);
}

const rows = [];
const tileBytes = readFileSync(path.join(ROOT, 'web/src/core/wasm/relaxed-tile.wasm'));
const peaks = [await measureFmaPeak(tileBytes)];
const parameters = randomParameters(23);
const dir = mkdtempSync(path.join(os.tmpdir(), 'gpt2-bench-'));
let torch = null;
if (ONLY.includes('torch')) {
  torch = torchRows(parameters, dir);
  console.log('PyTorch:', torch.unavailable ?? 'done');
}
const ort = ONLY.includes('onnx') ? await import('onnxruntime-web') : null;
for (const T of SIZES) {
  const tokens = tokensFor(T);
  let reference = torch && !torch.unavailable ? new Float32Array(readFileSync(path.join(dir, `logits-${T}.f32`)).buffer.slice(0)) : null;
  const referenceName = reference ? 'PyTorch' : ort ? "onnxruntime-web's standard-ops graph" : "the first contestant's output";
  const contestants = [];
  if (ort) contestants.push(...await onnxContestants(parameters, T, ort));
  if (ONLY.includes('ours')) contestants.push({ lazy: () => oursContestant(parameters) });
  if (ONLY.includes('ours2')) contestants.push({ lazy: () => oursWorkersContestant(parameters) });
  if (ONLY.includes('webgpu')) contestants.push({ lazy: () => webgpuContestant(parameters) });
  if (ONLY.includes('tfjs')) contestants.push({ lazy: () => tfjsContestant(parameters) });
  for (let contestant of contestants) {
    if (contestant.lazy) contestant = await contestant.lazy();
    if (contestant.unavailable) {
      rows.push({ T, contestant: contestant.name, unavailable: contestant.unavailable });
      console.log(T, contestant.name, `unavailable: ${contestant.unavailable}`);
      continue;
    }
    await contestant.setup?.();
    const first = await contestant.run(tokens);
    if (!reference) reference = Float32Array.from(first);
    const verdict = check(first, reference);
    const row = { T, contestant: contestant.name, reference: referenceName, note: contestant.note ?? '' };
    if (typeof verdict === 'string') {
      Object.assign(row, { wrong: verdict });
    } else {
      Object.assign(row, verdict, await time(() => contestant.run(tokens), T));
      row.gflops = flops(T) / row.medianMs / 1e6;
    }
    contestant.dispose?.();
    rows.push(row);
    console.log(T, row.contestant, row.wrong ?? `${row.medianMs.toFixed(1)} ms, CPU ${row.cpuMs.toFixed(1)} ms (${row.gflops.toFixed(1)} GFLOP/s), max |diff| ${row.maxAbsError.toExponential(2)}`);
  }
  if (torch?.unavailable) rows.push({ T, contestant: 'PyTorch CPU eager, 1 thread', unavailable: torch.unavailable });
  else if (torch) rows.push({ T, ...torch.rows.find((r) => r.T === T), gflops: flops(T) / torch.rows.find((r) => r.T === T).medianMs / 1e6 });
}
rmSync(dir, { recursive: true, force: true });

peaks.push(await measureFmaPeak(tileBytes));
const fmaPeakGflops = peaks.every((p) => p !== null) ? Math.max(...peaks) : undefined;
const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
const machine = { cpu: os.cpus()[0].model, cores: os.cpus().length, node: process.version, load, date: new Date().toISOString(), fmaPeakGflops };
writeFileSync(path.join(HERE, `results/${OUT}.json`), `${JSON.stringify({ machine, config: CONFIG, rows }, null, 1)}\n`);
console.log(writeReport({ machine, rows }));
