// The benchmark suite: every contestant on every task and shape, in one run, in this browser.
// bench/index.html runs it (interactively, or driven by bench/run.mjs for `npm run bench`).
//
// A contestant is
//   { name, group: 'ours' | 'peer' | 'baseline',
//     threads?: number,                         how many threads it runs (1 when absent)
//     setup?: () => Promise<string>,            loads what it needs; returns a one-line description;
//                                                a throw marks all its rows 'unavailable' with the reason
//     tasks: { gemm?: Task, attention?: Task } }
// and a Task is
//   { supports: (size) => true | 'reason it does not run at this size',
//     prepare: (inputs) => Promise<{ run: () => Float32Array | Promise<Float32Array>, dispose?: () => void }> }
// `size` is n for GEMM and T for attention; `inputs` comes from bench/inputs.js. run() returns the
// output (C, or Y (1, T, d_model)); the first run's output is checked against the reference before any
// time counts. Add rows with registerContestant(contestant) before runSuite(), or pass `contestants`.
import { defaultContestants } from './contestants/index.js';
import { teachingAttention } from './contestants/ours.js';
import { attentionInputs, gemmInputs } from './inputs.js';
import { gemmFloat64 } from './naive.js';

export const TASKS = {
  gemm: {
    title: 'GEMM C = A·B, n×n, float32',
    sizes: [128, 256, 512, 1024],
    sizeName: 'n',
    inputs: gemmInputs,
    flops: (n) => 2 * n ** 3,
    // float64 sums: its own rounding is negligible next to any float32 contestant's
    reference: async ({ a, b, n }) => gemmFloat64(a, b, n),
    referenceName: 'float64 triple loop (bench/naive.js)',
  },
  attention: {
    title: 'causal multi-head attention with projections, B=1, d_model=768, 12 heads',
    sizes: [128, 512, 1024, 2048],
    sizeName: 'T',
    inputs: (T) => attentionInputs(T),
    // Useful work: four (T, d)·(d, d) projections, and Q·Kᵀ and weights·V over the causal half.
    flops: (T, d = 768) => 4 * 2 * T * d * d + 2 * 2 * d * (T * (T + 1)) / 2,
    reference: teachingAttention,
    referenceName: 'the Eigen teaching path (multiheadAttentionSplit, checked against PyTorch by the fixtures)',
  },
};

// Outputs must match the reference to |a − e| ≤ ATOL + RTOL·|e|: loose enough for any summation order
// in float32 over d=768 or n=1024 terms, tight enough that a wrong result (a missing mask, a transposed
// operand) cannot pass. Each result records its actual max |error|.
export const ATOL = 1e-3;
export const RTOL = 1e-3;

export const DEFAULTS = { runs: 7, warmup: 2, warmupMs: 300, settleMs: 150, slowRunMs: 1500, maxRunMs: 12000 };

const registered = [];

/** Adds a contestant to the default line-up (e.g. the WebGPU backend's rows). */
export function registerContestant(contestant) {
  registered.push(contestant);
}

/**
 * `expected` is the whole output, or some of it: {length, indices, values} (expected[indices[k]] = values[k]),
 * what a reference too slow for the whole output at a large size gives (bench/dawn/references.js).
 */
export function compareOutputs(actual, expected) {
  const { length, indices, values } = ArrayBuffer.isView(expected) || Array.isArray(expected)
    ? { length: expected.length, indices: null, values: expected } : expected;
  if (!actual || actual.length !== length) {
    return { ok: false, maxAbsError: Infinity, message: `output has ${actual?.length ?? 'no'} values; expected ${length}` };
  }
  let maxAbsError = 0;
  let first = -1;
  for (let k = 0; k < values.length; k++) {
    const i = indices ? indices[k] : k;
    const difference = Math.abs(actual[i] - values[k]);
    if (!(difference <= ATOL + RTOL * Math.abs(values[k]))) {
      if (first < 0) first = k;
      if (!Number.isFinite(difference)) { maxAbsError = Infinity; continue; }
    }
    if (difference > maxAbsError) maxAbsError = difference;
  }
  if (first < 0) return { ok: true, maxAbsError };
  const at = indices ? indices[first] : first;
  return { ok: false, maxAbsError, message: `[${at}] ${actual[at]} vs ${values[first]}; max |error| ${maxAbsError}` };
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 0));
const median = (sorted) => (sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2);

/** The first run (checked against the reference), warm-up, then `runs` timed runs. */
async function measure(runner, expected, { runs, warmup, warmupMs, settleMs, slowRunMs, maxRunMs }) {
  // Let the previous contestant's helper threads (a spinning thread pool, the GPU process) go idle:
  // on a 2-core machine they would otherwise steal a core from this one.
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  let start = performance.now();
  const first = await runner.run();
  const firstMs = performance.now() - start;
  const verdict = compareOutputs(first, expected);
  if (!verdict.ok) return { status: 'wrong', maxAbsError: verdict.maxAbsError, reason: verdict.message };
  if (firstMs > maxRunMs) {
    return { status: 'too slow', maxAbsError: verdict.maxAbsError, reason: `one run took ${Math.round(firstMs)} ms (limit ${maxRunMs} ms)` };
  }
  // Warm-up: at least `warmup` runs and warmupMs (V8 compiles hot WASM with its optimising tier in the
  // background, which takes longer than two runs of a small size); a slow contestant has warmed up in
  // its first run already.
  const warmStart = performance.now();
  for (let w = 1; firstMs <= slowRunMs && (w < warmup || performance.now() - warmStart < warmupMs) && w < 200; w++) await runner.run();
  const times = [];
  for (let r = 0; r < runs; r++) {
    await pause();
    start = performance.now();
    await runner.run();
    times.push(performance.now() - start);
  }
  times.sort((x, y) => x - y);
  return { status: 'ok', maxAbsError: verdict.maxAbsError, runs: times.length, medianMs: median(times), minMs: times[0], maxMs: times.at(-1), timesMs: times };
}

/** Sets up each contestant of `pass`: its line-up entries, with a description or the error that stopped it. */
async function setUp(pass, onProgress) {
  const ready = [];
  for (const contestant of pass) {
    try {
      const description = contestant.setup ? await contestant.setup() : '';
      ready.push({ contestant, name: contestant.name, group: contestant.group, description: typeof description === 'string' ? description : '' });
      onProgress(`ready: ${contestant.name}${description && typeof description === 'string' ? ` (${description})` : ''}`);
    } catch (error) {
      ready.push({ contestant, name: contestant.name, group: contestant.group, error: error.message ?? String(error) });
      onProgress(`unavailable: ${contestant.name}: ${error.message ?? error}`);
    }
  }
  return ready;
}

/** Every task and size for the contestants of `passLineup`: their result rows. */
async function measureAll(passLineup, { tasks, sizes, options, onProgress, taskOverrides }) {
  const results = [];
  for (const taskName of tasks) {
    const task = { ...TASKS[taskName], ...taskOverrides[taskName] };
    for (const size of sizes[taskName] ?? task.sizes) {
      const inputs = task.inputs(size);
      const expected = await task.reference(inputs);
      for (const entry of passLineup) {
        const spec = entry.contestant.tasks[taskName];
        if (!spec) continue;
        const row = { task: taskName, size, contestant: entry.name, group: entry.group };
        const supported = entry.error ? entry.error : spec.supports(size);
        if (supported !== true) {
          results.push({ ...row, status: entry.error ? 'unavailable' : 'skipped', reason: supported });
          continue;
        }
        await pause();
        let runner;
        try {
          runner = await spec.prepare(inputs);
          Object.assign(row, await measure(runner, expected, options));
        } catch (error) {
          Object.assign(row, { status: 'failed', reason: error.message ?? String(error) });
        } finally {
          try { runner?.dispose?.(); } catch { /* a failed dispose must not end the suite */ }
        }
        if (row.status === 'ok') row.gflops = task.flops(size) / (row.medianMs * 1e6);
        results.push(row);
        onProgress(`${taskName} ${task.sizeName}=${size} ${entry.name}: ${row.status === 'ok'
          ? `${row.medianMs.toFixed(2)} ms (min ${row.minMs.toFixed(2)}, max ${row.maxMs.toFixed(2)}), ${row.gflops.toFixed(1)} GFLOP/s, max |error| ${row.maxAbsError.toExponential(1)}`
          : `${row.status}: ${row.reason}`}`);
      }
    }
  }
  return results;
}

/**
 * Runs the suite. Returns { environment, contestants: [{name, group, description | error}],
 * results: [{task, size, contestant, group, status, medianMs, minMs, maxMs, runs, gflops, maxAbsError, reason}] }.
 * `onProgress(text)` hears about every step; `tasks` and `sizes` ({gemm: [...], attention: [...]}) narrow it;
 * `taskOverrides` ({gemm: {reference, referenceName}}) replaces a task's fields (bench/dawn: references that
 * scale to n = 4096).
 */
export async function runSuite({ contestants = [...defaultContestants(), ...registered], tasks = Object.keys(TASKS), sizes = {},
  taskOverrides = {}, onProgress = () => {}, ...settings } = {}) {
  const options = { ...DEFAULTS, ...settings };
  const started = performance.now();
  const lineup = [];
  const results = [];
  // Contestants with threads of their own are set up and measured after every single-threaded one: once
  // loaded, onnxruntime-web's 2-thread module slowed the rows measured beside it (ours relaxed-SIMD,
  // attention T=1024: 140.8 ms alone, 148.2 with that module loaded, 152.5 in the whole suite).
  const threaded = (contestant) => (contestant.threads ?? 1) > 1;
  for (const pass of [contestants.filter((c) => !threaded(c)), contestants.filter(threaded)]) {
    const passLineup = await setUp(pass, onProgress);
    lineup.push(...passLineup);
    results.push(...await measureAll(passLineup, { tasks, sizes, options, onProgress, taskOverrides }));
  }
  // Rows in the line-up's order, as if measured contestant by contestant within each task and size.
  const position = new Map(contestants.map((c, i) => [c.name, i]));
  const taskNames = Object.keys(TASKS);
  results.sort((x, y) => taskNames.indexOf(x.task) - taskNames.indexOf(y.task) || x.size - y.size
    || position.get(x.contestant) - position.get(y.contestant));
  lineup.sort((x, y) => position.get(x.name) - position.get(y.name));

  return {
    environment: {
      userAgent: navigator.userAgent,
      hardwareConcurrency: navigator.hardwareConcurrency,
      crossOriginIsolated: Boolean(globalThis.crossOriginIsolated),
      date: new Date().toISOString(),
      seconds: (performance.now() - started) / 1000,
    },
    settings: { ...options, atol: ATOL, rtol: RTOL },
    tasks: Object.fromEntries(tasks.map((name) => [name, { title: TASKS[name].title, sizeName: TASKS[name].sizeName,
      reference: taskOverrides[name]?.referenceName ?? TASKS[name].referenceName }])),
    contestants: lineup.map(({ name, group, description, error }) => ({ name, group, description, error })),
    results,
  };
}
