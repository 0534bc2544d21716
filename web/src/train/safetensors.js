// The safetensors format (https://huggingface.co/docs/safetensors): an 8-byte little-endian header length N,
// N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, __metadata__: {string: string}}
// (padded with spaces to a multiple of 8), then the tensors' bytes, little-endian, row-major.

import { float16Bits, float16Table, float16Value } from '../base/float16.js';

/** x rounded to the nearest float16, as a float32 value (what a file of F16 tensors restores). */
export const roundToFloat16 = (x) => float16Value(float16Bits(x));

const DTYPE_BYTES = { F32: 4, F16: 2 };

/**
 * tensors {name: {data: Float32Array, shape, dtype? ('F32' or 'F16')}}, metadata {string: string} → Uint8Array.
 * An F16 tensor stores each value rounded to the nearest float16.
 */
export function encodeSafetensors(tensors, metadata = {}) {
  const header = { __metadata__: metadata };
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    const dtype = t.dtype ?? 'F32';
    if (!DTYPE_BYTES[dtype]) throw new Error(`encodeSafetensors: tensor ${name} has dtype ${dtype}; expected 'F32' or 'F16'`);
    const size = t.data.length * DTYPE_BYTES[dtype];
    header[name] = { dtype, shape: t.shape, data_offsets: [offset, offset + size] };
    offset += size;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + new TextEncoder().encode(json).length) % 8)) % 8);
  const headerBytes = new TextEncoder().encode(json);
  const bytes = new Uint8Array(8 + headerBytes.length + offset);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, BigInt(headerBytes.length), true);
  bytes.set(headerBytes, 8);
  const base = 8 + headerBytes.length;
  for (const [name, t] of Object.entries(tensors)) {
    const [begin] = header[name].data_offsets;
    if (header[name].dtype === 'F16') for (let i = 0; i < t.data.length; i++) view.setUint16(base + begin + 2 * i, float16Bits(t.data[i]), true);
    else for (let i = 0; i < t.data.length; i++) view.setFloat32(base + begin + 4 * i, t.data[i], true);
  }
  return bytes;
}

/**
 * Uint8Array → { tensors {name: {data: Float32Array, shape}}, metadata }. F32 and F16 tensors are read; F16
 * values are restored to float32 exactly. fn names the caller in errors.
 */
export function decodeSafetensors(bytes, fn = 'loadTrainer') {
  if (!(bytes instanceof Uint8Array) || bytes.length < 8) {
    throw new Error(`${fn}: bytes is not a safetensors file (expected a Uint8Array of at least 8 bytes)`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = Number(view.getBigUint64(0, true));
  if (8 + length > bytes.length) throw new Error(`${fn}: bytes has a header of ${length} bytes but only ${bytes.length - 8} follow; expected a safetensors file`);
  let header;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length)));
  } catch (error) {
    throw new Error(`${fn}: the safetensors header is not JSON (${error.message})`);
  }
  const base = 8 + length;
  const tensors = {};
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const width = DTYPE_BYTES[info.dtype];
    if (!width) throw new Error(`${fn}: tensor ${name} has dtype ${info.dtype}; expected F32 or F16`);
    const [begin, end] = info.data_offsets;
    const count = (end - begin) / width;
    if (base + end > bytes.length || count !== info.shape.reduce((a, b) => a * b, 1)) {
      throw new Error(`${fn}: tensor ${name} has data_offsets [${begin}, ${end}] that do not fit its shape [${info.shape}] or the file`);
    }
    const data = new Float32Array(count);
    if (width === 2) {
      const table = float16Table();
      for (let i = 0; i < count; i++) data[i] = table[view.getUint16(base + begin + 2 * i, true)];
    }
    else for (let i = 0; i < count; i++) data[i] = view.getFloat32(base + begin + 4 * i, true);
    tensors[name] = { data, shape: info.shape };
  }
  return { tensors, metadata: header.__metadata__ ?? {} };
}
