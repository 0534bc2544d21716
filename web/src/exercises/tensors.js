// Small, DOM-free helpers the exercise bank builds its seeded inputs with. The numbers come from the
// project's one seeded generator (core/random.js), so a case's inputs are the same in Node and in every
// browser, and a verdict can name them by a short label instead of shipping them.
import { mulberry32 } from '../core/random.js';
import { sizeOf } from '../core/tensor.js';

/** A seeded stream of standard normal numbers (Box–Muller over mulberry32). */
export function normalStream(seed) {
  const uniform = mulberry32(seed);
  return () => {
    const u = Math.max(uniform(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
  };
}

/** A tensor of the given shape filled from `next()` (e.g. a normalStream), times `scale`. */
export function randomTensor(next, shape, scale = 1) {
  const data = new Float32Array(sizeOf(shape));
  for (let i = 0; i < data.length; i++) data[i] = next() * scale;
  return { data, shape: [...shape] };
}

/** A tensor from plain numbers. */
export function tensorOf(shape, values) {
  return { data: Float32Array.from(values), shape: [...shape] };
}

/** The same data under another shape of the same size (a view: the data is shared). */
export function reshape(tensor, shape) {
  if (sizeOf(shape) !== tensor.data.length) throw new Error(`reshape: [${tensor.shape}] has ${tensor.data.length} values; [${shape}] needs ${sizeOf(shape)}`);
  return { data: tensor.data, shape: [...shape] };
}

/** A copy of a (…, Tq, Tk) tensor with −∞ where key j lies in query i's future (j > i, top-left aligned). */
export function maskFuture(tensor) {
  const [rows, cols] = tensor.shape.slice(-2);
  const data = Float32Array.from(tensor.data);
  for (let i = 0; i < data.length; i++) {
    const j = i % cols;
    const row = Math.floor(i / cols) % rows;
    if (j > row) data[i] = -Infinity;
  }
  return { data, shape: [...tensor.shape] };
}

/** 1 where a tensor holds −∞, else 0: which cells a mask removed. */
export function maskedCells(tensor) {
  return { data: tensor.data.map((v) => (v === -Infinity ? 1 : 0)), shape: [...tensor.shape] };
}

/** Columns [from, from + width) of a (rows, cols) matrix. */
export function columnBlock(matrix, from, width) {
  const [rows, cols] = matrix.shape;
  const data = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) for (let c = 0; c < width; c++) data[r * width + c] = matrix.data[r * cols + from + c];
  return { data, shape: [rows, width] };
}

/** Stacks equal-shaped tensors along a new axis 1: H × (B, T, d) -> (B, H, T, d). */
export function stackAxis1(tensors) {
  const [B, ...rest] = tensors[0].shape;
  const inner = sizeOf(rest);
  const H = tensors.length;
  const data = new Float32Array(B * H * inner);
  tensors.forEach((t, h) => {
    for (let b = 0; b < B; b++) data.set(t.data.subarray(b * inner, (b + 1) * inner), (b * H + h) * inner);
  });
  return { data, shape: [B, H, ...rest] };
}

/** The identity matrix (n, n). */
export function identity(n) {
  const data = new Float32Array(n * n);
  for (let i = 0; i < n; i++) data[i * n + i] = 1;
  return { data, shape: [n, n] };
}
