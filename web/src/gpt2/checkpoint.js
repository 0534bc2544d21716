// A GPT-2-family checkpoint in Hugging Face's layout: config.json's sizes, and the parameters of
// GPT2Model's state_dict (optionally under 'transformer.', as GPT2LMHeadModel saves them). The linear layers
// are Conv1D: their weights are stored (in, out), so y = x·W + b with no transpose. The unembedding is tied
// to wte. Parameters are kept under their Hugging Face names, without the prefix, as float32 (the matrices as
// float16 for a model too large for that: memory.js checkGpt2Memory decides, checkpoint-stream.js reads).
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
