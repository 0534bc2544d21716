// A GPT-2-family checkpoint in Hugging Face's layout: config.json's sizes, and the parameters of
// GPT2Model's state_dict (optionally under 'transformer.', as GPT2LMHeadModel saves them). The linear layers
// are Conv1D: their weights are stored (in, out), so y = x·W + b with no transpose. The unembedding is tied
// to wte. Parameters are kept under their Hugging Face names, without the prefix, as float32 (the matrices as
// float16 for a model too large for that: checkGpt2Memory decides, checkpoint-stream.js reads).
import { halfToFloatTable } from './safetensors-read.js';

const ACTIVATIONS = ['gelu_new', 'gelu_pytorch_tanh', 'gelu_fast'];

/**
 * The sizes of config.json: {vocabSize, contextLength, dModel, layers, heads, dMlp, layerNormEpsilon}.
 * Accepts the parsed object or its text.
 */
export function gpt2Config(json, source = 'config.json') {
  const fn = 'gpt2Config';
  let raw = json;
  if (typeof json === 'string') {
    try { raw = JSON.parse(json); } catch (error) { throw new Error(`${fn}: ${source} is not JSON (${error.message})`); }
  }
  const field = (name, fallback) => {
    const value = raw?.[name] ?? fallback;
    if (!Number.isInteger(value) || value < 1) throw new Error(`${fn}: ${source}: ${name} is ${JSON.stringify(value)}; expected an integer ≥ 1`);
    return value;
  };
  const dModel = field('n_embd');
  const heads = field('n_head');
  if (dModel % heads !== 0) throw new Error(`${fn}: ${source}: n_embd=${dModel} is not divisible by n_head=${heads}`);
  const activation = raw.activation_function ?? 'gelu_new';
  if (!ACTIVATIONS.includes(activation)) {
    throw new Error(`${fn}: ${source}: activation_function is ${JSON.stringify(activation)}; expected GPT-2's tanh GELU (${ACTIVATIONS.join(', ')})`);
  }
  const epsilon = raw.layer_norm_epsilon ?? 1e-5;
  if (!(typeof epsilon === 'number' && epsilon > 0)) throw new Error(`${fn}: ${source}: layer_norm_epsilon is ${JSON.stringify(epsilon)}; expected a number > 0`);
  return Object.freeze({
    vocabSize: field('vocab_size'),
    contextLength: field('n_positions', raw.n_ctx),
    dModel,
    layers: field('n_layer'),
    heads,
    dMlp: raw.n_inner == null ? 4 * dModel : field('n_inner'),
    layerNormEpsilon: epsilon,
  });
}

/** {name: shape} of every parameter the forward reads, in Hugging Face's names and (in, out) layouts. */
export function gpt2ParameterShapes({ vocabSize, contextLength, dModel: C, layers, dMlp }) {
  const shapes = { 'wte.weight': [vocabSize, C], 'wpe.weight': [contextLength, C] };
  for (let l = 0; l < layers; l++) {
    Object.assign(shapes, {
      [`h.${l}.ln_1.weight`]: [C], [`h.${l}.ln_1.bias`]: [C],
      [`h.${l}.attn.c_attn.weight`]: [C, 3 * C], [`h.${l}.attn.c_attn.bias`]: [3 * C],
      [`h.${l}.attn.c_proj.weight`]: [C, C], [`h.${l}.attn.c_proj.bias`]: [C],
      [`h.${l}.ln_2.weight`]: [C], [`h.${l}.ln_2.bias`]: [C],
      [`h.${l}.mlp.c_fc.weight`]: [C, dMlp], [`h.${l}.mlp.c_fc.bias`]: [dMlp],
      [`h.${l}.mlp.c_proj.weight`]: [dMlp, C], [`h.${l}.mlp.c_proj.bias`]: [C],
    });
  }
  shapes['ln_f.weight'] = [C];
  shapes['ln_f.bias'] = [C];
  return shapes;
}

/** How many float32 numbers the parameters hold. */
export function gpt2ParameterCount(config) {
  return Object.values(gpt2ParameterShapes(config)).reduce((n, shape) => n + shape.reduce((a, b) => a * b, 1), 0);
}

/** The GEMM's matrices of the model (kept in float16 by a float16-resident model): wte and each block's four. */
export const isGpt2Matrix = (name) => name === 'wte.weight' || /\.(c_attn|c_proj|c_fc)\.weight$/.test(name);

/** The largest memory the WASM heap can have (the builds' maximum). */
export const WASM_HEAP_LIMIT = 2 ** 31;

const padded8 = (n) => Math.ceil(n / 8) * 8;

/**
 * The bytes a loaded model holds at once, for each way of keeping it (the loaders stream the file into these
 * arrays, checkpoint-stream.js: the file itself is never held):
 * - float32 (the fast path, all of it packed once): `parameters` the float32 parameters the checkpoint keeps (the
 *   JS reference and `intermediates` read them); in the WASM heap (`heap`) their copy, the packed copy of the
 *   matrices (`packed`, the same size again) and one forward's activations at the full context.
 * - float16 (half-model.js: the matrices kept as float16 and each block's unpacked and packed just before it
 *   runs): `parameters` the float16 matrices and float32 vectors; in the WASM heap (`heap`) the packed
 *   unembedding, the buffer a matrix is unpacked into (wte's size, at load), one block's packed matrices and the
 *   activations.
 * `total` = parameters + heap.
 */
export function gpt2MemoryBytes(config) {
  const parameters = 4 * gpt2ParameterCount(config);
  const { contextLength: T, dModel: C, heads: H, dMlp: M, vocabSize: V } = config;
  const activations = 4 * (T * (6 * C + M) + H * T * T + T * V);
  let matrices = 0;
  for (const [name, shape] of Object.entries(gpt2ParameterShapes(config))) if (isGpt2Matrix(name)) matrices += shape[0] * shape[1];
  const unembedding = 4 * C * padded8(V);
  const staging = 4 * V * C;
  const block = 4 * (C * padded8(3 * C) + C * padded8(C) + C * padded8(M) + M * padded8(C));
  const half = 2 * matrices + (parameters - 4 * matrices);
  const halfHeap = unembedding + staging + block + activations;
  const heap = 2 * parameters + activations;
  return {
    parameters, packed: parameters, activations, heap, total: parameters + heap,
    float16: { parameters: half, unembedding, staging, block, activations, heap: halfHeap, total: half + halfHeap },
  };
}

const GB = 1e9;
const gb = (bytes) => `${(bytes / GB).toFixed(2)} GB`;

/**
 * How a model is kept, or a refusal with the figures: 'float32' when the fast path's whole copy fits in
 * limitBytes (and its heap in the WASM heap), else 'float16' when the float16-resident model does, else an Error
 * that gives both. fileBytes: bytes held besides, throughout (a file read whole; the loaders stream, holding
 * none). Returns gpt2MemoryBytes' figures and `resident`.
 */
export function checkGpt2Memory(config, { limitBytes = WASM_HEAP_LIMIT, name = 'the model', fileBytes = 0 } = {}) {
  const need = gpt2MemoryBytes(config);
  const total = need.total + fileBytes;
  if (total <= limitBytes && need.heap <= WASM_HEAP_LIMIT) return { ...need, resident: 'float32' };
  const half = need.float16;
  const halfTotal = half.total + fileBytes;
  if (halfTotal <= limitBytes && half.heap <= WASM_HEAP_LIMIT) return { ...need, resident: 'float16' };
  const file = fileBytes ? `, ${gb(fileBytes)} for the file held whole` : '';
  throw new Error(`loadGpt2: ${name} needs ${gb(total)} kept in float32 (${gb(need.parameters)} of float32 parameters and, in the WASM heap, ` +
    `${gb(need.parameters)} for their copy, ${gb(need.packed)} packed for the fast path and ${gb(need.activations)} of activations${file}), ` +
    `or ${gb(halfTotal)} kept in float16 (${gb(half.parameters)} of parameters, ${gb(half.heap)} in the WASM heap${file}), ` +
    `but ${gb(limitBytes)} are available; expected a model that fits (gpt2, distilgpt2, gpt2-medium)`);
}

/** Whether a checkpoint's parameters are kept in float16 (gpt2ParametersFromSafetensors with resident 'float16'). */
export const isFloat16Resident = (parameters) => parameters['wte.weight'].data instanceof Uint16Array;

/**
 * The parameters as float32 for the engines that read float32 (the JS reference, the attention API): a view
 * whose float16 matrices are widened each time they are read (nothing kept: a float16-resident model is one
 * too large to hold in float32).
 */
export function float32Parameters(parameters) {
  if (!isFloat16Resident(parameters)) return parameters;
  const table = halfToFloatTable();
  return new Proxy(parameters, {
    get(target, name) {
      const tensor = target[name];
      if (!(tensor?.data instanceof Uint16Array)) return tensor;
      const data = new Float32Array(tensor.data.length);
      for (let i = 0; i < data.length; i++) data[i] = table[tensor.data[i]];
      return { data, shape: tensor.shape };
    },
  });
}
