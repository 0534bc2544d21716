// Step 5's normalisations of a row of scores into weights, and the softmax function of the API.
import { checkSoftmax } from './checks.js';
import { checkedOnce } from '../api-checked.js';

/**
 * Normalises the row input[offset .. offset+n) into output at the same place.
 * 'stable': exp(s − max) / Σ: the max subtracted so no exp overflows; the same numbers as 'naive'.
 * 'naive':  exp(s) / Σ exp(s), with exp rounded to float32 as a float32 core computes it, so it
 *           overflows to ∞ (and the row to NaN) for s ≳ 88 — the reason 'stable' exists.
 * 'sum':    s / Σ s, "divide by the sum": not a probability distribution when some s < 0.
 *           −∞ entries count as masked (weight 0) here too.
 * A row that is entirely −∞ (fully masked) gets weights 0, not NaN: nothing may be attended to.
 */
export function normalizeRow(input, output, offset, n, normalization) {
  if (normalization === 'sum') {
    // Over the unmasked entries: a −∞ entry gets 0, and a row with a zero sum becomes zeros.
    let sum = 0;
    for (let j = 0; j < n; j++) if (input[offset + j] !== -Infinity) sum += input[offset + j];
    for (let j = 0; j < n; j++) {
      const value = input[offset + j];
      output[offset + j] = sum === 0 || value === -Infinity ? 0 : value / sum;
    }
    return;
  }
  let max = -Infinity;
  if (normalization === 'stable') {
    for (let j = 0; j < n; j++) max = Math.max(max, input[offset + j]);
    if (max === -Infinity) {
      output.fill(0, offset, offset + n);
      return;
    }
  }
  const shift = normalization === 'stable' ? max : 0;
  const exps = new Float64Array(n);
  let sum = 0;
  for (let j = 0; j < n; j++) {
    const e = Math.exp(input[offset + j] - shift);
    exps[j] = normalization === 'naive' ? Math.fround(e) : e;
    sum += exps[j];
  }
  if (sum === 0) {
    output.fill(0, offset, offset + n);
    return;
  }
  for (let j = 0; j < n; j++) output[offset + j] = exps[j] / sum;
}

/** Normalises every row of a row-major (rows, n) array; returns a new Float32Array. */
export function normalizeRows(input, rows, n, normalization) {
  const output = new Float32Array(rows * n);
  for (let r = 0; r < rows; r++) normalizeRow(input, output, r * n, n, normalization);
  return output;
}

/** softmax(x, {normalization, scale}): x (…, N) → { output }: each last-axis row of scale·x normalised. */
export function softmax(x, options) {
  const { rows, N } = checkedOnce('softmax', () => checkSoftmax(x, options));
  // scale·x rounded to float32, as the compiled core forms it before normalising. A −∞ entry is a
  // masked one and stays −∞ whatever the scale's sign (0·−∞ would be NaN).
  const scaled = options.scale === 1 ? x.data
    : x.data.map((value) => (value === -Infinity ? -Infinity : value * options.scale));
  return { output: { data: normalizeRows(scaled, rows, N, options.normalization), shape: [...x.shape] } };
}
