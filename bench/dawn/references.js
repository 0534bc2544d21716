// References that scale to the GPU sizes (GEMM n = 4096, attention T = 4096). The suite's own references
// (bench/suite.js: a float64 triple loop, the Eigen teaching path) are whole-output and take minutes there
// (the teaching path's (H, T, T) intermediates alone are 0.8 GB at T = 4096), so above FULL_REFERENCE_MAX
// the reference is a few whole rows of the output, computed in float64 from the same inputs: the first two
// (the causal mask at its narrowest), the last two (every key) and three between. compareOutputs checks
// those rows of every contestant's output (the format {length, indices, values}).
import { TASKS } from '../suite.js';

/** Up to this size the suite's own whole-output reference runs. */
export const FULL_REFERENCE_MAX = { gemm: 1024, attention: 1024 };

/** The output rows checked at size n: 0, 1, n/4, n/2, 3n/4, n − 2, n − 1. */
export function sampledRows(n) {
  return [...new Set([0, 1, n >> 2, n >> 1, (3 * n) >> 2, n - 2, n - 1].filter((r) => r >= 0 && r < n))].sort((a, b) => a - b);
}

function rowsExpected(rows, width, totalRows, values) {
  const indices = new Uint32Array(rows.length * width);
  rows.forEach((row, r) => { for (let j = 0; j < width; j++) indices[r * width + j] = row * width + j; });
  return { length: totalRows * width, indices, values };
}

/** Rows `rows` of C = A·B (n×n), float64 sums. */
export function gemmRowsFloat64({ a, b, n }, rows = sampledRows(n)) {
  const values = new Float64Array(rows.length * n);
  rows.forEach((i, r) => {
    const out = values.subarray(r * n, (r + 1) * n);
    for (let k = 0; k < n; k++) {
      const aik = a[i * n + k];
      const offset = k * n;
      for (let j = 0; j < n; j++) out[j] += aik * b[offset + j];
    }
  });
  return rowsExpected(rows, n, n, values);
}

/** (count, d) = x[first .. first + count)·W + bias, float64. */
function project(x, first, count, d, weight, bias) {
  const y = new Float64Array(count * d);
  for (let r = 0; r < count; r++) {
    const out = y.subarray(r * d, (r + 1) * d);
    for (let k = 0; k < d; k++) {
      const xrk = x[(first + r) * d + k];
      const offset = k * d;
      for (let j = 0; j < d; j++) out[j] += xrk * weight[offset + j];
    }
    for (let j = 0; j < d; j++) out[j] += bias[j];
  }
  return y;
}

/**
 * Rows `rows` of causal multi-head attention with projections (bench/inputs.js's layer), float64: K and V
 * for every position up to the last row asked for, Q for the rows asked for, per head a stable softmax
 * over keys j ≤ i scaled by 1/√d_head, the weighted values, then the output projection.
 */
export function attentionRowsFloat64({ x, T, dModel: d, heads, weights: w }, rows = sampledRows(T)) {
  const dHead = d / heads;
  const scale = 1 / Math.sqrt(dHead);
  const last = Math.max(...rows);
  const k = project(x, 0, last + 1, d, w.key, w.keyBias);
  const v = project(x, 0, last + 1, d, w.value, w.valueBias);
  const values = new Float64Array(rows.length * d);
  const scores = new Float64Array(last + 1);
  rows.forEach((i, r) => {
    const q = project(x, i, 1, d, w.query, w.queryBias);
    const context = new Float64Array(d);
    for (let h = 0; h < heads; h++) {
      const column = h * dHead;
      let max = -Infinity;
      for (let j = 0; j <= i; j++) {
        let dot = 0;
        for (let p = 0; p < dHead; p++) dot += q[column + p] * k[j * d + column + p];
        scores[j] = dot * scale;
        if (scores[j] > max) max = scores[j];
      }
      let sum = 0;
      for (let j = 0; j <= i; j++) { scores[j] = Math.exp(scores[j] - max); sum += scores[j]; }
      for (let j = 0; j <= i; j++) {
        const weight = scores[j] / sum;
        for (let p = 0; p < dHead; p++) context[column + p] += weight * v[j * d + column + p];
      }
    }
    const out = values.subarray(r * d, (r + 1) * d);
    for (let c = 0; c < d; c++) {
      const value = context[c];
      for (let j = 0; j < d; j++) out[j] += value * w.out[c * d + j];
    }
    for (let j = 0; j < d; j++) out[j] += w.outBias[j];
  });
  return rowsExpected(rows, d, T, values);
}

/** runSuite's taskOverrides: the suite's reference up to FULL_REFERENCE_MAX, sampled float64 rows above. */
export function scalingReferences() {
  const rows = (n) => `above that, rows 0, 1, ${n}/4, ${n}/2, 3${n}/4, ${n}−2 and ${n}−1 of the output in float64 (bench/dawn/references.js)`;
  return {
    gemm: {
      reference: async (inputs) => (inputs.n <= FULL_REFERENCE_MAX.gemm ? TASKS.gemm.reference(inputs) : gemmRowsFloat64(inputs)),
      referenceName: `${TASKS.gemm.referenceName} up to n=${FULL_REFERENCE_MAX.gemm}; ${rows('n')}`,
    },
    attention: {
      reference: async (inputs) => (inputs.T <= FULL_REFERENCE_MAX.attention ? TASKS.attention.reference(inputs) : attentionRowsFloat64(inputs)),
      referenceName: `${TASKS.attention.referenceName} up to T=${FULL_REFERENCE_MAX.attention}; ${rows('T')}`,
    },
  };
}
