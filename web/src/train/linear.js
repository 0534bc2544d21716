// Where the JS model's matrix products run (model.js runModel). The JS engine is ops.js's loops (float64 sums).
// The WASM engine serves the trainer's attention() and predict() (its step() and evaluate() run whole in the
// WASM heap, native.js): it sends the forward's products to the attention core's GEMM (`matmul` of the loaded
// WASM backend, docs/api.md "Fast path"), in float32: a linear layer's y = x·Wᵀ, and the attention's
// per-(batch, head) products S = Q·Kᵀ, O = P·V when T·d_head ≥ WASM_ATTENTION_MIN (below it the calls cost
// more than the work, and ops.js's loops run); a backward through it runs ops.js's loops. The choice depends
// on the shapes alone and the WASM GEMM is deterministic for one build, so the results are reproducible bit for
// bit on the same build.
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
    // The backward runs in the resident model on WASM (native.js); here, for runModel's gradients, the JS loops.
    linearBackward: jsLinearBackward,
    causalAttentionBackward: jsAttentionBackward,
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
  };
  return engine;
}
