// A GPT-2 checkpoint's model.safetensors read as it arrives (a download, a File's stream, a file in Node): the
// header first, checked against config.json before a weight arrives, then every tensor converted as its bytes
// pass, straight into the array the model keeps: float32, or float16 bits for the matrices of a float16-resident
// model. Nothing holds the file: at most one element's bytes (< 4) wait for the next chunk, so a float32
// gpt2-medium loads into its float16 matrices without ever being whole in memory.
import { float16Bits, float16Table } from '../base/float16.js';
import { gpt2ParameterShapes, isGpt2Matrix } from './checkpoint.js';
import { FLOAT_DTYPES, readSafetensorsHeader, safetensorsHeaderLength } from './safetensors-read.js';

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const EMPTY = new Uint8Array(0);

function concat(a, b) {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/**
 * (view, data, index, count): count elements of `view` (the file's little-endian bytes) into data[index…], from
 * the file's dtype to the kept one ('F32': a Float32Array, 'F16': a Uint16Array of float16 bits).
 */
function converter(dtype, kept) {
  const scratch = new Float32Array(1);
  const scratchBits = new Uint32Array(scratch.buffer);
  const table = dtype === 'F16' && kept === 'F32' ? float16Table() : null;
  const bfloat = (bits) => { scratchBits[0] = bits << 16; return scratch[0]; };
  switch (`${dtype}>${kept}`) {
    case 'F32>F32': return (view, data, index, count) => {
      if (LITTLE_ENDIAN && view.byteOffset % 4 === 0) data.set(new Float32Array(view.buffer, view.byteOffset, count), index);
      else for (let i = 0; i < count; i++) data[index + i] = view.getFloat32(4 * i, true);
    };
    case 'F32>F16': return (view, data, index, count) => { for (let i = 0; i < count; i++) data[index + i] = float16Bits(view.getFloat32(4 * i, true)); };
    case 'F16>F32': return (view, data, index, count) => { for (let i = 0; i < count; i++) data[index + i] = table[view.getUint16(2 * i, true)]; };
    case 'F16>F16': return (view, data, index, count) => { for (let i = 0; i < count; i++) data[index + i] = view.getUint16(2 * i, true); };
    case 'BF16>F32': return (view, data, index, count) => { for (let i = 0; i < count; i++) data[index + i] = bfloat(view.getUint16(2 * i, true)); };
    default: return (view, data, index, count) => { for (let i = 0; i < count; i++) data[index + i] = float16Bits(bfloat(view.getUint16(2 * i, true))); };
  }
}

/**
 * The tensors the forward reads, checked against config: [{name, begin, end, size, data, convert}] by offset in
 * the data section, each with the array it fills; and the parameters object those arrays go into.
 */
function plan(header, config, source, resident) {
  const fn = 'loadGpt2';
  const prefix = Object.keys(header.entries).some((name) => name.startsWith('transformer.')) ? 'transformer.' : '';
  const parameters = {};
  const targets = [];
  for (const [name, shape] of Object.entries(gpt2ParameterShapes(config))) {
    const stored = prefix + name;
    const entry = header.entries[stored];
    if (!entry) throw new Error(`${fn}: ${source} has no tensor ${stored}; expected one of shape [${shape}] for this config`);
    if (entry.shape.length !== shape.length || entry.shape.some((n, i) => n !== shape[i])) {
      const transposed = entry.shape.length === 2 && entry.shape[0] === shape[1] && entry.shape[1] === shape[0];
      throw new Error(`${fn}: ${source}: tensor ${stored} has shape [${entry.shape}]; expected [${shape}]` +
        (transposed ? " (GPT-2's Conv1D layout is (in, out): this one is (out, in), as nn.Linear stores it)" : ' for this config'));
    }
    const size = FLOAT_DTYPES[entry.dtype];
    if (!size) throw new Error(`${fn}: ${source}: tensor ${stored} has dtype ${JSON.stringify(entry.dtype)}; expected one of F32, F16, BF16`);
    const count = shape.reduce((a, b) => a * b, 1);
    const half = resident === 'float16' && isGpt2Matrix(name);
    const data = half ? new Uint16Array(count) : new Float32Array(count);
    parameters[name] = half ? { data, shape: [...shape], dtype: 'F16' } : { data, shape: [...shape] };
    targets.push({ name: stored, begin: entry.begin, end: entry.end, size, data, convert: converter(entry.dtype, half ? 'F16' : 'F32') });
  }
  targets.sort((a, b) => a.begin - b.begin);
  targets.forEach((t, i) => {
    if (i > 0 && t.begin < targets[i - 1].end) throw new Error(`${fn}: ${source}: tensors ${targets[i - 1].name} and ${t.name} overlap; expected each tensor's own bytes`);
  });
  return { parameters, targets };
}

/**
 * A reader of one model.safetensors for config: push(chunk) the file's bytes in order; finish() → the parameters
 * ({name: {data: Float32Array, shape}} under Hugging Face's names without 'transformer.'; with resident
 * 'float16' the matrices (isGpt2Matrix) are {data: Uint16Array of float16 bits, shape, dtype: 'F16'}: an F16
 * file's own bits, F32 and BF16 rounded to nearest even as torch's .half()). Tensors the forward does not read
 * are skipped as they pass. reset() starts again from the file's first byte; `loaded` counts the bytes pushed.
 * A missing tensor, a wrong shape or dtype is an Error from the push that completes the header; a file that
 * ends early, from finish().
 */
export function createCheckpointReader(config, { source = 'model.safetensors', resident = 'float32' } = {}) {
  let head; // the length and header bytes, until the header is whole
  let header;
  let parameters;
  let targets;
  let next; // the first target not yet whole
  let carry; // a partial element's bytes, at data offset carryAt
  let carryAt;
  let dataAt; // the data section's bytes received
  let loaded;
  const reset = () => {
    [head, header, parameters, targets, next, carry, carryAt, dataAt, loaded] = [EMPTY, null, null, null, 0, EMPTY, 0, 0, 0];
  };
  reset();

  /** Takes what the header still lacks from chunk; returns the rest. */
  function takeHeader(chunk) {
    const need = head.length < 8 ? 8 : safetensorsHeaderLength(head, source) + 8;
    const part = chunk.subarray(0, need - head.length);
    head = concat(head, part);
    if (head.length >= 8 && head.length === safetensorsHeaderLength(head, source) + 8) {
      header = readSafetensorsHeader(head, source);
      ({ parameters, targets } = plan(header, config, source, resident));
      head = EMPTY;
    }
    return chunk.subarray(part.length);
  }

  /** The data section's bytes from offset `at`: every whole element of the targets they cover, converted. */
  function takeData(chunk, at) {
    let bytes = chunk;
    let offset = at;
    if (carry.length) {
      bytes = concat(carry, chunk);
      offset = carryAt;
      carry = EMPTY;
    }
    const end = offset + bytes.length;
    while (next < targets.length) {
      const t = targets[next];
      if (t.begin >= end) return;
      const from = Math.max(t.begin, offset);
      const whole = t.begin + Math.floor((Math.min(t.end, end) - t.begin) / t.size) * t.size;
      if (whole > from) {
        t.convert(new DataView(bytes.buffer, bytes.byteOffset + from - offset, whole - from), t.data, (from - t.begin) / t.size, (whole - from) / t.size);
      }
      if (whole < t.end) {
        carry = bytes.slice(whole - offset);
        carryAt = whole;
        return;
      }
      next++;
    }
  }

  return {
    get loaded() { return loaded; },
    push(chunk) {
      loaded += chunk.length;
      let rest = chunk;
      while (!header && rest.length) rest = takeHeader(rest);
      if (header && rest.length) {
        takeData(rest, dataAt);
        dataAt += rest.length;
      }
    },
    reset,
    finish() {
      if (!header) readSafetensorsHeader(head, source); // its error: too short, or the header cut
      if (header.headerBytes + header.dataBytes > loaded) {
        throw new Error(`loadGpt2: ${source} is truncated: its header describes ${header.headerBytes + header.dataBytes} bytes but the file has ${loaded}`);
      }
      return parameters;
    },
  };
}

/**
 * The parameters of a GPT-2 safetensors file held whole (a Uint8Array) for config: createCheckpointReader's,
 * the file pushed at once.
 */
export function gpt2ParametersFromSafetensors(bytes, config, source = 'model.safetensors', { resident = 'float32' } = {}) {
  const reader = createCheckpointReader(config, { source, resident });
  reader.push(bytes);
  return reader.finish();
}
