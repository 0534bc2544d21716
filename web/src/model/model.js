// The model interface (docs/api.md "Models"): { name, tokenizer, config, parameters, forward(tokens, options) }
// for an attention-only transformer of the trainer's layout (docs/api.md "The model"). The forward runs in
// JS (float64 sums over float32 parameters) one sequence at a time and can switch heads off (ablation).
import { describeValue } from '../core/tensor.js';
import { causalAttentionForward, layerNormForward, linearForward } from '../train/ops.js';
import { parameterSpec } from '../train/model.js';

export const ABLATIONS = ['zero', 'mean'];

/** [[layer, head], …] → Set of 'layer.head' keys, every pair checked against config. */
export function headsOffSet(fn, headsOff, { layers, heads }) {
  if (headsOff === undefined || headsOff === null) return new Set();
  if (!Array.isArray(headsOff)) throw new Error(`${fn}: options.headsOff is ${describeValue(headsOff)}; expected an array of [layer, head] pairs (0-based)`);
  const keys = new Set();
  headsOff.forEach((pair, i) => {
    const ok = Array.isArray(pair) && pair.length === 2 && Number.isInteger(pair[0]) && Number.isInteger(pair[1])
      && pair[0] >= 0 && pair[0] < layers && pair[1] >= 0 && pair[1] < heads;
    const shown = Array.isArray(pair) ? JSON.stringify(pair) : describeValue(pair);
    if (!ok) throw new Error(`${fn}: options.headsOff[${i}] is ${shown}; expected [layer, head] with layer 0 to ${layers - 1} and head 0 to ${heads - 1}`);
    keys.add(`${pair[0]}.${pair[1]}`);
  });
  return keys;
}

/** tokens: array-like of ids → Int32Array, checked against the model's vocabulary and context. */
export function checkTokens(fn, tokens, { vocabSize, contextLength }) {
  const ok = tokens && typeof tokens.length === 'number' && !(typeof tokens === 'string');
  if (!ok) throw new Error(`${fn}: tokens is ${describeValue(tokens)}; expected an array of token ids`);
  if (tokens.length < 1 || tokens.length > contextLength) throw new Error(`${fn}: tokens has ${tokens.length} ids; expected 1 to ${contextLength} (the model's contextLength)`);
  const ids = Int32Array.from(tokens, Number);
  ids.forEach((id, i) => {
    if (!Number.isInteger(Number(tokens[i])) || id < 0 || id >= vocabSize) throw new Error(`${fn}: tokens[${i}]=${describeValue(tokens[i])}; expected an integer from 0 to ${vocabSize - 1}`);
  });
  return ids;
}

/**
 * createAttentionOnlyModel({name, tokenizer, config, parameters}) → the model interface over the trainer's
 * attention-only transformer: config {vocabSize, contextLength, dModel, heads, layers, layerNorm}, parameters
 * {state_dict name: {data: Float32Array, shape}}.
 */
export function createAttentionOnlyModel({ name = 'attention-only', tokenizer = null, config, parameters }) {
  const fn = 'createAttentionOnlyModel';
  for (const [key, tensorShape] of parameterSpec(config)) {
    const t = parameters?.[key];
    if (!t || !t.data || t.data.length !== tensorShape.reduce((a, b) => a * b, 1)) {
      throw new Error(`${fn}: parameters['${key}'] is ${t ? `of ${t.data?.length} values` : 'missing'}; expected shape [${tensorShape.join(', ')}]`);
    }
  }
  const model = {
    name,
    kind: 'attention-only',
    tokenizer,
    config: { ...config, dHead: config.dModel / config.heads },
    parameters,
    forward: (tokens, options) => attentionOnlyForward(model, tokens, options),
  };
  return model;
}

/**
 * model.forward(tokens, {intermediates [false], headsOff [[]], ablation ['zero']}) for one sequence of T ids →
 * { tokens, logits (T, V), attention: [(H, T, T) per layer], layers?: [{input, normed, query, key, value, weights,
 * context, output} per layer] }. A head that is off has its context (its d_head columns of the attention's
 * output, before out_proj) replaced by zeros ('zero') or by its mean over the sequence's positions ('mean').
 */
function attentionOnlyForward(model, tokens, options = {}) {
  const fn = 'model.forward';
  const { config, parameters } = model;
  const { vocabSize: V, dModel: d, heads: H, layers: L, layerNorm } = config;
  const { intermediates = false, headsOff, ablation = 'zero' } = options ?? {};
  if (!ABLATIONS.includes(ablation)) throw new Error(`${fn}: options.ablation=${describeValue(ablation)}; expected 'zero' or 'mean'`);
  const ids = checkTokens(fn, tokens, config);
  const off = headsOffSet(fn, headsOff, config);
  const T = ids.length;
  const dh = d / H;
  const p = (key) => parameters[key].data;
  let h = new Float64Array(T * d);
  const tok = p('tok_emb.weight');
  const pos = p('pos_emb.weight');
  for (let t = 0; t < T; t++) for (let i = 0; i < d; i++) h[t * d + i] = tok[ids[t] * d + i] + pos[t * d + i];
  const attention = [];
  const layers = [];
  const f32 = (x, shape) => ({ data: Float32Array.from(x), shape });
  for (let l = 0; l < L; l++) {
    const w = (key) => p(`blocks.${l}.${key}`);
    const a = layerNorm ? layerNormForward(h, w('ln.weight'), w('ln.bias'), T, d).y : h;
    const q = linearForward(a, w('q_proj.weight'), w('q_proj.bias'), T, d, d);
    const k = linearForward(a, w('k_proj.weight'), w('k_proj.bias'), T, d, d);
    const v = linearForward(a, w('v_proj.weight'), w('v_proj.bias'), T, d, d);
    const att = causalAttentionForward(q, k, v, 1, T, d, H);
    for (let head = 0; head < H; head++) {
      if (!off.has(`${l}.${head}`)) continue;
      for (let i = head * dh; i < (head + 1) * dh; i++) {
        let mean = 0;
        if (ablation === 'mean') { for (let t = 0; t < T; t++) mean += att.context[t * d + i]; mean /= T; }
        for (let t = 0; t < T; t++) att.context[t * d + i] = mean;
      }
    }
    const o = linearForward(att.context, w('out_proj.weight'), w('out_proj.bias'), T, d, d);
    const next = new Float64Array(T * d);
    for (let i = 0; i < next.length; i++) next[i] = h[i] + o[i];
    attention.push(f32(att.weights, [H, T, T]));
    if (intermediates) {
      layers.push({
        input: f32(h, [T, d]), normed: f32(a, [T, d]), query: f32(q, [T, d]), key: f32(k, [T, d]), value: f32(v, [T, d]),
        weights: attention[l], context: f32(att.context, [T, d]), output: f32(o, [T, d]),
      });
    }
    h = next;
  }
  const hf = layerNorm ? layerNormForward(h, p('ln_final.weight'), p('ln_final.bias'), T, d).y : h;
  const logits = linearForward(hf, p('unembed.weight'), p('unembed.bias'), T, d, V);
  const result = { tokens: ids, logits: f32(logits, [T, V]), attention };
  if (intermediates) result.layers = layers;
  return result;
}
