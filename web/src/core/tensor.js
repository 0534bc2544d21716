// Tensors as the API sees them: { data: Float32Array, shape: number[] }, row-major, float32
// (Int32Array for token ids). This module knows their structure and nothing of the math, so the API
// layer, the reference backend and the WebGPU backend can all check arguments with the same words.

/** The number of elements of a shape: the product of its sizes (1 for the scalar shape []). */
export function sizeOf(shape) {
  let size = 1;
  for (const dim of shape) size *= dim;
  return size;
}

/** "[2, 2, 3]": shapes appear in error messages exactly like this. */
export function formatShape(shape) {
  return `[${shape.join(', ')}]`;
}

/** A short, safe description of any value for an error message ("a string 'abc'", "an Array(3)"). */
export function describeValue(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return `an Array(${value.length})`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}(${value.length})`;
  if (typeof value === 'function') return 'a function';
  return `an object with keys ${JSON.stringify(Object.keys(value).slice(0, 8))}`;
}

/** A new tensor; data is used as given (not copied). */
export function makeTensor(data, shape) {
  return { data, shape: [...shape] };
}

function fail(fn, message) {
  throw new Error(`${fn}: ${message}`);
}

/**
 * Checks that `value` is a tensor: an object with a typed `data` (Float32Array, or Int32Array when
 * dtype is 'int32') and a `shape` of non-negative integers whose product is data.length.
 * `name` is the argument's path as the caller wrote it ("x", "weights.query", "weights.heads[1].key").
 */
export function checkTensorStructure(fn, name, value, dtype = 'float32') {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) {
    fail(fn, `${name} is ${describeValue(value)}; expected a tensor {data: ${
      dtype === 'int32' ? 'Int32Array' : 'Float32Array'}, shape: number[]}`);
  }
  const expectedType = dtype === 'int32' ? Int32Array : Float32Array;
  if (!(value.data instanceof expectedType)) {
    fail(fn, `${name}.data is ${describeValue(value.data)}; expected a ${expectedType.name}`);
  }
  const { shape } = value;
  const shapeIsValid = Array.isArray(shape) && shape.every((dim) => Number.isSafeInteger(dim) && dim >= 0);
  if (!shapeIsValid) {
    fail(fn, `${name}.shape is ${Array.isArray(shape) ? JSON.stringify(shape) : describeValue(shape)}; ` +
      'expected an array of non-negative integers');
  }
  const expectedLength = sizeOf(shape);
  if (value.data.length !== expectedLength) {
    fail(fn, `${name}.data has ${value.data.length} values; expected ${expectedLength} for shape ${formatShape(shape)}`);
  }
}

/** Adds a leading axis of size 1: (T, C) -> (1, T, C). Shares the data. */
export function addBatchAxis(tensor) {
  return { data: tensor.data, shape: [1, ...tensor.shape] };
}

/** Removes a leading axis of size 1: (1, T, C) -> (T, C). Shares the data. */
export function dropBatchAxis(tensor) {
  return { data: tensor.data, shape: tensor.shape.slice(1) };
}
