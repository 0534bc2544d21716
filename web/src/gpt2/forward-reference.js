// GPT-2's forward in plain JS, written to read like the math (the JS reference; the fast path is
// cpp/kernels/gpt2_inference.cpp). One sequence of T token ids; C = d_model, H heads of d = C/H.
//
//   x = wte[tokens] + wpe[0..T)                                        (T, C)
//   per block:  a = LN(x; ln_1)
//               [q k v] = a·c_attn.W + c_attn.b                         (T, 3C), Conv1D: W is (in, out)
//               weights_h = softmax(q_h·k_hᵀ/√d, future masked)          (H, T, T)
//               x = x + concat_h(weights_h·v_h)·attn.c_proj.W + b       ablated heads contribute 0
//               x = x + gelu_tanh(LN(x; ln_2)·c_fc.W + b)·mlp.c_proj.W + b
//   logits = LN(x; ln_f)·wteᵀ                                          (T, V), tied unembedding
import { geluTanh } from '../core/reference/gelu.js';
import { layerNorm } from '../core/reference/layer-norm.js';
import { matmulRaw } from '../core/reference/linalg.js';

/** y (rows, out) = x (rows, in)·W (in, out) + b. */
function conv1d(x, rows, { data: W, shape: [inSize, outSize] }, bias) {
  const y = new Float32Array(rows * outSize);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < outSize; j++) {
      let sum = bias.data[j];
      for (let p = 0; p < inSize; p++) sum += x[i * inSize + p] * W[p * outSize + j];
      y[i * outSize + j] = sum;
    }
  }
  return y;
}

/**
 * Replaces ablated heads' context columns (T, C) in place: flags[l·H + h] 1 = zeros, 2 = the head's context
 * averaged over the positions.
 */
export function ablate(context, flags, l, T, C, H) {
  const d = C / H;
  for (let h = 0; h < H; h++) {
    const how = flags?.[l * H + h];
    if (!how) continue;
    for (let c = h * d; c < (h + 1) * d; c++) {
      let mean = 0;
      if (how === 2) { for (let t = 0; t < T; t++) mean += context[t * C + c]; mean /= T; }
      for (let t = 0; t < T; t++) context[t * C + c] = mean;
    }
  }
}

/**
 * The logits (T·V floats), every layer's attention weights (H·T·T floats each) and, with intermediates, each
 * layer's {input, normed, query, key, value, weights, context, output} (output: the attention sublayer's, before
 * the residual add). flags: layers·heads bytes, 1 = zero-ablated, 2 = mean-ablated.
 */
export function gpt2ForwardReference(config, parameters, tokens, { flags = null, intermediates = false } = {}) {
  const { dModel: C, heads: H, layerNormEpsilon: eps, vocabSize: V } = config;
  const T = tokens.length;
  const d = C / H;
  const p = (name) => parameters[name];
  const norm = (x, name) => layerNorm({ data: x, shape: [T, C] }, { weight: p(`${name}.weight`), bias: p(`${name}.bias`), eps }).output.data;

  // 1. token and position embeddings
  let x = new Float32Array(T * C);
  const [wteRows, wpeRows] = [p('wte.weight').data, p('wpe.weight').data];
  for (let t = 0; t < T; t++) {
    for (let c = 0; c < C; c++) x[t * C + c] = wteRows[tokens[t] * C + c] + wpeRows[t * C + c];
  }
  const attention = [];
  const layers = [];
  for (let l = 0; l < config.layers; l++) {
    const block = (name) => `h.${l}.${name}`;
    // 2. the attention sublayer
    const normed = norm(x, block('ln_1'));
    const qkv = conv1d(normed, T, p(block('attn.c_attn.weight')), p(block('attn.c_attn.bias')));
    const context = new Float32Array(T * C);
    const weights = new Float32Array(H * T * T);
    for (let h = 0; h < H; h++) {
      // q_h, k_h, v_h are columns [h·d, (h+1)·d) of the Q, K and V thirds of qkv: (T, 3C) -> (T, H, d)
      const q = (t, i) => qkv[t * 3 * C + h * d + i];
      const k = (t, i) => qkv[t * 3 * C + C + h * d + i];
      const v = (t, i) => qkv[t * 3 * C + 2 * C + h * d + i];
      for (let i = 0; i < T; i++) {
        // scores q_i·k_j/√d over j ≤ i (the future is −∞: weight 0), then the stable softmax
        const scores = new Float64Array(i + 1);
        for (let j = 0; j <= i; j++) {
          let dot = 0;
          for (let c = 0; c < d; c++) dot += q(i, c) * k(j, c);
          scores[j] = dot / Math.sqrt(d);
        }
        const max = Math.max(...scores);
        let sum = 0;
        for (let j = 0; j <= i; j++) { scores[j] = Math.exp(scores[j] - max); sum += scores[j]; }
        for (let j = 0; j <= i; j++) weights[(h * T + i) * T + j] = scores[j] / sum;
        for (let c = 0; c < d; c++) {
          let value = 0;
          for (let j = 0; j <= i; j++) value += weights[(h * T + i) * T + j] * v(j, c);
          context[i * C + h * d + c] = value;
        }
      }
    }
    ablate(context, flags, l, T, C, H);
    attention.push(weights);
    const projected = conv1d(context, T, p(block('attn.c_proj.weight')), p(block('attn.c_proj.bias')));
    if (intermediates) {
      const columns = (from) => Float32Array.from({ length: T * C }, (_, k) => qkv[Math.floor(k / C) * 3 * C + from + (k % C)]);
      const tensor = (data) => ({ data, shape: [T, C] });
      layers.push({
        input: tensor(Float32Array.from(x)), normed: tensor(normed), query: tensor(columns(0)), key: tensor(columns(C)),
        value: tensor(columns(2 * C)), weights: { data: weights, shape: [H, T, T] }, context: tensor(context), output: tensor(projected),
      });
    }
    x = x.map((value, i) => value + projected[i]);
    // 3. the MLP sublayer
    const hidden = conv1d(norm(x, block('ln_2')), T, p(block('mlp.c_fc.weight')), p(block('mlp.c_fc.bias'))).map(geluTanh);
    const mlp = conv1d(hidden, T, p(block('mlp.c_proj.weight')), p(block('mlp.c_proj.bias')));
    x = x.map((value, i) => value + mlp[i]);
  }
  // 4. final LayerNorm and the tied unembedding: logits = LN(x)·wteᵀ
  const final = norm(x, 'ln_f');
  const logits = matmulRaw(final, p('wte.weight').data, T, C, V, true);
  return { logits, attention, layers: intermediates ? layers : null };
}
