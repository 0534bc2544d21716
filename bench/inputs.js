// The benchmark's inputs: seeded, so every contestant (and every run of the suite) sees the same numbers.
//   GEMM n:  a, b (n, n) uniform in [-1, 1).
//   MHA T:   x (1, T, 768) uniform in [-1, 1); Wq, Wk, Wv, Wo (768, 768) and their biases uniform in
//            ±1/√768, as torch.nn.Linear initialises them; 12 heads of 64, causal.
import { mulberry32 } from '../web/src/core/random.js';

export const D_MODEL = 768;
export const HEADS = 12;

export function uniform(length, seed, bound = 1) {
  const next = mulberry32(seed);
  const data = new Float32Array(length);
  for (let i = 0; i < length; i++) data[i] = (next() * 2 - 1) * bound;
  return data;
}

/** {a, b} for C = A·B, n×n each. */
export function gemmInputs(n) {
  return { n, a: uniform(n * n, 1000 + n), b: uniform(n * n, 2000 + n) };
}

const weightCache = new Map();

/** The attention layer's parameters (the same for every T). */
export function attentionWeights(dModel = D_MODEL) {
  if (!weightCache.has(dModel)) {
    const bound = 1 / Math.sqrt(dModel);
    const matrix = (seed) => uniform(dModel * dModel, seed, bound);
    const vector = (seed) => uniform(dModel, seed, bound);
    weightCache.set(dModel, {
      query: matrix(11), key: matrix(12), value: matrix(13), out: matrix(14),
      queryBias: vector(21), keyBias: vector(22), valueBias: vector(23), outBias: vector(24),
    });
  }
  return weightCache.get(dModel);
}

/** {x (1, T, d_model), weights, T, dModel, heads} for causal multi-head attention with projections. */
export function attentionInputs(T, { dModel = D_MODEL, heads = HEADS } = {}) {
  return { T, dModel, heads, x: uniform(T * dModel, 3000 + T), weights: attentionWeights(dModel) };
}
