// The matrix work every step shares, written as the plain loops of the math. Sums are carried in
// float64 (JS numbers) and stored as float32, so the only rounding is the final one per element.
import { checkMatmul } from './checks.js';
import { checkedOnce } from '../api-checked.js';

/**
 * c = a·b for row-major a (M, K) and b (K, N), or a·bᵀ when b is stored (N, K).
 * Returns a new Float32Array (M, N).
 */
export function matmulRaw(a, b, M, K, N, transposeB = false) {
  const c = new Float32Array(M * N);
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let sum = 0;
      for (let k = 0; k < K; k++) sum += a[i * K + k] * (transposeB ? b[j * K + k] : b[k * N + j]);
      c[i * N + j] = sum;
    }
  }
  return c;
}

/**
 * The fast path's matmul, done slowly: a (M, K) or (B, M, K); b (K, N), or (N, K) with transposeB
 * → { output: (M, N) or (B, M, N) }. b is shared by every batch entry.
 */
export function matmul(a, b, options) {
  const { batch, M, K, N } = checkedOnce('matmul', () => checkMatmul(a, b, options));
  const output = new Float32Array(batch * M * N);
  for (let n = 0; n < batch; n++) {
    const slice = a.data.subarray(n * M * K, (n + 1) * M * K);
    output.set(matmulRaw(slice, b.data, M, K, N, options.transposeB), n * M * N);
  }
  const shape = a.shape.length === 3 ? [batch, M, N] : [M, N];
  return { output: { data: output, shape } };
}

/**
 * A linear projection of every row: y = x·W + bias, x (rows, d_in) → y (rows, d_out).
 * layout 'matrix': W is (d_in, d_out); 'linear': W is stored like torch.nn.Linear.weight, (d_out, d_in),
 * and used as x·Wᵀ. A missing bias adds nothing.
 */
export function project(x, rows, dIn, weight, bias, layout = 'matrix') {
  const dOut = layout === 'linear' ? weight.shape[0] : weight.shape[1];
  const y = matmulRaw(x, weight.data, rows, dIn, dOut, layout === 'linear');
  if (bias) {
    for (let r = 0; r < rows; r++) {
      for (let j = 0; j < dOut; j++) y[r * dOut + j] += bias.data[j];
    }
  }
  return y;
}

/** Columns [start, start + count) of a row-major (rows, width) matrix, as a new (rows, count) matrix. */
export function takeColumns(data, rows, width, start, count) {
  const out = new Float32Array(rows * count);
  for (let r = 0; r < rows; r++) out.set(data.subarray(r * width + start, r * width + start + count), r * count);
  return out;
}

/**
 * The heads' rows of d_head floats moved between the two layouts: (B, T, H·d_head), where head h is
 * columns [h·d_head, (h+1)·d_head) of each token, and (B, H, T, d_head), where each head is its own block.
 */
function moveHeadRows(data, B, T, H, dHead, toBlocks) {
  const out = new Float32Array(data.length);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let t = 0; t < T; t++) {
        const columns = (b * T + t) * H * dHead + h * dHead;
        const block = ((b * H + h) * T + t) * dHead;
        const [from, to] = toBlocks ? [columns, block] : [block, columns];
        out.set(data.subarray(from, from + dHead), to);
      }
    }
  }
  return out;
}

/** (B, T, H·d_head) -> (B, T, H, d_head) -> (B, H, T, d_head): each head's columns become its own block. */
export function splitHeads(data, B, T, H, dHead) {
  return moveHeadRows(data, B, T, H, dHead, true);
}

/** (B, H, T, d_head) -> (B, T, H, d_head) -> (B, T, H·d_head): the heads concatenated along features. */
export function mergeHeads(data, B, H, T, dHead) {
  return moveHeadRows(data, B, T, H, dHead, false);
}
