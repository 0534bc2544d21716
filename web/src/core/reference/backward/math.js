// The backward pass of attention, written once over an array type: Float32Array is the JS reference
// (every result rounded to float32 like the forward), Float64Array is the float64 variant that only the
// finite-difference test uses. Sums are carried in JS numbers (float64) in both.
//
// Forward (per batch entry and head; docs/api.md "Options"):
//   S = Q·Kᵀ;  Z = S·c with c = (scale ? 1/√d_head : 1)/temperature;  M = mask(Z);  P = softmax-rows(M);
//   D = P ⊙ keep/(1 − p) (dropout, keep from the documented RNG);  O = D·V.
// Backward, given dO:
//   dV = Dᵀ·dO;  dD = dO·Vᵀ;  dP = dD ⊙ keep/(1 − p);
//   dM = P ⊙ (dP − rowsum(dP ⊙ P))                 (softmax's Jacobian, row by row);
//   dZ = dM, except in 'zero' mode's future entries, where M is the constant 0 and dZ = 0
//        ('neg_inf' and 'renormalize' give P = 0 there, so dM is already 0: both are softmax over the past);
//   dS = dZ·c;  dQ = dS·K;  dK = dSᵀ·Q.
import { dropoutKeeps, dropoutScale } from '../dropout.js';

export function makeAttentionMath(F) {
  /** c = a·b (a (M, K), b (K, N)), a·bᵀ (b (N, K)) or aᵀ·b (a (K, M)); returns a new (M, N) array. */
  function matmul(a, b, M, K, N, { transA = false, transB = false } = {}) {
    const c = new F(M * N);
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        let sum = 0;
        for (let k = 0; k < K; k++) {
          sum += (transA ? a[k * M + i] : a[i * K + k]) * (transB ? b[j * K + k] : b[k * N + j]);
        }
        c[i * N + j] = sum;
      }
    }
    return c;
  }

  /** y = x·W + bias (layout 'matrix', W (d_in, d_out)) or x·Wᵀ + bias ('linear', W (d_out, d_in)). */
  function project(x, rows, dIn, weight, bias, layout = 'matrix') {
    const dOut = layout === 'linear' ? weight.shape[0] : weight.shape[1];
    const y = matmul(x, weight.data, rows, dIn, dOut, { transB: layout === 'linear' });
    if (bias) for (let r = 0; r < rows; r++) for (let j = 0; j < dOut; j++) y[r * dOut + j] += bias.data[j];
    return y;
  }

  /**
   * The gradients of a projection y = x·W + b given dY (rows, d_out): { dX (rows, d_in), dW (W's layout),
   * dBias (d_out) }. dX = dY·Wᵀ ('matrix') or dY·W ('linear'); dW = xᵀ·dY or dYᵀ·x; dBias = Σ_rows dY.
   */
  function projectBackward(x, rows, dIn, weight, dY, layout = 'matrix') {
    const linear = layout === 'linear';
    const dOut = linear ? weight.shape[0] : weight.shape[1];
    const dX = matmul(dY, weight.data, rows, dOut, dIn, { transB: !linear });
    const dW = linear ? matmul(dY, x, dOut, rows, dIn, { transA: true }) : matmul(x, dY, dIn, rows, dOut, { transA: true });
    const dBias = new F(dOut);
    for (let j = 0; j < dOut; j++) {
      let sum = 0;
      for (let r = 0; r < rows; r++) sum += dY[r * dOut + j];
      dBias[j] = sum;
    }
    return { dX, dW, dBias };
  }

  /**
   * Attention forward for query (B, H, Tq, d_head), key, value (B, H, Tk, d_head), flat arrays
   * → { weights P, attended D (P after dropout), context O }; the same math as scaled-dot-product.js.
   */
  function attentionForward(query, key, value, { B, H, Tq, Tk, dHead }, options) {
    const blocks = B * H;
    const block = Tq * Tk;
    const factor = (options.scale ? 1 / Math.sqrt(dHead) : 1) / options.temperature;
    const weights = new F(blocks * block);
    const row = new Float64Array(Tk);
    const scaledRow = new F(Tk);
    for (let n = 0; n < blocks; n++) {
      const scores = matmul(query.subarray(n * Tq * dHead, (n + 1) * Tq * dHead),
        key.subarray(n * Tk * dHead, (n + 1) * Tk * dHead), Tq, dHead, Tk, { transB: true });
      for (let i = 0; i < Tq; i++) {
        for (let j = 0; j < Tk; j++) scaledRow[j] = scores[i * Tk + j] * factor;
        const future = (j) => options.causal && j > i;
        let max = -Infinity;
        for (let j = 0; j < Tk; j++) {
          // 'zero' mode puts 0 in the future; 'neg_inf' and 'renormalize' both come to softmax over the past.
          row[j] = future(j) ? (options.mask === 'zero' ? 0 : -Infinity) : scaledRow[j];
          if (row[j] > max) max = row[j];
        }
        const offset = n * block + i * Tk;
        if (max === -Infinity) continue; // a fully masked row keeps weights 0
        let sum = 0;
        const exps = new F(Tk);
        for (let j = 0; j < Tk; j++) { exps[j] = Math.exp(row[j] - max); sum += exps[j]; }
        for (let j = 0; j < Tk; j++) weights[offset + j] = exps[j] / sum;
      }
    }
    let attended = weights;
    let kept = null; // the dropout mask over the flat (B, H, Tq, Tk) weights, kept for the backward
    if (options.dropout > 0) {
      attended = new F(weights.length);
      kept = dropoutKeeps(weights.length, options.dropout, options.seed, options.dropoutRng);
      const keepScale = dropoutScale(options.dropout, options.dropoutRng);
      for (let i = 0; i < weights.length; i++) {
        if (kept[i]) attended[i] = weights[i] * keepScale;
      }
    }
    const context = new F(blocks * Tq * dHead);
    for (let n = 0; n < blocks; n++) {
      context.set(matmul(attended.subarray(n * block, (n + 1) * block), value.subarray(n * Tk * dHead, (n + 1) * Tk * dHead),
        Tq, Tk, dHead), n * Tq * dHead);
    }
    return { weights, attended, kept, context };
  }

  /** The backward of attentionForward given dContext (B, H, Tq, d_head) → { dQuery, dKey, dValue }. */
  function attentionBackward(query, key, value, saved, dContext, { B, H, Tq, Tk, dHead }, options) {
    const blocks = B * H;
    const block = Tq * Tk;
    const factor = (options.scale ? 1 / Math.sqrt(dHead) : 1) / options.temperature;
    const keepScale = options.dropout > 0 ? dropoutScale(options.dropout, options.dropoutRng) : 1;
    const dQuery = new F(query.length);
    const dKey = new F(key.length);
    const dValue = new F(value.length);
    for (let n = 0; n < blocks; n++) {
      const q = query.subarray(n * Tq * dHead, (n + 1) * Tq * dHead);
      const k = key.subarray(n * Tk * dHead, (n + 1) * Tk * dHead);
      const v = value.subarray(n * Tk * dHead, (n + 1) * Tk * dHead);
      const p = saved.weights.subarray(n * block, (n + 1) * block);
      const d = saved.attended.subarray(n * block, (n + 1) * block);
      const dO = dContext.subarray(n * Tq * dHead, (n + 1) * Tq * dHead);
      // dV = Dᵀ·dO  (Tk, Tq)·(Tq, d_head);  dD = dO·Vᵀ  (Tq, d_head)·(d_head, Tk)
      dValue.set(matmul(d, dO, Tk, Tq, dHead, { transA: true }), n * Tk * dHead);
      const dP = matmul(dO, v, Tq, dHead, Tk, { transB: true });
      if (options.dropout > 0) {
        for (let e = 0; e < block; e++) {
          dP[e] = saved.kept[n * block + e] ? dP[e] * keepScale : 0;
        }
      }
      // dS = c · P ⊙ (dP − rowsum(dP ⊙ P)), 0 in 'zero' mode's future.
      const dS = new F(block);
      for (let i = 0; i < Tq; i++) {
        let dot = 0;
        for (let j = 0; j < Tk; j++) dot += dP[i * Tk + j] * p[i * Tk + j];
        for (let j = 0; j < Tk; j++) {
          const future = options.causal && j > i;
          dS[i * Tk + j] = future ? 0 : p[i * Tk + j] * (dP[i * Tk + j] - dot) * factor;
        }
      }
      dQuery.set(matmul(dS, k, Tq, Tk, dHead), n * Tq * dHead);
      dKey.set(matmul(dS, q, Tk, Tq, dHead, { transA: true }), n * Tk * dHead);
    }
    return { dQuery, dKey, dValue };
  }

  /** (B, T, H·d_head) -> (B, H, T, d_head) */
  function splitHeads(data, B, T, H, dHead) {
    const out = new F(data.length);
    for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) for (let t = 0; t < T; t++) {
      const from = (b * T + t) * H * dHead + h * dHead;
      out.set(data.subarray(from, from + dHead), ((b * H + h) * T + t) * dHead);
    }
    return out;
  }

  /** (B, H, T, d_head) -> (B, T, H·d_head) */
  function mergeHeads(data, B, H, T, dHead) {
    const out = new F(data.length);
    for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) for (let t = 0; t < T; t++) {
      const from = ((b * H + h) * T + t) * dHead;
      out.set(data.subarray(from, from + dHead), (b * T + t) * H * dHead + h * dHead);
    }
    return out;
  }

  return { F, matmul, project, projectBackward, attentionForward, attentionBackward, splitHeads, mergeHeads };
}

export const math32 = makeAttentionMath(Float32Array);
export const math64 = makeAttentionMath(Float64Array);
