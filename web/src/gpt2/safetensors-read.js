// Reading safetensors (https://huggingface.co/docs/safetensors): an 8-byte little-endian header length N, N
// bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, __metadata__}, then the tensors' bytes,
// little-endian and row-major. Float tensors are widened to float32 here; every problem is an Error that
// names the file and the tensor.

import { float16Table } from '../base/float16.js';

/** Bytes per element of the dtypes this reader widens to float32. */
export const FLOAT_DTYPES = Object.freeze({ F32: 4, F16: 2, BF16: 2 });

/** float16 bits → float32, every one of the 65,536 (a table: widening is a lookup). */
export const halfToFloatTable = float16Table;

const MAX_HEADER_BYTES = 100 * 2 ** 20;

/** The header's length in bytes, from the file's first 8 (at least) bytes. */
export function safetensorsHeaderLength(bytes, source) {
  const fn = 'readSafetensorsHeader';
  if (bytes.length < 8) throw new Error(`${fn}: ${source} is ${bytes.length} bytes; expected a safetensors file (8-byte header length first)`);
  const length = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  if (length > MAX_HEADER_BYTES) throw new Error(`${fn}: ${source} declares a header of ${length} bytes; expected a safetensors file (header ≤ 100 MiB)`);
  return length;
}

/** {headerBytes, entries: {name: {dtype, shape, begin, end}}, metadata, dataBytes} from the file's first bytes. */
export function readSafetensorsHeader(bytes, source) {
  const fn = 'readSafetensorsHeader';
  const length = safetensorsHeaderLength(bytes, source);
  if (8 + length > bytes.length) {
    throw new Error(`${fn}: ${source} is truncated: its header is ${length} bytes but only ${bytes.length - 8} follow`);
  }
  let header;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length)));
  } catch (error) {
    throw new Error(`${fn}: ${source}'s header is not JSON (${error.message})`);
  }
  const entries = {};
  let dataBytes = 0;
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const { dtype, shape, data_offsets: offsets } = info ?? {};
    if (!Array.isArray(shape) || !shape.every((n) => Number.isInteger(n) && n >= 0) || !Array.isArray(offsets) || offsets.length !== 2) {
      throw new Error(`${fn}: ${source}: tensor ${name} has shape ${JSON.stringify(shape)} and data_offsets ${JSON.stringify(offsets)}; expected integers`);
    }
    const [begin, end] = offsets;
    const size = FLOAT_DTYPES[dtype];
    if (size && end - begin !== size * shape.reduce((a, b) => a * b, 1)) {
      throw new Error(`${fn}: ${source}: tensor ${name} (${dtype} [${shape}]) has data_offsets [${begin}, ${end}]: ${end - begin} bytes where its shape needs ${size * shape.reduce((a, b) => a * b, 1)}`);
    }
    entries[name] = { dtype, shape, begin, end };
    dataBytes = Math.max(dataBytes, end);
  }
  return { headerBytes: 8 + length, entries, metadata: header.__metadata__ ?? {}, dataBytes };
}

/**
 * One tensor of the file as float32: {data: Float32Array, shape}. bytes holds the whole file (or at least up
 * to the tensor's end); dtype F32, F16 or BF16.
 */
export function readTensor(bytes, header, name, source) {
  const fn = 'readTensor';
  const entry = header.entries[name];
  if (!entry) throw new Error(`${fn}: ${source} has no tensor ${name}`);
  const size = FLOAT_DTYPES[entry.dtype];
  if (!size) throw new Error(`${fn}: ${source}: tensor ${name} has dtype ${JSON.stringify(entry.dtype)}; expected one of F32, F16, BF16`);
  const start = header.headerBytes + entry.begin;
  const stop = header.headerBytes + entry.end;
  if (stop > bytes.length) {
    throw new Error(`${fn}: ${source} is truncated: tensor ${name} ends at byte ${stop} but the file has ${bytes.length}`);
  }
  const count = (entry.end - entry.begin) / size;
  const view = new DataView(bytes.buffer, bytes.byteOffset + start, entry.end - entry.begin);
  const data = new Float32Array(count);
  if (entry.dtype === 'F32') {
    for (let i = 0; i < count; i++) data[i] = view.getFloat32(4 * i, true);
  } else if (entry.dtype === 'F16') {
    const table = float16Table();
    for (let i = 0; i < count; i++) data[i] = table[view.getUint16(2 * i, true)];
  } else {
    const bits = new Uint32Array(data.buffer);
    for (let i = 0; i < count; i++) bits[i] = view.getUint16(2 * i, true) << 16;
  }
  return { data, shape: entry.shape };
}
