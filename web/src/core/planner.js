// The planner: for each call, which path runs it and why. One place for every rule of that choice:
// the `intermediates` default, the fused-kernel rule, the worker crossover (planPoolCall, measured in
// docs/api.md "Threads"), the GPU crossover (planGpuCall; which figure applies to an adapter is
// gpu-crossover.js's) and the sizes and work they read (sizes.js: shapesOf, sizesOf, workOf, gpuFootprint), all
// from the registry's data: no function is named here (a function with a path rule of its own names it in its
// entry's `route`, routes.js). No WASM, no GPU here: it runs in Node and in every backend.
//
//   plan(fn, args, backend) → {path: 'teaching' | 'fused' | 'workers' | 'webgpu', reason}
//
// `args` are the API's normalised arguments (rank-3 sequences, complete options last). `backend` says what
// the backend answering the call can do: {name, workers?: number ≥ 2 when a pool is running,
// gpu?: {thresholdN} when calls may go to WebGPU above a crossover}.
import { ENTRIES, FUSED_KERNEL_RULE } from './registry.js';
import { ROUTES, sdpaRoute, whyNotFusedBy } from './routes.js';
import { gpuFootprint, multiheadSizes, shapesOf, sizesOf, termsOf, workOf } from './sizes.js';

/**
 * Up to this many values in each (B, H, Tq, Tk) stage (256 KB), `intermediates` defaults to true: every
 * teaching size (the page's largest is 8·32·32) keeps its stages for the views. Above it, a caller who did
 * not ask for them gets { output } from the fused kernel: O(T·d) memory instead of five (B, H, T, T) stages.
 */
export const INTERMEDIATES_LIMIT = 65_536;

/** The values of one (…, Tq, Tk) stage of a call: its entry's `stages` terms over the sizes of its arguments. */
export function stageValues(args, heads, fn) {
  return termsOf(ENTRIES[fn].stages, sizesOf(fn, shapesOf(fn, args, { lenient: true }), { heads }));
}

/** The `intermediates` default: true at teaching sizes, false above INTERMEDIATES_LIMIT values per stage. */
export function defaultIntermediates(args, heads, fn) {
  return stageValues(args, heads, fn) <= INTERMEDIATES_LIMIT;
}

/**
 * Why the webgpu backend runs a function's JS reference (registry `gpu: 'reference'`): its own text where
 * the registry gives one (`gpuReason`), else that the function has no matrix work for a WGSL pass.
 */
export function gpuReferenceReason(fn) {
  return ENTRIES[fn].gpuReason ?? `${fn} has no matrix work; the JS reference computes it`;
}

/** Why a masked call does not run on the WGSL passes. */
export const MASKS_ON_GPU = 'attnMask, keyPaddingMask or xValue: the WGSL passes take none of them';

const given = (value) => value !== null && value !== undefined;

/** Whether a call carries attnMask, keyPaddingMask or xValue (the multi-head functions' and crossAttention's). */
export const hasMaskOptions = (options) => given(options.attnMask) || given(options.keyPaddingMask) || given(options.xValue);

/** Why a call to a WGSL function runs the JS reference on the webgpu backend (masks, torch's dropout), or null. */
export function whyReferenceOnGpu(options) {
  if (hasMaskOptions(options)) return MASKS_ON_GPU;
  if (options.dropout > 0 && options.dropoutRng === 'torch') return TORCH_DROPOUT_ON_GPU;
  return null;
}

/** Why a dropout call with dropoutRng 'torch' takes the teaching code on every backend. */
export const TORCH_DROPOUT_ON_GPU = "dropoutRng 'torch': torch's mask is drawn in order, on the teaching path only";

/**
 * The fused kernel (WASM's online-softmax attention, the JS reference's row-at-a-time form) runs when its
 * registry rule holds (FUSED_KERNEL_RULE: nothing but the output asked for, no dropout, the causal mask only as
 * −∞, no attnMask or xValue; keyPaddingMask the kernel skips itself). WebGPU's fused pass takes no mask
 * (planGpuCall, webgpu.js).
 */
export const fusedKernelApplies = (options) => whyNotFusedBy(FUSED_KERNEL_RULE, options) === null;

/** Why the fused kernel does not apply (fusedKernelApplies is false): the teaching code runs. */
export const whyNotFused = (options) => whyTeaching(FUSED_KERNEL_RULE, options);

/** A fused rule's reason, torch's dropout generator first: it alone decides the path whatever else the call asks (docs/api.md "Dropout"). */
function whyTeaching(rule, options) {
  if (options.dropout > 0 && options.dropoutRng === 'torch') return `dropout > 0 with ${TORCH_DROPOUT_ON_GPU}`;
  return whyNotFusedBy(rule, options);
}

/**
 * Whether a call runs the fused path: the path the API planned for it (`options.path`, api.js), or the rule
 * where none was planned (a backend called directly). A plan onto the fused path that the rule refuses is a
 * bug of the planner, thrown, never run.
 */
export function runsFusedPath(options) {
  if (options.path === undefined) return fusedKernelApplies(options);
  if (options.path === 'fused' && !fusedKernelApplies(options)) {
    throw new Error(`the call was planned onto the fused path, whose rule refuses it: ${whyNotFused(options)}`);
  }
  return options.path === 'fused';
}

export { gpuFootprint, multiheadSizes, sdpaRoute, shapesOf, sizesOf, workOf };

// ---- The workers' crossover -----------------------------------------------------------------------

/**
 * When the workers pay (measured in Chromium on two cores; docs/api.md, "Threads"). A
 * pooled call costs the main thread a copy of every float it moves (the weights' column blocks, x, the
 * partial outputs) and a round trip; it saves half the multiply-adds. So a call goes to the workers when
 * it does at least `workPerFloat` multiply-adds per float moved, which for self-attention with T < d
 * means roughly B·T ≥ 200 query rows whatever d is (T=128: one thread wins at d = 256, 512 and 768;
 * T=256: two workers win at d=768, tie at 512), and at least `minWork` multiply-adds (a few ms on one
 * thread: below it the round trip eats the gain; at d=256, T=256 one thread still wins).
 */
export const POOL_CROSSOVER = Object.freeze({ workPerFloat: 200, minWork: 100_000_000 });

/**
 * Multiply-adds of the fused path: the three projections, Q·Kᵀ and weights·V (half of the (Tq, Tk)
 * square when causal) and the output projection.
 */
export function multiheadWork({ B, Tq, Tk, dQuery, dContext, dOut, outWeight }, causal) {
  const projections = Tq * dQuery * dOut + 2 * Tk * dContext * dOut;
  const attention = 2 * dOut * (causal ? (Tq * (Tq + 1)) / 2 : Tq * Tk);
  return B * (projections + attention + (outWeight ? Tq * dOut * dOut : 0));
}

/** The floats a pooled call moves: the weights, the inputs and the output (each copied once or so). */
export function movedFloats({ B, Tq, Tk, dQuery, dContext, dOut, outWeight }, cross) {
  const weights = dQuery * dOut + 2 * dContext * dOut + (outWeight ? dOut * dOut : 0);
  return weights + B * Tq * dQuery + (cross ? B * Tk * dContext : 0) + B * Tq * dOut;
}

/** Heads 0..H-1 in `workers` contiguous groups [h0, h1), the first H % workers one head larger. */
export function headGroups(heads, workers) {
  const count = Math.min(heads, workers);
  const base = Math.floor(heads / count);
  const larger = heads % count;
  const groups = [];
  let start = 0;
  for (let w = 0; w < count; w++) {
    const size = base + (w < larger ? 1 : 0);
    groups.push([start, start + size]);
    start += size;
  }
  return groups;
}

/**
 * Whether a call goes to the pool: only the fused fast path (intermediates false, dropout 0, and the
 * 'neg_inf' mask when causal) with at least two heads, above the crossover (POOL_CROSSOVER).
 * @param {string} fn @param {Array} args normalised arguments (options last, complete)
 * @param {{workers: number, crossover?: {workPerFloat: number, minWork: number}}} pool
 * @returns {{pool: true, groups: number[][], work: number, reason: string} | {pool: false, reason: string}}
 */
export function planPoolCall(fn, args, { workers, crossover = POOL_CROSSOVER }) {
  const stay = (reason) => ({ pool: false, reason });
  if (!ENTRIES[fn].paths.includes('workers')) return stay(`${fn} runs on the main thread`);
  if (workers < 2) return stay('one thread');
  const options = args[args.length - 1];
  if (!options || !fusedKernelApplies(options)) return stay(`${whyNotFused(options ?? {})} on the main thread`);
  if (options.keyPaddingMask) return stay('options.keyPaddingMask: the fused kernel on the main thread (the workers take no masks)');
  let sizes;
  try {
    sizes = multiheadSizes(fn, args);
  } catch {
    return stay('arguments not sized; the main thread checks them');
  }
  if (sizes.H < 2) return stay('one head');
  const work = multiheadWork(sizes, options.causal);
  // a call with a second sequence (xContext) moves it too
  const perFloat = Math.round(work / movedFloats(sizes, ENTRIES[fn].args.filter((arg) => arg.kind === 'sequence').length > 1));
  const measure = `${fn} does ${work} multiply-adds, ${perFloat} per float moved`;
  const { workPerFloat, minWork } = crossover;
  if (work < minWork || perFloat < workPerFloat) {
    return stay(`${measure}: below the workers' crossover (${workPerFloat} per float, ${minWork} in all)`);
  }
  return { pool: true, groups: headGroups(sizes.H, workers), work, reason: `${measure}: at or above the workers' crossover` };
}

// ---- The GPU crossover (its figure for an adapter: gpu-crossover.js) -----------------------------

/**
 * True when a call of these shapes does at least thresholdN³ multiply-adds (null: never), i.e. this
 * adapter beats WASM SIMD at it; see planGpuCall for the call's reason.
 * @param {string} fn @param {number[][]} shapes see shapesOf @param {object} options @param {number|null} thresholdN
 */
export function prefersGpu(fn, shapes, options, thresholdN) {
  return thresholdN !== null && thresholdN !== undefined && workOf(fn, shapes, options) >= thresholdN ** 3;
}

/** Whether a call is at or above the GPU crossover `thresholdN` (null: never), and the reason. */
export function planGpuCall(fn, args, thresholdN) {
  const options = ENTRIES[fn].options ? args[args.length - 1] : {};
  if (thresholdN === null || thresholdN === undefined) return { gpu: false, reason: 'no GPU crossover measured for this adapter' };
  const onReference = whyReferenceOnGpu(options);
  if (onReference) return { gpu: false, reason: onReference };
  let work;
  try {
    work = workOf(fn, shapesOf(fn, args), options);
  } catch {
    return { gpu: false, reason: 'arguments not sized; the CPU backend checks them' };
  }
  if (work >= thresholdN ** 3) return { gpu: true, reason: `${fn} does ${work} multiply-adds, at or above the crossover ${thresholdN}³` };
  return { gpu: false, reason: `${fn} does ${work} multiply-adds, below the crossover ${thresholdN}³` };
}

// ---- The plan ------------------------------------------------------------------------------------

/** The path on one CPU thread (or the WebGPU backend's own passes): fused when the kernel applies, else teaching. */
function planOnOneThread(fn, options, backendName, args) {
  const entry = ENTRIES[fn];
  const fusable = entry.paths.includes('fused');
  if (entry.route) return ROUTES[entry.route](args, options, backendName);
  if (backendName === 'webgpu') {
    const onReference = whyReferenceOnGpu(options);
    if (onReference) return { path: 'teaching', reason: `${onReference}: the webgpu backend runs the JS reference` };
    return fusable && fusedKernelApplies(options)
      ? { path: 'webgpu', reason: 'the webgpu backend: its fused attention pass (intermediates false)' }
      : { path: 'webgpu', reason: 'the webgpu backend' };
  }
  if (!fusable) return { path: 'teaching', reason: `${fn} has only the teaching code` };
  if (whyNotFusedBy(entry.fused, options) === null) {
    return { path: 'fused', reason: given(options.keyPaddingMask)
      ? 'intermediates false, no dropout, no mask other than neg_inf: the fused kernel, which skips the padded keys of options.keyPaddingMask'
      : 'intermediates false, no dropout, no mask other than neg_inf: the fused kernel' };
  }
  return { path: 'teaching', reason: whyTeaching(entry.fused, options) };
}

/**
 * Which path runs a call. The GPU crossover first (where the backend may route to WebGPU), then the
 * workers' crossover (where a pool runs), then fused or teaching on the calling thread.
 * @param {string} fn @param {any[]} args normalised arguments
 * @param {{name: string, workers?: number, gpu?: {thresholdN: number|null}}} backend
 * @returns {{path: 'teaching'|'fused'|'workers'|'webgpu', reason: string, groups?: number[][]}}
 */
export function plan(fn, args, backend) {
  const options = ENTRIES[fn].options ? args[args.length - 1] : {};
  if (backend.gpu) {
    const gpu = planGpuCall(fn, args, backend.gpu.thresholdN);
    if (gpu.gpu) return { path: 'webgpu', reason: gpu.reason };
    const cpu = plan(fn, args, { ...backend, gpu: undefined });
    return { ...cpu, reason: `${gpu.reason}; ${cpu.reason}` };
  }
  if (backend.workers >= 2 && ENTRIES[fn].paths.includes('workers')) {
    const pool = planPoolCall(fn, args, { workers: backend.workers, crossover: backend.crossover });
    if (pool.pool) return { path: 'workers', reason: pool.reason, groups: pool.groups, work: pool.work };
    const single = planOnOneThread(fn, options, backend.name, args);
    return { path: single.path, reason: pool.reason };
  }
  return planOnOneThread(fn, options, backend.name, args);
}
