// The model's building blocks, forward and backward, as plain loops over Float64Array activations
// (parameters and gradients stay float32 where they leave the model). Rows are contiguous, so every
// inner loop walks memory in order.

/**
 * Σ_e a[ao + e]·b[bo + e] over e < n, in four partial sums added as (s0 + s1 + s2 + s3): the short d_head
 * and d_model loops run about 1.5× faster unrolled, and every caller sums in this one order.
 */
function dot(a, ao, b, bo, n) {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  let e = 0;
  for (; e + 3 < n; e += 4) {
    s0 += a[ao + e] * b[bo + e]; s1 += a[ao + e + 1] * b[bo + e + 1];
    s2 += a[ao + e + 2] * b[bo + e + 2]; s3 += a[ao + e + 3] * b[bo + e + 3];
  }
  for (; e < n; e++) s0 += a[ao + e] * b[bo + e];
  return s0 + s1 + s2 + s3;
}

/** y (N, out) = x (N, in)·Wᵀ + b, W stored like torch.nn.Linear.weight (out, in). */
export function linearForward(x, W, b, N, dIn, dOut) {
  const y = new Float64Array(N * dOut);
  for (let n = 0; n < N; n++) {
    const xo = n * dIn;
    for (let o = 0; o < dOut; o++) {
      y[n * dOut + o] = (b ? b[o] : 0) + dot(x, xo, W, o * dIn, dIn);
    }
  }
  return y;
}

/**
 * The gradients of linearForward given dy (N, out): gW (out, in) += dyᵀ·x, gb (out) += Σ_n dy, and
 * returns dx (N, in) = dy·W (or null when needDx is false). gW and gb are Float64Array accumulators; gb null
 * for a bias whose gradient is known to be 0 (model.js: the keys').
 */
export function linearBackward(x, W, dy, N, dIn, dOut, gW, gb, needDx = true) {
  const dx = needDx ? new Float64Array(N * dIn) : null;
  for (let n = 0; n < N; n++) {
    const xo = n * dIn;
    for (let o = 0; o < dOut; o++) {
      const g = dy[n * dOut + o];
      if (g === 0) continue;
      if (gb) gb[o] += g;
      const wo = o * dIn;
      let i = 0;
      for (; i + 3 < dIn; i += 4) {
        gW[wo + i] += g * x[xo + i]; gW[wo + i + 1] += g * x[xo + i + 1];
        gW[wo + i + 2] += g * x[xo + i + 2]; gW[wo + i + 3] += g * x[xo + i + 3];
      }
      for (; i < dIn; i++) gW[wo + i] += g * x[xo + i];
      if (!dx) continue;
      i = 0;
      for (; i + 3 < dIn; i += 4) {
        dx[xo + i] += g * W[wo + i]; dx[xo + i + 1] += g * W[wo + i + 1];
        dx[xo + i + 2] += g * W[wo + i + 2]; dx[xo + i + 3] += g * W[wo + i + 3];
      }
      for (; i < dIn; i++) dx[xo + i] += g * W[wo + i];
    }
  }
  return dx;
}

const LN_EPS = 1e-5; // torch.nn.LayerNorm's default

/** LayerNorm over the last axis (biased variance, eps 1e-5) → { y, xhat, rstd }. */
export function layerNormForward(x, gamma, beta, N, d) {
  const y = new Float64Array(N * d);
  const xhat = new Float64Array(N * d);
  const rstd = new Float64Array(N);
  for (let n = 0; n < N; n++) {
    const o = n * d;
    let mean = 0;
    for (let i = 0; i < d; i++) mean += x[o + i];
    mean /= d;
    let variance = 0;
    for (let i = 0; i < d; i++) { const c = x[o + i] - mean; variance += c * c; }
    const r = 1 / Math.sqrt(variance / d + LN_EPS);
    rstd[n] = r;
    for (let i = 0; i < d; i++) {
      const h = (x[o + i] - mean) * r;
      xhat[o + i] = h;
      y[o + i] = h * gamma[i] + beta[i];
    }
  }
  return { y, xhat, rstd };
}

/** dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)) with dx̂ = dy·γ; gGamma += Σ dy·x̂; gBeta += Σ dy. */
export function layerNormBackward(saved, gamma, dy, N, d, gGamma, gBeta) {
  const { xhat, rstd } = saved;
  const dx = new Float64Array(N * d);
  for (let n = 0; n < N; n++) {
    const o = n * d;
    let meanD = 0;
    let meanDX = 0;
    for (let i = 0; i < d; i++) {
      const g = dy[o + i];
      gGamma[i] += g * xhat[o + i];
      gBeta[i] += g;
      const dh = g * gamma[i];
      meanD += dh;
      meanDX += dh * xhat[o + i];
    }
    meanD /= d;
    meanDX /= d;
    for (let i = 0; i < d; i++) dx[o + i] = rstd[n] * (dy[o + i] * gamma[i] - meanD - xhat[o + i] * meanDX);
  }
  return dx;
}

/**
 * The query rows of causal attention on (B, T, d) with H heads of d/H columns, four numbers a row: the query's
 * position i, its row's offset in the weights (B, H, T, T), its own offset, and the offset of token 0 in its head
 * (token j's is head + j·d). The forward and the backward walk the same rows.
 */
function queryRows(B, T, d, H) {
  const dh = d / H;
  const rows = new Int32Array(B * H * T * 4);
  let r = 0;
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let i = 0; i < T; i++) {
        rows[r++] = i;
        rows[r++] = ((b * H + h) * T + i) * T;
        rows[r++] = (b * T + i) * d + h * dh;
        rows[r++] = b * T * d + h * dh;
      }
    }
  }
  return rows;
}

/**
 * Causal multi-head attention on q, k, v (B, T, d) with H heads of d/H columns each:
 * P[b, h, i, j] = softmax over j ≤ i of q_i·k_j/√d_head (0 for j > i); context_i = Σ_j P_ij v_j.
 * → { weights P (B, H, T, T), context (B, T, d) }.
 */
export function causalAttentionForward(q, k, v, B, T, d, H) {
  const dh = d / H;
  const scale = 1 / Math.sqrt(dh);
  const P = new Float64Array(B * H * T * T);
  const context = new Float64Array(B * T * d);
  const rows = queryRows(B, T, d, H);
  for (let r = 0; r < rows.length; r += 4) {
    const i = rows[r], row = rows[r + 1], qo = rows[r + 2], head = rows[r + 3];
    let max = -Infinity;
    for (let j = 0; j <= i; j++) {
      const s = dot(q, qo, k, head + j * d, dh) * scale;
      P[row + j] = s;
      if (s > max) max = s;
    }
    let sum = 0;
    for (let j = 0; j <= i; j++) { const w = Math.exp(P[row + j] - max); P[row + j] = w; sum += w; }
    const inv = 1 / sum;
    for (let j = 0; j <= i; j++) {
      const w = P[row + j] * inv;
      P[row + j] = w;
      const vo = head + j * d;
      let e = 0;
      for (; e + 3 < dh; e += 4) {
        context[qo + e] += w * v[vo + e]; context[qo + e + 1] += w * v[vo + e + 1];
        context[qo + e + 2] += w * v[vo + e + 2]; context[qo + e + 3] += w * v[vo + e + 3];
      }
      for (; e < dh; e++) context[qo + e] += w * v[vo + e];
    }
  }
  return { weights: P, context };
}

/**
 * The backward of causalAttentionForward given dContext (B, T, d):
 * dV_j = Σ_i P_ij dC_i; dP_ij = dC_i·v_j; dS = P ⊙ (dP − Σ_j P dP)/√d_head; dQ_i = Σ_j dS_ij k_j; dK_j = Σ_i dS_ij q_i.
 */
export function causalAttentionBackward(q, k, v, P, dContext, B, T, d, H) {
  const dh = d / H;
  const scale = 1 / Math.sqrt(dh);
  const dq = new Float64Array(B * T * d);
  const dk = new Float64Array(B * T * d);
  const dv = new Float64Array(B * T * d);
  const dP = new Float64Array(T);
  const rows = queryRows(B, T, d, H);
  for (let r = 0; r < rows.length; r += 4) {
    const i = rows[r], row = rows[r + 1], qo = rows[r + 2], head = rows[r + 3];
    let dot = 0;
    for (let j = 0; j <= i; j++) {
      const vo = head + j * d;
      const w = P[row + j];
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      let e = 0;
      for (; e + 3 < dh; e += 4) {
        const g0 = dContext[qo + e], g1 = dContext[qo + e + 1], g2 = dContext[qo + e + 2], g3 = dContext[qo + e + 3];
        s0 += g0 * v[vo + e]; s1 += g1 * v[vo + e + 1]; s2 += g2 * v[vo + e + 2]; s3 += g3 * v[vo + e + 3];
        dv[vo + e] += w * g0; dv[vo + e + 1] += w * g1; dv[vo + e + 2] += w * g2; dv[vo + e + 3] += w * g3;
      }
      for (; e < dh; e++) { s0 += dContext[qo + e] * v[vo + e]; dv[vo + e] += w * dContext[qo + e]; }
      const s = s0 + s1 + s2 + s3;
      dP[j] = s;
      dot += s * w;
    }
    for (let j = 0; j <= i; j++) {
      const ds = P[row + j] * (dP[j] - dot) * scale;
      if (ds === 0) continue;
      const ko = head + j * d;
      let e = 0;
      for (; e + 3 < dh; e += 4) {
        dq[qo + e] += ds * k[ko + e]; dq[qo + e + 1] += ds * k[ko + e + 1];
        dq[qo + e + 2] += ds * k[ko + e + 2]; dq[qo + e + 3] += ds * k[ko + e + 3];
        dk[ko + e] += ds * q[qo + e]; dk[ko + e + 1] += ds * q[qo + e + 1];
        dk[ko + e + 2] += ds * q[qo + e + 2]; dk[ko + e + 3] += ds * q[qo + e + 3];
      }
      for (; e < dh; e++) { dq[qo + e] += ds * k[ko + e]; dk[ko + e] += ds * q[qo + e]; }
    }
  }
  return { dq, dk, dv };
}

/**
 * Mean cross-entropy of logits (N, V) against targets (N), targets −100 ignored (F.cross_entropy's
 * ignore_index) → { loss, correct, count, dLogits } with dLogits = (softmax − onehot)/count on counted rows.
 * With no counted row the loss is 0 (PyTorch gives NaN) and every gradient is 0.
 */
export function crossEntropy(logits, targets, N, V, wantGradient = true) {
  let count = 0;
  for (let n = 0; n < N; n++) if (targets[n] !== -100) count++;
  const dLogits = wantGradient ? new Float64Array(N * V) : null;
  let loss = 0;
  let correct = 0;
  for (let n = 0; n < N; n++) {
    const t = targets[n];
    if (t === -100) continue;
    const o = n * V;
    let max = -Infinity;
    let arg = 0;
    for (let c = 0; c < V; c++) if (logits[o + c] > max) { max = logits[o + c]; arg = c; }
    let sum = 0;
    for (let c = 0; c < V; c++) sum += Math.exp(logits[o + c] - max);
    loss += Math.log(sum) + max - logits[o + t];
    if (arg === t) correct++;
    if (dLogits) {
      for (let c = 0; c < V; c++) dLogits[o + c] = Math.exp(logits[o + c] - max) / sum / count;
      dLogits[o + t] -= 1 / count;
    }
  }
  return { loss: count ? loss / count : 0, correct, count, dLogits };
}
