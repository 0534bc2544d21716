// The planner: for each call, which path runs it and why. One place for every rule of that choice:
// the `intermediates` default, the fused-kernel rule, the worker crossover (planPoolCall, measured in
// docs/api.md "Threads"), the GPU crossover (planGpuCall; which figure applies to an adapter is
// gpu-crossover.js's) and the sizes and work they read (shapesOf, workOf, gpuFootprint). No WASM, no GPU
// here: it runs in Node and in every backend.
//
//   plan(fn, args, backend) → {path: 'teaching' | 'fused' | 'workers' | 'webgpu', reason}
//
// `args` are the API's normalised arguments (rank-3 sequences, complete options last). `backend` says what
// the backend answering the call can do: {name, workers?: number ≥ 2 when a pool is running,
// gpu?: {thresholdN} when calls may go to WebGPU above a crossover}.
import { ENTRIES } from './registry.js';
import { multiheadSizes } from './backends/thread-plan.js';

/**
 * Up to this many values in each (B, H, Tq, Tk) stage (256 KB), `intermediates` defaults to true: every
 * teaching size (the page's largest is 8·32·32) keeps its stages for the views. Above it, a caller who did
 * not ask for them gets { output } from the fused kernel: O(T·d) memory instead of five (B, H, T, T) stages.
 */
export const INTERMEDIATES_LIMIT = 65_536;

/**
 * B·H·Tq·Tk for normalised arguments: x (B, Tq, ·) and, for crossAttention, xContext (B, Tk, ·);
 * for scaledDotProductAttention, N·L·S from query (…, L, E) and key (…, S, E), N the product of the leading axes.
 */
export function stageValues(args, heads, fn) {
  if (fn === SDPA) {
    const [query, key] = args;
    return product(query.shape.slice(0, -1)) * key.shape[key.shape.length - 2];
  }
  const [batch, rows] = args[0].shape;
  const cols = args[1]?.shape?.length === 3 ? args[1].shape[1] : rows;
  return batch * heads * rows * cols;
}

/** The `intermediates` default: true at teaching sizes, false above INTERMEDIATES_LIMIT values per stage. */
export function defaultIntermediates(args, heads, fn) {
  return stageValues(args, heads, fn) <= INTERMEDIATES_LIMIT;
}

const SDPA = 'scaledDotProductAttention';

/**
 * scaledDotProductAttention's fused rule: only the output asked for, no dropoutP, no attnMask (isCausal is
 * the kernel's own top-left mask). The JS reference then runs its row-at-a-time form (one row of S scores).
 */
export function sdpaFusedApplies(options) {
  return options.intermediates === false && options.dropoutP === 0 && !given(options.attnMask);
}

/** Why scaledDotProductAttention's fused form does not apply (sdpaFusedApplies is false). */
function whySdpaNotFused(options) {
  if (options.intermediates !== false) return 'the intermediates are asked for: the teaching code';
  if (options.dropoutP !== 0) return 'dropoutP > 0: the teaching code';
  return 'options.attnMask: the teaching code (the fused form takes only isCausal)';
}

/**
 * Why the webgpu backend runs a function's JS reference (registry `gpu: 'reference'`): its own text where
 * the registry gives one (`gpuReason`: the backwards, scaledDotProductAttention), else that the function has
 * no matrix work for a WGSL pass (nextTokenPairs, causalAverageLoop, attentionDropout, compare).
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
 * The fused kernel (WASM's online-softmax attention, the JS reference's row-at-a-time form) runs when nothing
 * but the output is asked for, without dropout, with the causal mask only as −∞ (the kernel skips masked keys),
 * with or without keyPaddingMask (it skips padded keys too), and without attnMask or xValue (the kernel takes
 * neither: the teaching code applies them). WebGPU's fused pass takes no mask (planGpuCall, webgpu.js).
 */
export function fusedKernelApplies(options) {
  return options.intermediates === false && options.dropout === 0 && (!options.causal || options.mask === 'neg_inf')
    && !given(options.attnMask) && !given(options.xValue);
}

// ---- Sizes and work ------------------------------------------------------------------------------

const product = (shape) => shape.reduce((total, size) => total * size, 1);

/**
 * The tensor shapes the crossovers and WebGPU's supportsOp look at: matmul [a, b]; softmax,
 * causalAverage*, attentionWithoutWeights [x]; selfAttention, multiheadAttentionSplit [x, weights.query];
 * multiheadAttentionStacked [x, weights.heads[0].query]; multiheadAttentionFused [x, weights.inProjection];
 * crossAttention [xQuery, xContext, weights.query].
 * @param {string} fn @param {any[]} args @returns {number[][]}
 */
export function shapesOf(fn, args) {
  const [first, second, third] = args;
  switch (fn) {
    case 'matmul': return [first.shape, second.shape];
    case 'selfAttention': case 'multiheadAttentionSplit': return [first.shape, second.query.shape];
    case 'multiheadAttentionStacked': return [first.shape, second.heads[0].query.shape];
    case 'multiheadAttentionFused': return [first.shape, second.inProjection.shape];
    case 'crossAttention': return [first.shape, second.shape, third.query.shape];
    default: return [first.shape];
  }
}

/** An attention call's sizes from its shapes (see shapesOf): B, Tq, Tk, d_in (the wider input), d_out, H. */
export function attentionSizes(fn, [x, second, third], options) {
  const [B, T, dIn] = x;
  const H = fn === 'selfAttention' ? 1 : options.heads;
  switch (fn) {
    case 'selfAttention': return { B, Tq: T, Tk: T, dIn, H, dOut: options.layout === 'linear' ? second[0] : second[1] };
    case 'multiheadAttentionStacked': return { B, Tq: T, Tk: T, dIn, H, dOut: second[1] * H };
    case 'multiheadAttentionSplit': return { B, Tq: T, Tk: T, dIn, H, dOut: second[1] };
    case 'multiheadAttentionFused': return { B, Tq: T, Tk: T, dIn, H, dOut: second[1] / 3 };
    case 'crossAttention': return { B, Tq: T, Tk: second[1], dIn: Math.max(dIn, second[2]), H, dOut: third[1] };
    default: return null;
  }
}

/**
 * Multiply-adds of a call, to compare with the GPU crossover: the GPU pays off once a call does as much
 * work as an n×n×n GEMM at the crossover n.
 */
export function workOf(fn, shapes, options = {}) {
  const [x, second] = shapes;
  const attention = attentionSizes(fn, shapes, options);
  if (attention) {
    const { B, Tq, Tk, dIn, dOut } = attention;
    // Q, K, V projections; Q·Kᵀ and weights·V; the output projection of the multi-head functions.
    return B * (Tq + 2 * Tk) * dIn * dOut + 2 * B * Tq * Tk * dOut + (fn === 'selfAttention' ? 0 : B * Tq * dOut * dOut);
  }
  const [B, T, C] = x;
  switch (fn) {
    case 'matmul': return product(x) * (options.transposeB ? second[0] : second[1]);
    case 'softmax': return product(x);
    case 'causalAverageMatmul': case 'causalAverageSoftmax': return B * T * T * C;
    case 'attentionWithoutWeights': return 2 * B * T * T * C;
    default: return 0;
  }
}

/**
 * The largest GPU buffer (in floats) a call needs, and how many matrices one dispatch batches: what the
 * webgpu backend's supportsOp holds against the device's limits.
 * @returns {{largest: number, matrices: number, headDim?: number} | null}
 */
export function gpuFootprint(fn, shapes, options = {}) {
  const [x, second] = shapes;
  const attention = attentionSizes(fn, shapes, options);
  if (attention) {
    const { B, Tq, Tk, dIn, dOut, H } = attention;
    // (B, H, Tq, Tk) intermediates, unless the fused kernel runs; projections; the fused (d_in, 3·d_out) weight.
    const square = options.intermediates === false ? 0 : B * H * Tq * Tk;
    return { largest: Math.max(square, B * Math.max(Tq, Tk) * Math.max(dOut, dIn), dIn * 3 * dOut), matrices: B * H, headDim: dOut / H };
  }
  switch (fn) {
    case 'matmul': {
      const N = options.transposeB ? second[0] : second[1];
      return { largest: Math.max(product(x), product(second), product(x.slice(0, -1)) * N), matrices: x.length === 3 ? x[0] : 1 };
    }
    case 'softmax': return { largest: product(x), matrices: 1 };
    case 'causalAverageMatmul': case 'causalAverageSoftmax': return { largest: Math.max(product(x), x[1] * x[1]), matrices: x[0] };
    case 'attentionWithoutWeights': return { largest: Math.max(product(x), x[0] * x[1] * x[1]), matrices: x[0] };
    default: return null;
  }
}

// ---- The workers' crossover -----------------------------------------------------------------------

/**
 * When the workers pay (measured in Chromium on this project's 2-core Xeon; docs/api.md, "Threads"). A
 * pooled call costs the main thread a copy of every float it moves (the weights' column blocks, x, the
 * partial outputs) and a round trip; it saves half the multiply-adds. So a call goes to the workers when
 * it does at least `workPerFloat` multiply-adds per float moved, which for self-attention with T < d
 * means roughly B·T ≥ 200 query rows whatever d is (T=128: one thread wins at d = 256, 512 and 768;
 * T=256: two workers win at d=768, tie at 512), and at least `minWork` multiply-adds (~6 ms on one
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
  const perFloat = Math.round(work / movedFloats(sizes, fn === 'crossAttention'));
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

/**
 * Whether the WASM builds' fused kernel takes a scaledDotProductAttention call: sdpaFusedApplies, and the
 * kernel's own limits (cpp/attention/fast_attention.h sdpa_fused_applies): Ev = E (its values are as wide
 * as its keys) and a scale > 0 (its online softmax keeps the raw row max). Null when it does, else why not.
 */
function whyNotSdpaKernel(E, Ev, options) {
  if (Ev !== E) return `Ev=${Ev} ≠ E=${E}: the teaching code, output only (the WASM fused kernel's values are as wide as its keys)`;
  const scale = Math.fround(options.scale ?? 1 / Math.sqrt(E));
  if (!(scale > 0)) return `scale ${options.scale} ≤ 0: the teaching code, output only (the WASM fused kernel needs a scale > 0)`;
  return null;
}

/**
 * scaledDotProductAttention's path on a backend, for queries and keys of width E and values of width Ev: the
 * one rule behind lastCall (plan) and the memory estimate (its check, reference/scaled-dot-product-attention.js).
 * js and webgpu run the JS reference, whose row-at-a-time fused form takes any Ev and scale; the WASM builds'
 * fused kernel (attention_heads_fused, the leading axes as batch×heads) only within its limits. `stages`: the
 * (…, L, S) stages the teaching code holds, 5, or 1 where the WASM teaching code returns the output alone
 * (cpp/attention/scaled_dot_product_attention.cpp).
 * @returns {{path: 'fused'|'teaching', reason: string, stages: number}}
 */
export function sdpaRoute(E, Ev, options, backendName) {
  const reference = backendName === 'js' || backendName === 'webgpu';
  const onGpu = backendName === 'webgpu' ? `${gpuReferenceReason(SDPA)}; ` : '';
  if (!sdpaFusedApplies(options)) {
    return { path: 'teaching', reason: `${onGpu}${whySdpaNotFused(options)}`, stages: !reference && options.intermediates === false ? 1 : 5 };
  }
  if (reference) return { path: 'fused', reason: `${onGpu}intermediates false, no dropoutP, no attnMask: the JS reference's row-at-a-time fused form`, stages: 0 };
  const notKernel = whyNotSdpaKernel(E, Ev, options);
  return notKernel ? { path: 'teaching', reason: notKernel, stages: 1 }
    : { path: 'fused', reason: 'intermediates false, no dropoutP, no attnMask: the fused kernel, the leading axes as batch×heads', stages: 0 };
}

/** The path on one CPU thread (or the WebGPU backend's own passes): fused when the kernel applies, else teaching. */
function planOnOneThread(fn, options, backendName, args) {
  const fusable = ENTRIES[fn].paths.includes('fused');
  if (fn === SDPA) {
    const [query, , value] = args;
    const { path, reason } = sdpaRoute(query.shape[query.shape.length - 1], value.shape[value.shape.length - 1], options, backendName);
    return { path, reason };
  }
  if (backendName === 'webgpu') {
    const onReference = whyReferenceOnGpu(options);
    if (onReference) return { path: 'teaching', reason: `${onReference}: the webgpu backend runs the JS reference` };
    return fusable && fusedKernelApplies(options)
      ? { path: 'webgpu', reason: 'the webgpu backend: its fused attention pass (intermediates false)' }
      : { path: 'webgpu', reason: 'the webgpu backend' };
  }
  if (!fusable) return { path: 'teaching', reason: `${fn} has only the teaching code` };
  if (fusedKernelApplies(options)) {
    return { path: 'fused', reason: given(options.keyPaddingMask)
      ? 'intermediates false, no dropout, no mask other than neg_inf: the fused kernel, which skips the padded keys of options.keyPaddingMask'
      : 'intermediates false, no dropout, no mask other than neg_inf: the fused kernel' };
  }
  return { path: 'teaching', reason: whyNotFused(options) };
}

/** Why the fused kernel does not apply (fusedKernelApplies is false): the teaching code runs. */
export function whyNotFused(options) {
  // torch's generator first: it alone decides the path whatever else the call asks (docs/api.md "Dropout").
  if (options.dropout > 0 && options.dropoutRng === 'torch') return `dropout > 0 with ${TORCH_DROPOUT_ON_GPU}`;
  if (options.intermediates !== false) return 'the intermediates are asked for: the teaching code';
  if (options.dropout !== 0) return 'dropout > 0: the teaching code';
  if (given(options.attnMask)) return 'options.attnMask: the teaching code (the fused kernel takes no attention mask)';
  if (given(options.xValue)) return 'options.xValue: the teaching code (the fused kernel projects the values from xContext)';
  return `mask '${options.mask}': the teaching code`;
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
