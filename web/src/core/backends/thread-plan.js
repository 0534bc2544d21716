// The pure half of the threaded path (threads.js runs it): how many workers a page gets and each worker's
// share of the weights. Which calls go to them, and which heads each takes, is the planner's (planner.js
// planPoolCall, headGroups). No Worker, no WASM here, so Vitest tests it in Node.
//
// The split: attention is independent per head, so worker w takes a contiguous group of heads, i.e. the
// column block [h0·d_head, h1·d_head) of Wq, Wk, Wv (and of their biases), computes those columns of the
// context, and multiplies them by the same rows of Wo:
//   output = Σ_w context[:, :, heads_w] · Wo[heads_w, :] + bo
// One round trip per call; no worker needs another's result.

import { functionsFor } from '../registry.js';
import { allFinite } from '../reference/check-helpers.js';

/** The functions the pool runs (registry.js: those with the 'workers' path), each in its split layout. */
export const POOL_FUNCTIONS = functionsFor('workers');

/** 'auto' asks for at most this many workers (each is a full WASM instance; heads rarely split finer). */
export const AUTO_MAX_THREADS = 4;
/** An explicit `threads` may ask for up to this many. */
export const MAX_THREADS = 64;

/**
 * How many threads loadAttention asks for.
 * @param {'auto'|number} option the `threads` option
 * @param {{crossOriginIsolated?: boolean, hasWorker: boolean, hardwareConcurrency?: number}} environment
 * @returns {{count: number, reason: string|null}} count ≥ 1; reason says why it is 1 (or null)
 */
export function resolveThreads(option, { crossOriginIsolated, hasWorker, hardwareConcurrency }) {
  if (option === 1) return { count: 1, reason: null };
  if (!hasWorker) return { count: 1, reason: 'this environment has no Web Worker' };
  if (option !== 'auto') return { count: option, reason: null };
  if (crossOriginIsolated !== true) {
    return { count: 1, reason: "threads 'auto' uses workers only on a cross-origin isolated page (COOP/COEP headers); this one is not" };
  }
  const cores = Number.isInteger(hardwareConcurrency) ? hardwareConcurrency : 1;
  if (cores < 2) return { count: 1, reason: `threads 'auto': navigator.hardwareConcurrency is ${hardwareConcurrency}` };
  return { count: Math.min(cores, AUTO_MAX_THREADS), reason: null };
}

// The sizes of a multi-head call, from the registry (sizes.js), for the pool's callers.
export { multiheadSizes } from '../sizes.js';

// ---- Each worker's weights: the split layout's column blocks -----------------------------------

const fresh = (length) => new Float32Array(length);

/** Columns [start, start + count) of a row-major (rows, cols) matrix, as a (rows, count) array from `allocate`. */
export function columnBlock(data, rows, cols, start, count, allocate = fresh) {
  const block = allocate(rows * count);
  for (let r = 0; r < rows; r++) block.set(data.subarray(r * cols + start, r * cols + start + count), r * count);
  return block;
}

/** Matrices (rows, cols_i) side by side: (rows, Σ cols_i). */
function concatColumns(matrices, rows, allocate) {
  const width = matrices.reduce((sum, m) => sum + m.shape[1], 0);
  const joined = allocate(rows * width);
  for (let r = 0; r < rows; r++) {
    let offset = r * width;
    for (const { data, shape: [, cols] } of matrices) {
      joined.set(data.subarray(r * cols, (r + 1) * cols), offset);
      offset += cols;
    }
  }
  return joined;
}

const tensor = (data, shape) => ({ data, shape });

/** A copy of `source` in an array from `allocate`. */
export function copyOf(source, allocate = fresh) {
  const copy = allocate(source.length);
  copy.set(source);
  return copy;
}

/**
 * Worker w's weights in the split layout for heads [h0, h1): query, key, value (d_in, d_part),
 * their biases (d_part) where given, and `outRows` = Wo[h0·d_head .. h1·d_head, :] (d_part, d_out)
 * when there is an output projection. Stacked heads are concatenated; the fused [Wq | Wk | Wv] is cut
 * into its three blocks. `outBias` stays on the main thread (added once, after the sum). Every array
 * is new, from `allocate` (threads.js recycles the ones the workers hand back).
 */
export function groupWeights(fn, weights, { dQuery, dContext, dOut, H }, [h0, h1], allocate = fresh) {
  const dHead = dOut / H;
  const start = h0 * dHead;
  const width = (h1 - h0) * dHead;
  const part = {};
  if (fn === 'multiheadAttentionStacked') {
    const heads = weights.heads.slice(h0, h1);
    for (const name of ['query', 'key', 'value']) {
      part[name] = tensor(concatColumns(heads.map((head) => head[name]), dQuery, allocate), [dQuery, width]);
      const biases = heads.map((head) => head[`${name}Bias`]);
      if (biases.some(Boolean)) {
        // A head without a bias adds zeros: the same as the teaching code's absent bias.
        const joined = allocate(width).fill(0);
        biases.forEach((bias, i) => { if (bias) joined.set(bias.data, i * dHead); });
        part[`${name}Bias`] = tensor(joined, [width]);
      }
    }
  } else if (fn === 'multiheadAttentionFused') {
    // inProjection (d_in, 3·d_out) = [Wq | Wk | Wv]: block b of this group starts at b·d_out + h0·d_head.
    ['query', 'key', 'value'].forEach((name, b) => {
      part[name] = tensor(columnBlock(weights.inProjection.data, dQuery, 3 * dOut, b * dOut + start, width, allocate), [dQuery, width]);
      if (weights.inBias) part[`${name}Bias`] = tensor(copyOf(weights.inBias.data.subarray(b * dOut + start, b * dOut + start + width), allocate), [width]);
    });
  } else {
    const rowsOf = { query: dQuery, key: dContext, value: dContext };
    for (const name of ['query', 'key', 'value']) {
      part[name] = tensor(columnBlock(weights[name].data, rowsOf[name], dOut, start, width, allocate), [rowsOf[name], width]);
      const bias = weights[`${name}Bias`];
      if (bias) part[`${name}Bias`] = tensor(copyOf(bias.data.subarray(start, start + width), allocate), [width]);
    }
  }
  if (weights.outWeight) part.outRows = tensor(copyOf(weights.outWeight.data.subarray(start * dOut, (start + width) * dOut), allocate), [width, dOut]);
  return part;
}

/**
 * What a worker does with one group (attention-worker.js; the unit tests run it in-process): the fused
 * path on the group's column blocks, then its share of the output projection.
 * @param {{multiheadAttentionSplit: Function, crossAttention: Function, matmul: Function}} core functions
 *   that return {output} and throw on errors
 * @param {{fn: string, xQuery: object, xContext?: object, weights: object, options: object}} message
 * @returns {Float32Array} the group's context columns (B, Tq, d_part), times outRows (d_part, d_out) when given
 */
export function computeHeadGroup(core, { fn, xQuery, xContext, weights, options }) {
  const { outRows, ...projections } = weights;
  const context = fn === 'crossAttention'
    ? core.crossAttention(xQuery, xContext, projections, options).output
    : core.multiheadAttentionSplit(xQuery, projections, options).output;
  if (!outRows) return context.data;
  // A context that overflowed is no input for the product (matmul refuses NaN): the part stays NaN, and the
  // API's result check on the main thread names the stage that overflowed (registry-results.js).
  if (!allFinite(context.data)) return new Float32Array(context.shape[0] * context.shape[1] * outRows.shape[1]).fill(NaN);
  // context·Wo = Σ over workers of (their context columns)·(the same rows of Wo): no exchange needed.
  return core.matmul(context, outRows, { transposeB: false }).output.data;
}

/**
 * The output from the workers' parts: with an output projection each part is (B, Tq, d_out) and they
 * are summed; without, each is its heads' context columns (B, Tq, d_part), placed side by side. Then
 * outBias. (B, Tq, d_out) as a flat array.
 */
export function combineParts(parts, groups, { B, Tq, dOut, H, outWeight }, outBias) {
  const rows = B * Tq;
  let output;
  if (outWeight) {
    output = parts[0];
    for (let k = 1; k < parts.length; k++) {
      const part = parts[k];
      for (let i = 0; i < output.length; i++) output[i] += part[i];
    }
  } else {
    output = new Float32Array(rows * dOut);
    const dHead = dOut / H;
    parts.forEach((part, k) => {
      const [h0, h1] = groups[k];
      const width = (h1 - h0) * dHead;
      for (let r = 0; r < rows; r++) output.set(part.subarray(r * width, (r + 1) * width), r * dOut + h0 * dHead);
    });
  }
  if (outBias) {
    for (let r = 0; r < rows; r++) {
      for (let j = 0; j < dOut; j++) output[r * dOut + j] += outBias[j];
    }
  }
  return output;
}
