// The safetensors format (https://huggingface.co/docs/safetensors): an 8-byte little-endian header length N,
// N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, __metadata__: {string: string}}
// (padded with spaces to a multiple of 8), then the tensors' bytes, little-endian, row-major.

/** tensors {name: {data: Float32Array, shape}}, metadata {string: string} → Uint8Array. */
export function encodeSafetensors(tensors, metadata = {}) {
  const header = { __metadata__: metadata };
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + t.data.length * 4] };
    offset += t.data.length * 4;
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
    for (let i = 0; i < t.data.length; i++) view.setFloat32(base + begin + 4 * i, t.data[i], true);
  }
  return bytes;
}

/** Uint8Array → { tensors {name: {data: Float32Array, shape}}, metadata }. Only F32 tensors are read. */
export function decodeSafetensors(bytes) {
  const fn = 'loadTrainer';
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
    if (info.dtype !== 'F32') throw new Error(`${fn}: tensor ${name} has dtype ${info.dtype}; expected F32`);
    const [begin, end] = info.data_offsets;
    const count = (end - begin) / 4;
    if (base + end > bytes.length || count !== info.shape.reduce((a, b) => a * b, 1)) {
      throw new Error(`${fn}: tensor ${name} has data_offsets [${begin}, ${end}] that do not fit its shape [${info.shape}] or the file`);
    }
    const data = new Float32Array(count);
    for (let i = 0; i < count; i++) data[i] = view.getFloat32(base + begin + 4 * i, true);
    tensors[name] = { data, shape: info.shape };
  }
  return { tensors, metadata: header.__metadata__ ?? {} };
}
