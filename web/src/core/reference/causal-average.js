// Steps 2–4: three ways to give each token the average of itself and the tokens before it. All three
// return the same output; the last one is the shape attention takes (a score matrix, a mask, a softmax).
import { checkCausalAverage } from './checks.js';
import { normalizeRows } from './softmax.js';
import { checkedOnce } from '../api-checked.js';

/** Applies the (T, T) weights to every batch entry: output[b] = weights·x[b], (T, T)·(T, C) → (T, C). */
function applyWeights(weights, x, B, T, C) {
  const output = new Float32Array(B * T * C);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      for (let c = 0; c < C; c++) {
        let sum = 0;
        for (let s = 0; s < T; s++) sum += weights[t * T + s] * x.data[(b * T + s) * C + c];
        output[(b * T + t) * C + c] = sum;
      }
    }
  }
  return output;
}

/** Step 2. causalAverageLoop(x): x (B, T, C) → { output (B, T, C) }, y[b,t] = mean(x[b,0..t]) by the loop. */
export function causalAverageLoop(x) {
  const { B, T, C } = checkedOnce('causalAverageLoop', () => checkCausalAverage('causalAverageLoop', x));
  const output = new Float32Array(B * T * C);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      for (let c = 0; c < C; c++) {
        let sum = 0;
        for (let s = 0; s <= t; s++) sum += x.data[(b * T + s) * C + c];
        output[(b * T + t) * C + c] = sum / (t + 1);
      }
    }
  }
  return { output: { data: output, shape: [B, T, C] } };
}

/**
 * Step 3. causalAverageMatmul(x): x (B, T, C) → { weights (T, T), output (B, T, C) }.
 * weights is lower-triangular with rows 1, ½ ½, ⅓ ⅓ ⅓, …: row t averages tokens 0..t, so
 * weights·x (broadcast over B) is the loop's result as one matrix product.
 */
export function causalAverageMatmul(x) {
  const { B, T, C } = checkedOnce('causalAverageMatmul', () => checkCausalAverage('causalAverageMatmul', x));
  const weights = new Float32Array(T * T);
  for (let t = 0; t < T; t++) weights.fill(1 / (t + 1), t * T, t * T + t + 1);
  return { weights: { data: weights, shape: [T, T] }, output: { data: applyWeights(weights, x, B, T, C), shape: [B, T, C] } };
}

/**
 * Step 4. causalAverageSoftmax(x): x (B, T, C) → { scores, masked, weights (T, T), output (B, T, C) }.
 * 1. scores = 0 (every token equally interesting)  2. masked: −∞ above the diagonal (the future)
 * 3. weights = softmax(masked): exp(−∞) = 0, so each row is uniform over the past — step 3's matrix,
 * but now the scores could be anything.  4. output = weights·x.
 */
export function causalAverageSoftmax(x) {
  const { B, T, C } = checkedOnce('causalAverageSoftmax', () => checkCausalAverage('causalAverageSoftmax', x));
  const scores = new Float32Array(T * T);
  const masked = new Float32Array(T * T);
  for (let t = 0; t < T; t++) masked.fill(-Infinity, t * T + t + 1, (t + 1) * T);
  const weights = normalizeRows(masked, T, T, 'stable');
  return {
    scores: { data: scores, shape: [T, T] },
    masked: { data: masked, shape: [T, T] },
    weights: { data: weights, shape: [T, T] },
    output: { data: applyWeights(weights, x, B, T, C), shape: [B, T, C] },
  };
}
