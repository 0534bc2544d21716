// Plain JavaScript, written the obvious way: the "naive JS" contestant and the GEMM reference.

/** C = A·B, (n, n) each, float64 sums (the reference: its own rounding is negligible). */
export function gemmFloat64(a, b, n) {
  const c = new Float32Array(n * n);
  const row = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    row.fill(0);
    for (let k = 0; k < n; k++) {
      const aik = a[i * n + k];
      const offset = k * n;
      for (let j = 0; j < n; j++) row[j] += aik * b[offset + j];
    }
    c.set(row, i * n);
  }
  return c;
}

/** C = A·B the textbook way: one dot product per output, float32 storage. */
export function gemmNaive(a, b, n) {
  const c = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let k = 0; k < n; k++) sum += a[i * n + k] * b[k * n + j];
      c[i * n + j] = sum;
    }
  }
  return c;
}

/** y (rows, d) = x (rows, d)·W (d, d) + bias. */
function project(x, rows, d, weight, bias) {
  const y = new Float32Array(rows * d);
  for (let r = 0; r < rows; r++) {
    for (let k = 0; k < d; k++) {
      const xrk = x[r * d + k];
      for (let j = 0; j < d; j++) y[r * d + j] += xrk * weight[k * d + j];
    }
    for (let j = 0; j < d; j++) y[r * d + j] += bias[j];
  }
  return y;
}

/**
 * Causal multi-head attention with projections, (T, d) → (T, d): Q, K, V projections, per head and
 * query row the scores against keys j ≤ i, a stable softmax, the weighted sum of values; then the
 * output projection.
 */
export function attentionNaive({ x, T, dModel: d, heads, weights: w }) {
  const dHead = d / heads;
  const q = project(x, T, d, w.query, w.queryBias);
  const k = project(x, T, d, w.key, w.keyBias);
  const v = project(x, T, d, w.value, w.valueBias);
  const context = new Float32Array(T * d);
  const scores = new Float32Array(T);
  const scale = 1 / Math.sqrt(dHead);
  for (let h = 0; h < heads; h++) {
    const column = h * dHead;
    for (let i = 0; i < T; i++) {
      let max = -Infinity;
      for (let j = 0; j <= i; j++) {
        let dot = 0;
        for (let p = 0; p < dHead; p++) dot += q[i * d + column + p] * k[j * d + column + p];
        scores[j] = dot * scale;
        if (scores[j] > max) max = scores[j];
      }
      let sum = 0;
      for (let j = 0; j <= i; j++) {
        scores[j] = Math.exp(scores[j] - max);
        sum += scores[j];
      }
      for (let j = 0; j <= i; j++) {
        const weight = scores[j] / sum;
        for (let p = 0; p < dHead; p++) context[i * d + column + p] += weight * v[j * d + column + p];
      }
    }
  }
  return project(context, T, d, w.out, w.outBias);
}
