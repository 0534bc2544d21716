// 'auto''s in-browser crossover probe, run on its two backends: in idle time (scheduleIdle), it times our GEMM
// and fused attention on the webgpu backend and on the CPU backend (measureCrossover) through the probe's
// loop (web/src/gpu/crossover-probe.js probeCrossover), within the probe's budget. The routing layer
// (auto.js) decides when it runs; the crossover state (gpu-crossover.js crossoverState) keeps its record.
import { probeCrossover } from '../../gpu/crossover-probe.js';
import { ENTRIES } from '../registry.js';

/** Runs `task` when the page is idle: requestIdleCallback where it exists, else a timeout. */
export function scheduleIdle(task) {
  if (typeof globalThis.requestIdleCallback === 'function') globalThis.requestIdleCallback(() => task(), { timeout: 1000 });
  else setTimeout(task, 0);
}

/** The probe's inputs: an (n, n) GEMM, and a causal 4-head fused attention of n queries at d = 64. */
const PROBE_HEADS = 4;
const PROBE_WIDTH = 64;
function probeFill(count, seed) {
  const data = new Float32Array(count);
  let state = seed >>> 0;
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    data[i] = state / 2 ** 32 - 0.5;
  }
  return data;
}
/** `given` over every option's default: a backend's own options (what the API hands it). */
const backendOptions = (fn, given) => ({
  ...Object.fromEntries(Object.entries(ENTRIES[fn].options).map(([name, spec]) => [name, spec.default ?? null])), ...given,
});
function probeCall(workload, n) {
  if (workload === 'matmul') {
    const a = { data: probeFill(n * n, n), shape: [n, n] };
    return ['matmul', a, a, backendOptions('matmul', {})];
  }
  const weight = (seed) => ({ data: probeFill(PROBE_WIDTH * PROBE_WIDTH, seed).map((v) => v / 4), shape: [PROBE_WIDTH, PROBE_WIDTH] });
  const x = { data: probeFill(n * PROBE_WIDTH, n + 1), shape: [1, n, PROBE_WIDTH] };
  const weights = { query: weight(1), key: weight(2), value: weight(3), outWeight: weight(4) };
  return ['multiheadAttentionSplit', x, weights, backendOptions('multiheadAttentionSplit', { heads: PROBE_HEADS, causal: true, intermediates: false })];
}

/**
 * The probe's measurement: times its workloads on the webgpu backend and on `cpu` (probeCrossover) within
 * what is left of `budgetMs` once the device is there; the device request counts against the budget too.
 * @param {object} cpu the CPU backend
 * @param {() => Promise<object>} loadGpu the webgpu backend (its device requested now), or a rejection saying
 *   why there is none
 * @param {{now: () => number, budgetMs: number}} clock
 * @returns {Promise<import('../../gpu/crossover-probe.js').CrossoverRecord>}
 */
export async function measureCrossover(cpu, loadGpu, { now, budgetMs }) {
  const started = now();
  const backends = { gpu: await loadGpu(), wasm: cpu };
  const calls = new Map();
  const time = async (which, workload, n) => {
    const id = `${which}:${workload}@${n}`;
    if (!calls.has(id)) calls.set(id, probeCall(workload, n));
    const [fn, ...args] = calls.get(id);
    const before = now();
    await backends[which][fn](...args);
    return now() - before;
  };
  const measured = await probeCrossover({ time, now, budgetMs: Math.max(0, budgetMs - (now() - started)) });
  measured.spentMs = now() - started;
  return measured;
}
