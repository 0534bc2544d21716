// Steps 5–8: self-attention, first with the inputs themselves as queries, keys and values, then with
// trainable projections, the causal mask and dropout.
import { checkAttentionWithoutWeights, checkSelfAttention, isPresent } from './checks.js';
import { matmulRaw, project } from './linalg.js';
import { attentionPerHead } from './head-attention.js';
import { normalizeRows } from './softmax.js';
import { checkedOnce } from '../api-checked.js';

/**
 * Step 5. attentionWithoutWeights(x, {normalization}): x (B, T, C) →
 * { scores (B, T, T), weights (B, T, T), output (B, T, C) }.
 * 1. scores = X·Xᵀ: how similar token t is to every token  2. weights: each row normalised
 * 3. output = weights·X: each token becomes a weighted average of all tokens.
 */
export function attentionWithoutWeights(x, options) {
  const { B, T, C } = checkedOnce('attentionWithoutWeights', () => checkAttentionWithoutWeights(x, options));
  const scores = new Float32Array(B * T * T);
  const output = new Float32Array(B * T * C);
  for (let b = 0; b < B; b++) {
    const xb = x.data.subarray(b * T * C, (b + 1) * T * C);
    scores.set(matmulRaw(xb, xb, T, C, T, true), b * T * T);
  }
  const weights = normalizeRows(scores, B * T, T, options.normalization);
  for (let b = 0; b < B; b++) {
    const xb = x.data.subarray(b * T * C, (b + 1) * T * C);
    output.set(matmulRaw(weights.subarray(b * T * T, (b + 1) * T * T), xb, T, T, C), b * T * C);
  }
  return {
    scores: { data: scores, shape: [B, T, T] },
    weights: { data: weights, shape: [B, T, T] },
    output: { data: output, shape: [B, T, C] },
  };
}

/**
 * Steps 6–8. selfAttention(x, weights, options): x (B, T, d_in); weights {query, key, value} each
 * (d_in, d_out) (layout 'matrix', used as X·W) or (d_out, d_in) (layout 'linear', used as X·Wᵀ), biases (d_out)
 * → { query, key, value (B, T, d_out); scores, scaled, masked?, weights, dropped? (B, T, T); output (B, T, d_out) }.
 * 1. Q = X·Wq, K = X·Wk, V = X·Wv  2. attention of one head with d_k = d_out.
 */
export function selfAttention(x, weights, options) {
  const { B, T, dIn, dOut } = checkedOnce('selfAttention', () => checkSelfAttention(x, weights, options));
  const bias = (name) => (isPresent(weights[name]) ? weights[name] : null);
  const query = project(x.data, B * T, dIn, weights.query, bias('queryBias'), options.layout);
  const key = project(x.data, B * T, dIn, weights.key, bias('keyBias'), options.layout);
  const value = project(x.data, B * T, dIn, weights.value, bias('valueBias'), options.layout);
  // (B, T, d_out) is (B, H=1, T, d_head=d_out): no reshape needed for one head.
  const attention = attentionPerHead(query, key, value, { B, H: 1, Tq: T, Tk: T, dHead: dOut }, options);
  const square = (data) => ({ data, shape: [B, T, T] });
  const result = {
    query: { data: query, shape: [B, T, dOut] },
    key: { data: key, shape: [B, T, dOut] },
    value: { data: value, shape: [B, T, dOut] },
    scores: square(attention.scores),
    scaled: square(attention.scaled),
  };
  if (attention.masked) result.masked = square(attention.masked);
  result.weights = square(attention.weights);
  if (attention.dropped) result.dropped = square(attention.dropped);
  result.output = { data: attention.context, shape: [B, T, dOut] };
  return result;
}
