// Where the linear layers' matrix products run. The JS engine is ops.js's loops (float64 sums); the WASM
// engine sends the three products of a linear layer to the attention core's GEMM (`matmul` of the loaded
// WASM backend, docs/api.md "Fast path"): y = x·Wᵀ, dx = dy·W, dW = dyᵀ·x, in float32. Everything else
// (attention, LayerNorm, cross-entropy, AdamW) runs in JS on both. The WASM GEMM is deterministic for one
// build, so a seeded run stays reproducible bit for bit on the same build.
import { linearBackward as jsLinearBackward, linearForward as jsLinearForward } from './ops.js';

export const jsLinear = { name: 'js', linearForward: jsLinearForward, linearBackward: jsLinearBackward };

/** The linear layers on a loaded WASM Attention object (its synchronous `matmul`). */
export function wasmLinear(attention) {
  const matmul = (a, M, K, b, N, transposeB) => attention.matmul(
    { data: a, shape: [M, K] }, { data: b, shape: transposeB ? [N, K] : [K, N] }, { transposeB },
  ).output.data;
  const f32 = (x) => (x instanceof Float32Array ? x : Float32Array.from(x));
  return {
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
  };
}
