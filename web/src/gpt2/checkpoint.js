// A GPT-2-family checkpoint in Hugging Face's layout: config.json's sizes, and the parameters of
// GPT2Model's state_dict (optionally under 'transformer.', as GPT2LMHeadModel saves them). The linear layers
// are Conv1D: their weights are stored (in, out), so y = x·W + b with no transpose. The unembedding is tied
// to wte. Parameters are kept under their Hugging Face names, without the prefix, as float32.
import { readSafetensorsHeader, readTensor } from './safetensors-read.js';

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

/**
 * The bytes a loaded model holds at once: its float32 parameters, the fast path's packed copy of the
 * matrices (the same size again), and one forward's activations at the full context.
 */
export function gpt2MemoryBytes(config) {
  const parameters = 4 * gpt2ParameterCount(config);
  const { contextLength: T, dModel: C, heads: H, dMlp, vocabSize: V } = config;
  const activations = 4 * (T * (6 * C + dMlp) + H * T * T + T * V);
  return { parameters, packed: parameters, activations, total: 2 * parameters + activations };
}

const GB = 1e9;
const gb = (bytes) => `${(bytes / GB).toFixed(2)} GB`;

/**
 * Refuses, with the figures, a model that will not fit in limitBytes (the fast path's WASM heap, 2 GiB,
 * unless the caller knows less is available).
 */
export function checkGpt2Memory(config, { limitBytes = 2 ** 31, name = 'the model', fileBytes = 0 } = {}) {
  const need = gpt2MemoryBytes(config);
  const total = need.total + fileBytes;
  if (total > limitBytes) {
    throw new Error(`loadGpt2: ${name} needs ${gb(total)} (${gb(need.parameters)} of float32 parameters, ${gb(need.packed)} packed for the fast path, ` +
      `${gb(need.activations)} of activations${fileBytes ? `, ${gb(fileBytes)} for the file while it loads` : ''}) but ${gb(limitBytes)} are available; ` +
      'expected a model that fits (gpt2 or distilgpt2)');
  }
  return need;
}

/**
 * The parameters of a GPT-2 safetensors file (whole, as a Uint8Array) for config:
 * {name: {data: Float32Array, shape}} under Hugging Face's names without 'transformer.'. Tensors the forward
 * does not read (the attention's causal-mask buffers, lm_head tied to wte) are skipped.
 */
export function gpt2ParametersFromSafetensors(bytes, config, source = 'model.safetensors') {
  const fn = 'loadGpt2';
  const header = readSafetensorsHeader(bytes, source);
  if (header.headerBytes + header.dataBytes > bytes.length) {
    throw new Error(`${fn}: ${source} is truncated: its header describes ${header.headerBytes + header.dataBytes} bytes but the file has ${bytes.length}`);
  }
  const names = Object.keys(header.entries);
  const prefix = names.some((name) => name.startsWith('transformer.')) ? 'transformer.' : '';
  const parameters = {};
  for (const [name, shape] of Object.entries(gpt2ParameterShapes(config))) {
    const stored = prefix + name;
    const entry = header.entries[stored];
    if (!entry) throw new Error(`${fn}: ${source} has no tensor ${stored}; expected one of shape [${shape}] for this config`);
    if (entry.shape.length !== shape.length || entry.shape.some((n, i) => n !== shape[i])) {
      const transposed = entry.shape.length === 2 && entry.shape[0] === shape[1] && entry.shape[1] === shape[0];
      throw new Error(`${fn}: ${source}: tensor ${stored} has shape [${entry.shape}]; expected [${shape}]` +
        (transposed ? " (GPT-2's Conv1D layout is (in, out): this one is (out, in), as nn.Linear stores it)" : ' for this config'));
    }
    const tensor = readTensor(bytes, header, stored, source);
    parameters[name] = { data: tensor.data, shape: [...shape] };
  }
  return parameters;
}
