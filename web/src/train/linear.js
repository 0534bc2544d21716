// Where the model's matrix products run. The JS engine is ops.js's loops (float64 sums). The WASM engine
// sends them to the attention core's GEMM (`matmul` of the loaded WASM backend, docs/api.md "Fast path"), in
// float32: a linear layer's three products y = x·Wᵀ, dx = dy·W, dW = dyᵀ·x, and the forward attention's
// per-(batch, head) products S = Q·Kᵀ, O = P·V when T·d_head ≥ WASM_ATTENTION_MIN (below it the calls cost
// more than the work, and ops.js's loops run). On the SIMD build each attention block's backward is one API
// call, multiheadAttentionSplitBackward (attentionBlockBackward below: the C++ fused backward); on the
// baseline build the backward's products go to `matmul` as the forward's do (dx, dW per linear layer; dV, dP,
// dQ, dK per (batch, head) from WASM_ATTENTION_MIN). The mask, softmax, LayerNorm, cross-entropy and AdamW run
// in JS on both. The choice depends on
// the shapes alone and the WASM GEMM is deterministic for one build, so a seeded run stays reproducible bit
// for bit on the same build.
import {
  causalAttentionBackward as jsAttentionBackward, causalAttentionForward as jsAttentionForward,
  linearBackward as jsLinearBackward, linearForward as jsLinearForward,
} from './ops.js';

export const jsLinear = {
  name: 'js', linearForward: jsLinearForward, linearBackward: jsLinearBackward,
  causalAttentionForward: jsAttentionForward, causalAttentionBackward: jsAttentionBackward,
};

/** T·d_head from which the attention's products go to WASM (T=64, d_head=32 and up; not the tiny model). */
export const WASM_ATTENTION_MIN = 2048;

/** Head h of rows (B·T, d) for batch entry b → a contiguous float32 (T, d_head) block. */
function gatherHead(x, b, h, T, d, dh) {
  const out = new Float32Array(T * dh);
  for (let t = 0; t < T; t++) {
    const from = (b * T + t) * d + h * dh;
    for (let e = 0; e < dh; e++) out[t * dh + e] = x[from + e];
  }
  return out;
}
/** Writes a (T, d_head) block into head h of rows (B·T, d) for batch entry b. */
function scatterHead(block, b, h, T, d, dh, x) {
  for (let t = 0; t < T; t++) {
    const to = (b * T + t) * d + h * dh;
    for (let e = 0; e < dh; e++) x[to + e] = block[t * dh + e];
  }
}
function transpose(a, rows, cols) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = a[r * cols + c];
  return out;
}

/** The linear layers on a loaded WASM Attention object (its synchronous `matmul`). */
export function wasmLinear(attention) {
  const matmul = (a, M, K, b, N, transposeB) => attention.matmul(
    { data: a, shape: [M, K] }, { data: b, shape: transposeB ? [N, K] : [K, N] }, { transposeB },
  ).output.data;
  const f32 = (x) => (x instanceof Float32Array ? x : Float32Array.from(x));
  const engine = {
    name: attention.backend,
    linearForward(x, W, b, N, dIn, dOut) {
      const product = matmul(f32(x), N, dIn, W, dOut, true); // (N, in)·(out, in)ᵀ
      const y = new Float64Array(N * dOut);
      for (let n = 0; n < N; n++) for (let o = 0; o < dOut; o++) y[n * dOut + o] = product[n * dOut + o] + (b ? b[o] : 0);
      return y;
    },
    linearBackward(x, W, dy, N, dIn, dOut, gW, gb, needDx = true) {
      const dy32 = f32(dy);
      const dyT = new Float32Array(dOut * N); // (N, out) -> (out, N)
      for (let n = 0; n < N; n++) for (let o = 0; o < dOut; o++) dyT[o * N + n] = dy32[n * dOut + o];
      const dW = matmul(dyT, dOut, N, f32(x), dIn, false); // (out, N)·(N, in)
      for (let i = 0; i < dW.length; i++) gW[i] += dW[i];
      for (let o = 0; o < dOut; o++) {
        let sum = 0;
        for (let n = 0; n < N; n++) sum += dyT[o * N + n];
        gb[o] += sum;
      }
      return needDx ? Float64Array.from(matmul(dy32, N, dOut, W, dIn, false)) : null; // (N, out)·(out, in)
    },
    /**
     * One attention block's whole backward through the API (docs/api.md "Training"): from dh = dLoss/d(block
     * output) to the gradients of q/k/v/out_proj (added into g(name)) and dLoss/da (returned), as one
     * multiheadAttentionSplitBackward call — causal, intermediates false: the fused backward of the C++ core
     * (projections by GEMM, attention recomputed from each row's log-sum-exp), in place of the out_proj
     * backward, the attention's and the three projections' (model.js). torch's (out, in) weights are the
     * API's (in, out) transposed, and so are their gradients.
     */
    attentionBlockBackward(a, w, dh, B, T, d, H, g) {
      const matrix = (W) => ({ data: transpose(f32(W), d, d), shape: [d, d] });
      const vector = (b) => ({ data: f32(b), shape: [d] });
      const weights = {
        query: matrix(w('q_proj.weight')), key: matrix(w('k_proj.weight')), value: matrix(w('v_proj.weight')),
        queryBias: vector(w('q_proj.bias')), keyBias: vector(w('k_proj.bias')), valueBias: vector(w('v_proj.bias')),
        outWeight: matrix(w('out_proj.weight')), outBias: vector(w('out_proj.bias')),
      };
      const grads = attention.multiheadAttentionSplitBackward({ data: f32(a), shape: [B, T, d] }, weights,
        { data: f32(dh), shape: [B, T, d] }, { heads: H, causal: true, intermediates: false });
      const names = { query: 'q_proj', key: 'k_proj', value: 'v_proj', outWeight: 'out_proj' };
      for (const [key, layer] of Object.entries(names)) {
        const gW = g(`${layer}.weight`);
        const dW = grads[key].data; // (in, out) → torch's (out, in)
        for (let o = 0; o < d; o++) for (let i = 0; i < d; i++) gW[o * d + i] += dW[i * d + o];
      }
      for (const [key, layer] of Object.entries({ queryBias: 'q_proj', keyBias: 'k_proj', valueBias: 'v_proj', outBias: 'out_proj' })) {
        const gb = g(`${layer}.bias`);
        const db = grads[key].data;
        for (let o = 0; o < d; o++) gb[o] += db[o];
      }
      return Float64Array.from(grads.x.data);
    },
    /** As ops.js's causalAttentionForward, the two products per (b, h) on the GEMM. */
    causalAttentionForward(q, k, v, B, T, d, H) {
      const dh = d / H;
      if (T * dh < WASM_ATTENTION_MIN) return jsAttentionForward(q, k, v, B, T, d, H);
      const scale = 1 / Math.sqrt(dh);
      const P = new Float64Array(B * H * T * T);
      const context = new Float64Array(B * T * d);
      for (let b = 0; b < B; b++) {
        for (let h = 0; h < H; h++) {
          const scores = matmul(gatherHead(q, b, h, T, d, dh), T, dh, gatherHead(k, b, h, T, d, dh), T, true); // (T, T)
          const weights = new Float32Array(T * T);
          const base = (b * H + h) * T * T;
          for (let i = 0; i < T; i++) {
            // softmax over j ≤ i of the scaled scores; the future stays 0
            let max = -Infinity;
            for (let j = 0; j <= i; j++) max = Math.max(max, scores[i * T + j] * scale);
            let sum = 0;
            for (let j = 0; j <= i; j++) { const w = Math.exp(scores[i * T + j] * scale - max); P[base + i * T + j] = w; sum += w; }
            for (let j = 0; j <= i; j++) { P[base + i * T + j] /= sum; weights[i * T + j] = P[base + i * T + j]; }
          }
          scatterHead(matmul(weights, T, T, gatherHead(v, b, h, T, d, dh), dh, false), b, h, T, d, dh, context); // (T, T)·(T, d_head)
        }
      }
      return { weights: P, context };
    },
    /** As ops.js's causalAttentionBackward, the four products per (b, h) on the GEMM. */
    causalAttentionBackward(q, k, v, P, dContext, B, T, d, H) {
      const dh = d / H;
      if (T * dh < WASM_ATTENTION_MIN) return jsAttentionBackward(q, k, v, P, dContext, B, T, d, H);
      const scale = 1 / Math.sqrt(dh);
      const dq = new Float64Array(B * T * d);
      const dk = new Float64Array(B * T * d);
      const dv = new Float64Array(B * T * d);
      for (let b = 0; b < B; b++) {
        for (let h = 0; h < H; h++) {
          const base = (b * H + h) * T * T;
          const weightsT = new Float32Array(T * T); // Pᵀ
          for (let i = 0; i < T; i++) for (let j = 0; j <= i; j++) weightsT[j * T + i] = P[base + i * T + j];
          const dO = gatherHead(dContext, b, h, T, d, dh);
          scatterHead(matmul(weightsT, T, T, dO, dh, false), b, h, T, d, dh, dv); // dV = Pᵀ·dO
          const dP = matmul(dO, T, dh, gatherHead(v, b, h, T, d, dh), T, true); // dO·Vᵀ (T, T)
          const dS = new Float32Array(T * T);
          for (let i = 0; i < T; i++) {
            let dot = 0;
            for (let j = 0; j <= i; j++) dot += dP[i * T + j] * P[base + i * T + j];
            for (let j = 0; j <= i; j++) dS[i * T + j] = P[base + i * T + j] * (dP[i * T + j] - dot) * scale;
          }
          scatterHead(matmul(dS, T, T, gatherHead(k, b, h, T, d, dh), dh, false), b, h, T, d, dh, dq); // dQ = dS·K
          scatterHead(matmul(transpose(dS, T, T), T, T, gatherHead(q, b, h, T, d, dh), dh, false), b, h, T, d, dh, dk); // dK = dSᵀ·Q
        }
      }
      return { dq, dk, dv };
    },
  };
  // Where it pays: on the SIMD build the one call beats the separate products (tiny model, forward+backward
  // 33–36 → 27–31 ms of CPU); on the baseline build it loses (62–66 → 70–73 ms), so model.js keeps those there.
  if (attention.backend !== 'wasm-simd') delete engine.attentionBlockBackward;
  return engine;
}
