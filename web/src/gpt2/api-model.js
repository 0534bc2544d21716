// GPT-2 composed of the attention API's registry functions, so it runs wherever they run and on the path
// the planner picks for each call (teaching, fused, workers, WebGPU: `lastCall` of each): per block,
//   a = layerNorm(x, ln_1);  context = multiheadAttentionFused(a, {inProjection: c_attn.W, inBias: c_attn.b},
//   {causal, heads})  (GPT-2's fused c_attn is the API's inProjection, (in, 3C));  x += matmul(context, c_proj.W) + b;
//   x += matmul(gelu(matmul(layerNorm(x, ln_2), c_fc.W) + b, {approximate: 'tanh'}), mlp.c_proj.W) + b
// and logits = matmul(layerNorm(x, ln_f), wte, {transposeB}). The embeddings, biases and residual adds are
// elementwise JS. Ablated heads' context columns are replaced (zeros or their mean) before c_proj.

import { ablate } from './forward-reference.js';

/**
 * GPT-2 over a loaded attention API (loadAttention's object); forward as wasm-model.js's, plus the paths, and
 * asynchronous: the webgpu backend's functions return Promises (the others' results are awaited the same way).
 */
export function createApiGpt2(attention, config, parameters) {
  const { dModel: C, heads: H, layers, layerNormEpsilon: eps, dMlp: M } = config;
  const p = (name) => parameters[name];
  return {
    async forward(tokens, flags, wantWeights) {
      const T = tokens.length;
      const paths = new Set();
      const call = async (fn, ...args) => {
        const result = await attention[fn](...args);
        paths.add(`${fn}: ${attention.lastCall?.path ?? '?'}`);
        return result;
      };
      const norm = async (x, name) => (await call('layerNorm', { data: x, shape: [T, C] }, { weight: p(`${name}.weight`), bias: p(`${name}.bias`), eps })).output.data;
      const linear = async (x, inSize, name) => {
        const y = (await call('matmul', { data: x, shape: [T, inSize] }, p(`${name}.weight`))).output.data;
        const bias = p(`${name}.bias`).data;
        for (let i = 0; i < y.length; i++) y[i] += bias[i % bias.length];
        return y;
      };
      const x = new Float32Array(T * C);
      const wte = p('wte.weight').data;
      const wpe = p('wpe.weight').data;
      for (let t = 0; t < T; t++) for (let c = 0; c < C; c++) x[t * C + c] = wte[tokens[t] * C + c] + wpe[t * C + c];
      const weights = [];
      for (let l = 0; l < layers; l++) {
        const block = (name) => `h.${l}.${name}`;
        const result = await call('multiheadAttentionFused', { data: await norm(x, block('ln_1')), shape: [T, C] },
          { inProjection: p(block('attn.c_attn.weight')), inBias: p(block('attn.c_attn.bias')) },
          { causal: true, heads: H, intermediates: wantWeights });
        const context = result.output.data;
        if (wantWeights) weights.push(result.weights.data);
        ablate(context, flags, l, T, C, H);
        const projected = await linear(context, C, block('attn.c_proj'));
        for (let i = 0; i < x.length; i++) x[i] += projected[i];
        const preActivation = await linear(await norm(x, block('ln_2')), C, block('mlp.c_fc'));
        const hidden = (await call('gelu', { data: preActivation, shape: [T, M] }, { approximate: 'tanh' })).output.data;
        const mlp = await linear(hidden, M, block('mlp.c_proj'));
        for (let i = 0; i < x.length; i++) x[i] += mlp[i];
      }
      const logits = (await call('matmul', { data: await norm(x, 'ln_f'), shape: [T, C] }, p('wte.weight'), { transposeB: true })).output.data;
      return { logits, attention: wantWeights ? weights : null, paths: [...paths] };
    },
    dispose() {},
  };
}
