// Tensors as the API sees them: { data: Float32Array, shape: number[] }, row-major, float32
// (Int32Array for token ids). This module knows their structure and nothing of the math, so the API
// layer, the reference backend and the WebGPU backend can all check arguments with the same words.
import { fail, formatShape, withArticle } from './registry-errors.js';

/** The number of elements of a shape: the product of its sizes (1 for the scalar shape []). */
export function sizeOf(shape) {
  let size = 1;
  for (const dim of shape) size *= dim;
  return size;
}

export { describeValue, formatShape } from './registry-errors.js';

/** A new tensor; data is used as given (not copied). */
export function makeTensor(data, shape) {
  return { data, shape: [...shape] };
}

/**
 * Checks that `value` is a tensor: an object with a typed `data` (Float32Array, or Int32Array when
 * dtype is 'int32') and a `shape` of safe non-negative integers whose product is data.length.
 * `name` is the argument's path as the caller wrote it ("x", "weights.query", "weights.heads[1].key").
 */
export function checkTensorStructure(fn, name, value, dtype = 'float32') {
  const expectedType = dtype === 'int32' ? Int32Array : Float32Array;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) {
    fail(fn, 'type', name, value, `a tensor {data: ${expectedType.name}, shape: number[]}`);
  }
  if (!(value.data instanceof expectedType)) fail(fn, 'type', `${name}.data`, value.data, withArticle(expectedType.name));
  const { shape } = value;
  if (!Array.isArray(shape)) fail(fn, 'type', `${name}.shape`, shape, 'an array of non-negative integers');
  if (!shape.every((dim) => Number.isSafeInteger(dim) && dim >= 0)) {
    // Shown entry by entry (2n, NaN, 'a'): JSON would print NaN as null and throw on a BigInt.
    fail(fn, 'entries', `${name}.shape`, shape, 'an array of non-negative integers');
  }
  const expectedLength = sizeOf(shape);
  if (value.data.length !== expectedLength) {
    fail(fn, 'length', `${name}.data`, value.data.length, `${expectedLength} for shape ${formatShape(shape)}`);
  }
}

/**
 * A plain copy of a caller's tensor object, each of its two properties read once: {data, shape: a copy of the
 * array}; a value that is no object comes back as it is. The API checks and runs this copy, so a getter or a
 * Proxy of the caller's cannot answer the check one thing and the backend another (api-checked.js).
 */
export function snapshotTensor(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) return value;
  const { data, shape } = value;
  return { data, shape: Array.isArray(shape) ? Array.from(shape) : shape };
}

/** Adds a leading axis of size 1: (T, C) -> (1, T, C). Shares the data. */
export function addBatchAxis(tensor) {
  return { data: tensor.data, shape: [1, ...tensor.shape] };
}

/** Removes a leading axis of size 1: (1, T, C) -> (T, C). Shares the data. */
export function dropBatchAxis(tensor) {
  return { data: tensor.data, shape: tensor.shape.slice(1) };
}

/** No NaN and no ±∞ in flat data (absent data, as a fused path's missing stage, counts as finite). */
export function allFinite(data) {
  if (!data) return true;
  for (let i = 0; i < data.length; i++) if (data[i] - data[i] !== 0) return false;
  return true;
}
