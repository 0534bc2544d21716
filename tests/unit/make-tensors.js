// Small deterministic tensors for the behaviour specs (the fixtures cover PyTorch's numbers; these
// cover the API's own promises). Values are uniform in [-1, 1) from a seeded generator.
import { mulberry32 } from '../../web/src/core/random.js';

export function randomTensor(shape, seed) {
  const next = mulberry32(seed);
  const size = shape.reduce((a, b) => a * b, 1);
  return { data: Float32Array.from({ length: size }, () => next() * 2 - 1), shape: [...shape] };
}

export function tensor(values, shape) {
  return { data: Float32Array.from(values), shape };
}

/** The six-token sentence "Your journey starts with one step", (T, C) = (6, 3). */
export const JOURNEY = tensor([
  0.43, 0.15, 0.89, 0.55, 0.87, 0.66, 0.57, 0.85, 0.64, 0.22, 0.58, 0.33, 0.77, 0.25, 0.10, 0.05, 0.80, 0.55,
], [6, 3]);

/** Columns [start, start + count) of a (rows, cols) tensor, as a new tensor. */
export function columns(matrix, start, count) {
  const [rows, cols] = matrix.shape;
  const data = new Float32Array(rows * count);
  for (let r = 0; r < rows; r++) data.set(matrix.data.subarray(r * cols + start, r * cols + start + count), r * count);
  return { data, shape: [rows, count] };
}

/** Elements [start, start + count) of a vector. */
export function slice(vector, start, count) {
  return { data: vector.data.slice(start, start + count), shape: [count] };
}

/** Side by side along the last axis: (rows, a) | (rows, b) → (rows, a + b); also for vectors. */
export function concatColumns(parts) {
  if (parts[0].shape.length === 1) {
    return { data: Float32Array.from(parts.flatMap((part) => Array.from(part.data))), shape: [parts.reduce((n, p) => n + p.shape[0], 0)] };
  }
  const rows = parts[0].shape[0];
  const width = parts.reduce((n, part) => n + part.shape[1], 0);
  const data = new Float32Array(rows * width);
  let offset = 0;
  for (const part of parts) {
    const cols = part.shape[1];
    for (let r = 0; r < rows; r++) data.set(part.data.subarray(r * cols, (r + 1) * cols), r * width + offset);
    offset += cols;
  }
  return { data, shape: [rows, width] };
}

/** The transpose of a (rows, cols) matrix. */
export function transpose(matrix) {
  const [rows, cols] = matrix.shape;
  const data = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) data[c * rows + r] = matrix.data[r * cols + c];
  return { data, shape: [cols, rows] };
}

/** The largest |a − b| over two tensors of the same shape (Infinity when the shapes differ). */
export function maxDifference(a, b) {
  if (JSON.stringify(a.shape) !== JSON.stringify(b.shape)) return Infinity;
  let max = 0;
  for (let i = 0; i < a.data.length; i++) {
    const d = Object.is(a.data[i], b.data[i]) ? 0 : Math.abs(a.data[i] - b.data[i]);
    max = Math.max(max, Number.isNaN(d) ? Infinity : d);
  }
  return max;
}
