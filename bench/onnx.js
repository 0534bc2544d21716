// ONNX models built at run time, encoded straight to protobuf bytes (onnxruntime-web takes a
// Uint8Array), so the benchmark ships no model files and needs no Python. Only the few fields used
// are written; field numbers from onnx/onnx.proto.

const WIRE_VARINT = 0;
const WIRE_LENGTH = 2;
const WIRE_FIXED32 = 5;

export const FLOAT = 1;  // TensorProto.DataType
export const INT64 = 7;

/** A protobuf message under construction. */
class Message {
  constructor() {
    this.parts = [];
    this.length = 0;
  }

  push(bytes) {
    this.parts.push(bytes);
    this.length += bytes.length;
  }

  varint(value) {
    const bytes = [];
    let v = BigInt(value);
    if (v < 0n) v += 1n << 64n;  // int64 negatives: ten bytes, two's complement
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      bytes.push(byte);
    } while (v !== 0n);
    this.push(Uint8Array.from(bytes));
  }

  tag(field, wire) {
    this.varint((field << 3) | wire);
  }

  int(field, value) {
    this.tag(field, WIRE_VARINT);
    this.varint(value);
  }

  float(field, value) {
    this.tag(field, WIRE_FIXED32);
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setFloat32(0, value, true);
    this.push(bytes);
  }

  bytes(field, bytes) {
    this.tag(field, WIRE_LENGTH);
    this.varint(bytes.length);
    this.push(bytes);
  }

  string(field, text) {
    this.bytes(field, new TextEncoder().encode(text));
  }

  message(field, inner) {
    this.bytes(field, inner.finish());
  }

  finish() {
    const out = new Uint8Array(this.length);
    let offset = 0;
    for (const part of this.parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }
}

/** TensorProto: dims (1), data_type (2), name (8), raw_data (9, little-endian). */
function tensorProto({ name, dims, data }) {
  const m = new Message();
  for (const d of dims) m.int(1, d);
  m.int(2, data instanceof BigInt64Array ? INT64 : FLOAT);
  m.string(8, name);
  m.bytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return m;
}

/** ValueInfoProto: name (1), type (2) = TypeProto{tensor_type (1) = {elem_type (1), shape (2)}}. */
function valueInfo({ name, dims, type: elemType = FLOAT }) {
  const shape = new Message();
  for (const d of dims) {
    const dim = new Message();
    dim.int(1, d);  // dim_value
    shape.message(1, dim);
  }
  const tensorType = new Message();
  tensorType.int(1, elemType);
  tensorType.message(2, shape);
  const type = new Message();
  type.message(1, tensorType);
  const m = new Message();
  m.string(1, name);
  m.message(2, type);
  return m;
}

/** AttributeProto: name (1), f (2), i (3), ints (8), type (20): FLOAT 1, INT 2, INTS 7. */
function attribute(name, value) {
  const m = new Message();
  m.string(1, name);
  if (Array.isArray(value)) {
    for (const v of value) m.int(8, v);
    m.int(20, 7);
  } else if (Number.isInteger(value)) {
    m.int(3, value);
    m.int(20, 2);
  } else {
    m.float(2, value);
    m.int(20, 1);
  }
  return m;
}

/** NodeProto: input (1), output (2), name (3), op_type (4), attribute (5), domain (7). */
function node({ op, inputs, outputs, attributes = {}, domain = '' }, index) {
  const m = new Message();
  for (const input of inputs) m.string(1, input);
  for (const output of outputs) m.string(2, output);
  m.string(3, `${op}_${index}`);
  m.string(4, op);
  for (const [name, value] of Object.entries(attributes)) m.message(5, attribute(name, value));
  if (domain) m.string(7, domain);
  return m;
}

/**
 * ModelProto bytes: ir_version (1), opset_import (8), producer_name (2), graph (7) =
 * GraphProto{node (1), name (2), initializer (5), input (11), output (12)}.
 */
export function encodeModel({ name, nodes, inputs, outputs, initializers = [], opsets = { '': 17 } }) {
  const graph = new Message();
  nodes.forEach((n, i) => graph.message(1, node(n, i)));
  graph.string(2, name);
  for (const init of initializers) graph.message(5, tensorProto(init));
  for (const input of inputs) graph.message(11, valueInfo(input));
  for (const output of outputs) graph.message(12, valueInfo(output));
  const model = new Message();
  model.int(1, 8);
  model.string(2, 'attention-playground bench');
  model.message(7, graph);
  for (const [domain, version] of Object.entries(opsets)) {
    const opset = new Message();
    if (domain) opset.string(1, domain);
    opset.int(2, version);
    model.message(8, opset);
  }
  return model.finish();
}

/** Y = A·B, both inputs (n, n). */
export function matmulModel(n) {
  return encodeModel({
    name: `matmul_${n}`,
    nodes: [{ op: 'MatMul', inputs: ['A', 'B'], outputs: ['Y'] }],
    inputs: [{ name: 'A', dims: [n, n] }, { name: 'B', dims: [n, n] }],
    outputs: [{ name: 'Y', dims: [n, n] }],
  });
}

const int64s = (values) => BigInt64Array.from(values.map(BigInt));

/**
 * Causal multi-head attention with projections in standard ONNX ops (opset 17), X (1, T, d) → Y:
 * Q, K, V = X·W + b → (1, H, T, d_head) → softmax(Q·Kᵀ/√d_head + mask)·V → (1, T, d) → ·Wo + bo.
 * The mask is a constant (T, T) with −∞ above the diagonal. Weights are initializers.
 */
export function attentionModel({ T, dModel: d, heads, weights: w }) {
  const dHead = d / heads;
  const mask = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = -Infinity;
  const initializers = [
    { name: 'Wq', dims: [d, d], data: w.query }, { name: 'bq', dims: [d], data: w.queryBias },
    { name: 'Wk', dims: [d, d], data: w.key }, { name: 'bk', dims: [d], data: w.keyBias },
    { name: 'Wv', dims: [d, d], data: w.value }, { name: 'bv', dims: [d], data: w.valueBias },
    { name: 'Wo', dims: [d, d], data: w.out }, { name: 'bo', dims: [d], data: w.outBias },
    { name: 'heads_shape', dims: [4], data: int64s([1, T, heads, dHead]) },
    { name: 'model_shape', dims: [3], data: int64s([1, T, d]) },
    { name: 'scale', dims: [], data: Float32Array.of(1 / Math.sqrt(dHead)) },
    { name: 'mask', dims: [T, T], data: mask },
  ];
  const nodes = [];
  for (const [name, perm] of [['q', [0, 2, 1, 3]], ['k', [0, 2, 3, 1]], ['v', [0, 2, 1, 3]]]) {
    const W = `W${name}`;
    const b = `b${name}`;
    nodes.push({ op: 'MatMul', inputs: ['X', W], outputs: [`${name}_x`] });
    nodes.push({ op: 'Add', inputs: [`${name}_x`, b], outputs: [`${name}_b`] });
    nodes.push({ op: 'Reshape', inputs: [`${name}_b`, 'heads_shape'], outputs: [`${name}_r`] });
    nodes.push({ op: 'Transpose', inputs: [`${name}_r`], outputs: [`${name}_h`], attributes: { perm } });
  }
  nodes.push(
    { op: 'MatMul', inputs: ['q_h', 'k_h'], outputs: ['scores'] },  // (1, H, T, T)
    { op: 'Mul', inputs: ['scores', 'scale'], outputs: ['scaled'] },
    { op: 'Add', inputs: ['scaled', 'mask'], outputs: ['masked'] },
    { op: 'Softmax', inputs: ['masked'], outputs: ['weights'], attributes: { axis: -1 } },
    { op: 'MatMul', inputs: ['weights', 'v_h'], outputs: ['context_h'] },  // (1, H, T, d_head)
    { op: 'Transpose', inputs: ['context_h'], outputs: ['context_t'], attributes: { perm: [0, 2, 1, 3] } },
    { op: 'Reshape', inputs: ['context_t', 'model_shape'], outputs: ['context'] },
    { op: 'MatMul', inputs: ['context', 'Wo'], outputs: ['projected'] },
    { op: 'Add', inputs: ['projected', 'bo'], outputs: ['Y'] },
  );
  return encodeModel({
    name: `causal_attention_${T}`,
    nodes,
    inputs: [{ name: 'X', dims: [1, T, d] }],
    outputs: [{ name: 'Y', dims: [1, T, d] }],
    initializers,
  });
}

/**
 * The same layer through onnxruntime's fused contrib op com.microsoft.Attention (unidirectional =
 * causal), which takes the three projections as one (d, 3·d) weight, then the output projection.
 */
export function attentionContribModel({ T, dModel: d, heads, weights: w }) {
  const packedWeight = new Float32Array(d * 3 * d);
  const packedBias = new Float32Array(3 * d);
  [w.query, w.key, w.value].forEach((matrix, block) => {
    for (let r = 0; r < d; r++) packedWeight.set(matrix.subarray(r * d, (r + 1) * d), r * 3 * d + block * d);
  });
  [w.queryBias, w.keyBias, w.valueBias].forEach((bias, block) => packedBias.set(bias, block * d));
  return encodeModel({
    name: `causal_attention_contrib_${T}`,
    nodes: [
      { op: 'Attention', domain: 'com.microsoft', inputs: ['X', 'Wqkv', 'bqkv'], outputs: ['context'],
        attributes: { num_heads: heads, unidirectional: 1 } },
      { op: 'MatMul', inputs: ['context', 'Wo'], outputs: ['projected'] },
      { op: 'Add', inputs: ['projected', 'bo'], outputs: ['Y'] },
    ],
    inputs: [{ name: 'X', dims: [1, T, d] }],
    outputs: [{ name: 'Y', dims: [1, T, d] }],
    initializers: [
      { name: 'Wqkv', dims: [d, 3 * d], data: packedWeight }, { name: 'bqkv', dims: [3 * d], data: packedBias },
      { name: 'Wo', dims: [d, d], data: w.out }, { name: 'bo', dims: [d], data: w.outBias },
    ],
    opsets: { '': 17, 'com.microsoft': 1 },
  });
}
