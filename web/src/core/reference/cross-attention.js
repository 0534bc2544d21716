// Step 11: cross-attention. The queries come from one sequence (the decoder's), the keys and values
// from another (the encoder's), so the weights are (Tq, Tk): each query token reads the other sequence.
import { checkCrossAttention, isPresent } from './checks.js';
import { project, splitHeads } from './linalg.js';
import { attendHeads } from './multihead.js';
import { checkedOnce } from '../api-checked.js';

/**
 * crossAttention(xQuery, xContext, weights, options): xQuery (B, Tq, d_q), xContext (B, Tk, d_kv);
 * weights { query (d_q, d_out), key, value (d_kv, d_out), …Bias? (d_out), outWeight?, outBias? };
 * options.heads [1], options.xValue? (B, Tk, d_xv) with weights.value (d_xv, d_out), attnMask?, keyPaddingMask?
 * → multi-head results with Tq rows and Tk columns.
 */
export function crossAttention(xQuery, xContext, weights, options) {
  const { B, Tq, Tk, dQuery, dContext, dValue, H, dHead } = checkedOnce('crossAttention', () => checkCrossAttention(xQuery, xContext, weights, options));
  // the values' own input (options.xValue, seed 004's encodings_for_v) or the context's
  const xValue = options.xValue ?? xContext;
  const bias = (name) => (isPresent(weights[name]) ? weights[name] : null);
  // (B, Tq, d_q) → (B, Tq, d_out) → (B, H, Tq, d_head); likewise keys and values from the context.
  const projections = {
    query: splitHeads(project(xQuery.data, B * Tq, dQuery, weights.query, bias('queryBias')), B, Tq, H, dHead),
    key: splitHeads(project(xContext.data, B * Tk, dContext, weights.key, bias('keyBias')), B, Tk, H, dHead),
    value: splitHeads(project(xValue.data, B * Tk, dValue, weights.value, bias('valueBias')), B, Tk, H, dHead),
  };
  return attendHeads(projections, { B, H, Tq, Tk, dHead }, weights, options);
}
