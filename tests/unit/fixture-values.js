// Fixture values as the JS API takes them: tensors become { data: Float32Array | Int32Array, shape }, and
// the strings JSON cannot hold as numbers ("Infinity", "-Infinity", "NaN") become those numbers. No Node
// imports: the browser's fixture runner (tests/e2e/pages/webgpu-fixtures.js) imports this same module.

const NON_FINITE = { Infinity: Infinity, '-Infinity': -Infinity, NaN: NaN };

function decodeNumber(value) {
  if (typeof value === 'number') return value;
  if (value in NON_FINITE) return NON_FINITE[value];
  throw new Error(`fixture value ${JSON.stringify(value)} is neither a number nor one of ${Object.keys(NON_FINITE).join(', ')}`);
}

const isEncodedTensor = (value) =>
  value !== null && typeof value === 'object' && Array.isArray(value.shape) && Array.isArray(value.data);

/** Decodes one fixture value: a tensor, an array of values, an object of values, or a plain value. */
export function decodeValue(value) {
  if (isEncodedTensor(value)) {
    const numbers = value.data.map(decodeNumber);
    const data = value.dtype === 'int32' ? Int32Array.from(numbers)
      : value.dtype === 'uint8' ? Uint8Array.from(numbers) : Float32Array.from(numbers);
    return { data, shape: value.shape };
  }
  if (Array.isArray(value)) return value.map(decodeValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, decodeValue(inner)]));
  }
  return typeof value === 'string' && value in NON_FINITE ? NON_FINITE[value] : value;
}
