// Step 10: multi-head attention three ways, which agree when their weights correspond:
// (a) stacked: H independent heads, each with its own (d_in, d_head) projections, concatenated;
// (b) split: one (d_in, d_out) projection per Q, K, V whose columns are cut into H heads;
// (c) fused: one (d_in, 3·d_out) projection [Wq | Wk | Wv], torch.nn.MultiheadAttention's in_proj_weight
//     transposed. Step 11 (crossAttention) shares the second half of the work: attendHeads.
import {
  checkMultiheadAttentionFused, checkMultiheadAttentionSplit, checkMultiheadAttentionStacked, isPresent,
} from './checks.js';
import { mergeHeads, project, splitHeads, takeColumns } from './linalg.js';
import { allFinite } from '../tensor.js';
import { fusedAttention, attentionPerHead } from './head-attention.js';
import { runsFusedPath } from '../planner.js';
import { checkedOnce } from '../api-checked.js';

const optional = (tensor) => (isPresent(tensor) ? tensor : null);

/**
 * The shared second half: query (B, H, Tq, d_head), key and value (B, H, Tk, d_head) → attention per head
 * (scaled by 1/√d_head) → context (B, Tq, d_out), the heads concatenated → output = context·outWeight + outBias
 * (output = context + outBias, or context, without outWeight). Returns the multi-head results of docs/api.md, or only
 * { output } when options.intermediates is false.
 */
export function attendHeads({ query, key, value }, { B, H, Tq, Tk, dHead }, weights, options) {
  const dOut = H * dHead;
  // The planned path: the fused one holds one row of scores, the teaching one every stage.
  const attend = runsFusedPath(options) ? fusedAttention : attentionPerHead;
  const attention = attend(query, key, value, { B, H, Tq, Tk, dHead }, options);
  // (B, H, Tq, d_head) -> (B, Tq, H, d_head) -> (B, Tq, d_out)
  const context = mergeHeads(attention.context, B, H, Tq, dHead);
  let output = context;
  if (isPresent(weights.outWeight)) {
    output = project(context, B * Tq, dOut, weights.outWeight, optional(weights.outBias));
  } else if (isPresent(weights.outBias)) {
    // No projection, but a bias given on its own: output = context + outBias.
    output = context.map((value, i) => value + weights.outBias.data[i % dOut]);
  }
  // Without intermediates only the output is returned, unless a score left float32 (teaching path): then every
  // stage stays, for the API's result check to name, since overflowed −∞ scores would pass for a mask.
  if (options.intermediates === false && allFinite(attention.scores) && allFinite(attention.scaled)) {
    return { output: { data: output, shape: [B, Tq, dOut] } };
  }

  const square = (data) => ({ data, shape: [B, H, Tq, Tk] });
  const result = {
    query: { data: query, shape: [B, H, Tq, dHead] },
    key: { data: key, shape: [B, H, Tk, dHead] },
    value: { data: value, shape: [B, H, Tk, dHead] },
    scores: square(attention.scores),
    scaled: square(attention.scaled),
  };
  if (attention.masked) result.masked = square(attention.masked);
  result.weights = square(attention.weights);
  if (attention.dropped) result.dropped = square(attention.dropped);
  result.context = { data: context, shape: [B, Tq, dOut] };
  // Without an output projection, output is context: a separate copy, so a caller may change one alone.
  result.output = { data: output === context ? context.slice() : output, shape: [B, Tq, dOut] };
  return result;
}

/**
 * 10a. multiheadAttentionStacked(x, weights, options): x (B, T, d_in);
 * weights { heads: [{ query, key, value (d_in, d_head), …Bias? (d_head) }], outWeight? (d_out, d_out), outBias? }
 * with d_out = H·d_head → multi-head results.
 */
export function multiheadAttentionStacked(x, weights, options) {
  const { B, T, dIn, H, dHead } = checkedOnce('multiheadAttentionStacked', () => checkMultiheadAttentionStacked(x, weights, options));
  // Each head projects on its own: (B, T, d_in) → (B, T, d_head), stacked into (B, H, T, d_head).
  const stack = (name) => {
    const stacked = new Float32Array(B * H * T * dHead);
    weights.heads.forEach((head, h) => {
      const projected = project(x.data, B * T, dIn, head[name], optional(head[`${name}Bias`]));
      for (let b = 0; b < B; b++) {
        stacked.set(projected.subarray(b * T * dHead, (b + 1) * T * dHead), (b * H + h) * T * dHead);
      }
    });
    return stacked;
  };
  const projections = { query: stack('query'), key: stack('key'), value: stack('value') };
  return attendHeads(projections, { B, H, Tq: T, Tk: T, dHead }, weights, options);
}

/**
 * 10b. multiheadAttentionSplit(x, weights, options): x (B, T, d_in);
 * weights { query, key, value (d_in, d_out), …Bias? (d_out), outWeight? (d_out, d_out), outBias? };
 * options.heads = H divides d_out → multi-head results.
 */
export function multiheadAttentionSplit(x, weights, options) {
  const { B, T, dIn, H, dHead } = checkedOnce('multiheadAttentionSplit', () => checkMultiheadAttentionSplit(x, weights, options));
  // (B, T, d_in) → (B, T, d_out) → (B, H, T, d_head)
  const heads = (name) => splitHeads(project(x.data, B * T, dIn, weights[name], optional(weights[`${name}Bias`])), B, T, H, dHead);
  const projections = { query: heads('query'), key: heads('key'), value: heads('value') };
  return attendHeads(projections, { B, H, Tq: T, Tk: T, dHead }, weights, options);
}

/**
 * 10c. multiheadAttentionFused(x, weights, options): x (B, T, d_in);
 * weights { inProjection (d_in, 3·d_out) = [Wq | Wk | Wv], inBias? (3·d_out), outWeight?, outBias? };
 * options.heads → multi-head results.
 */
export function multiheadAttentionFused(x, weights, options) {
  const { B, T, dIn, dOut, H, dHead } = checkedOnce('multiheadAttentionFused', () => checkMultiheadAttentionFused(x, weights, options));
  // One product for all three: (B, T, d_in) → (B, T, 3·d_out), then column blocks Q | K | V.
  const qkv = project(x.data, B * T, dIn, weights.inProjection, optional(weights.inBias));
  const part = (index) => splitHeads(takeColumns(qkv, B * T, 3 * dOut, index * dOut, dOut), B, T, H, dHead);
  const projections = { query: part(0), key: part(1), value: part(2) };
  return attendHeads(projections, { B, H, Tq: T, Tk: T, dHead }, weights, options);
}
