// The attention-only transformer of docs/api.md "Training": tok_emb + pos_emb → L blocks of
// h + out_proj(MHA(LN?(h))) (causal) → ln_final? → unembed. Parameters are named and laid out exactly like
// the PyTorch AttentionOnly module's state_dict (nn.Linear weights (out, in)), in state_dict order.
import { mulberry32 } from '../base/random.js';
import { jsLinear } from './linear.js';
import {
  crossEntropy, layerNormBackward, layerNormForward,
} from './ops.js';

/** [name, shape, init] in state_dict order; init 'normal' (N(0, 0.02²)), 'zeros' or 'ones'. */
export function parameterSpec({ vocabSize: V, contextLength: T, dModel: d, layers: L, layerNorm }) {
  const spec = [['tok_emb.weight', [V, d], 'normal'], ['pos_emb.weight', [T, d], 'normal']];
  for (let l = 0; l < L; l++) {
    if (layerNorm) spec.push([`blocks.${l}.ln.weight`, [d], 'ones'], [`blocks.${l}.ln.bias`, [d], 'zeros']);
    for (const p of ['q_proj', 'k_proj', 'v_proj', 'out_proj']) {
      spec.push([`blocks.${l}.${p}.weight`, [d, d], 'normal'], [`blocks.${l}.${p}.bias`, [d], 'zeros']);
    }
  }
  if (layerNorm) spec.push(['ln_final.weight', [d], 'ones'], ['ln_final.bias', [d], 'zeros']);
  spec.push(['unembed.weight', [V, d], 'normal'], ['unembed.bias', [V], 'zeros']);
  return spec;
}

export const INIT_STD = 0.02;

/**
 * The seeded initialisation: one mulberry32(seed) stream; for each 'normal' parameter in state_dict
 * order, each element in row-major order is 0.02·√(−2 ln u₁)·cos(2π u₂) with u₁ = 1 − next(), u₂ = next()
 * (Box–Muller, one normal per pair), rounded to float32. Biases 0, LayerNorm weights 1 and biases 0.
 */
export function initParameters(config, seed) {
  const next = mulberry32(seed);
  const params = {};
  for (const [name, shape, init] of parameterSpec(config)) {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    if (init === 'ones') data.fill(1);
    if (init === 'normal') {
      for (let i = 0; i < data.length; i++) {
        const u1 = 1 - next();
        const u2 = next();
        data[i] = INIT_STD * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
      }
    }
    params[name] = { data, shape };
  }
  return params;
}

/**
 * Forward (and, with targets and wantGradients, backward) of the model for tokens (B, T) Int32.
 * linear: where the linear layers' and the attention's products run (linear.js). Returns { loss, correct, count, attention: [(B, H, T, T) Float64Array per layer], grads: {name: Float64Array} }.
 */
export function runModel(config, params, inputs, targets, { B, T, wantGradients = false, wantLoss = true, linear = jsLinear } = {}) {
  const { linearForward, linearBackward, causalAttentionForward, causalAttentionBackward } = linear;
  const { vocabSize: V, dModel: d, heads: H, layers: L, layerNorm } = config;
  const p = (name) => params[name].data;
  const N = B * T;
  // 1. h = tok_emb[token] + pos_emb[t]   (B, T, d)
  let h = new Float64Array(N * d);
  const tok = p('tok_emb.weight');
  const pos = p('pos_emb.weight');
  for (let n = 0; n < N; n++) {
    const id = inputs[n];
    const t = n % T;
    for (let i = 0; i < d; i++) h[n * d + i] = tok[id * d + i] + pos[t * d + i];
  }
  // 2. blocks: h = h + out_proj(attention(q_proj(a), k_proj(a), v_proj(a))), a = LN(h) or h
  const saved = [];
  for (let l = 0; l < L; l++) {
    const w = (name) => p(`blocks.${l}.${name}`);
    const ln = layerNorm ? layerNormForward(h, w('ln.weight'), w('ln.bias'), N, d) : null;
    const a = ln ? ln.y : h;
    const q = linearForward(a, w('q_proj.weight'), w('q_proj.bias'), N, d, d);
    const k = linearForward(a, w('k_proj.weight'), w('k_proj.bias'), N, d, d);
    const v = linearForward(a, w('v_proj.weight'), w('v_proj.bias'), N, d, d);
    const att = causalAttentionForward(q, k, v, B, T, d, H);
    const o = linearForward(att.context, w('out_proj.weight'), w('out_proj.bias'), N, d, d);
    const next = new Float64Array(N * d);
    for (let i = 0; i < next.length; i++) next[i] = h[i] + o[i];
    saved.push({ ln, a, q, k, v, weights: att.weights, context: att.context });
    h = next;
  }
  const attention = saved.map((s) => s.weights);
  if (!wantLoss) return { attention };
  // 3. logits = unembed(LN_final(h) or h)   (B, T, V)
  const lnFinal = layerNorm ? layerNormForward(h, p('ln_final.weight'), p('ln_final.bias'), N, d) : null;
  const hf = lnFinal ? lnFinal.y : h;
  const logits = linearForward(hf, p('unembed.weight'), p('unembed.bias'), N, d, V);
  if (targets === null) return { attention, logits }; // trainer.predict: the logits, no loss
  const ce = crossEntropy(logits, targets, N, V, wantGradients);
  const result = { loss: ce.loss, correct: ce.correct, count: ce.count, attention };
  if (!wantGradients) return result;

  // Backward, in reverse.
  const grads = {};
  for (const name of Object.keys(params)) grads[name] = new Float64Array(params[name].data.length);
  let dh = linearBackward(hf, p('unembed.weight'), ce.dLogits, N, d, V, grads['unembed.weight'], grads['unembed.bias']);
  if (lnFinal) dh = layerNormBackward(lnFinal, p('ln_final.weight'), dh, N, d, grads['ln_final.weight'], grads['ln_final.bias']);
  for (let l = L - 1; l >= 0; l--) {
    const s = saved[l];
    const w = (name) => p(`blocks.${l}.${name}`);
    const g = (name) => grads[`blocks.${l}.${name}`];
    // the residual passes dh through; the attention branch adds its own
    const dContext = linearBackward(s.context, w('out_proj.weight'), dh, N, d, d, g('out_proj.weight'), g('out_proj.bias'));
    const { dq, dk, dv } = causalAttentionBackward(s.q, s.k, s.v, s.weights, dContext, B, T, d, H);
    const da = linearBackward(s.a, w('q_proj.weight'), dq, N, d, d, g('q_proj.weight'), g('q_proj.bias'));
    // k_proj.bias adds q_i·b to every score of row i, which the softmax cancels: its gradient is 0 for every
    // input, so it stays the exact 0 it starts at (Σ_rows dk would be that 0's rounding noise, which AdamW
    // divides by its √v into steps of size lr).
    const dak = linearBackward(s.a, w('k_proj.weight'), dk, N, d, d, g('k_proj.weight'), null);
    const dav = linearBackward(s.a, w('v_proj.weight'), dv, N, d, d, g('v_proj.weight'), g('v_proj.bias'));
    for (let i = 0; i < da.length; i++) da[i] += dak[i] + dav[i];
    const dBranch = s.ln ? layerNormBackward(s.ln, w('ln.weight'), da, N, d, g('ln.weight'), g('ln.bias')) : da;
    for (let i = 0; i < dh.length; i++) dh[i] += dBranch[i];
  }
  const gTok = grads['tok_emb.weight'];
  const gPos = grads['pos_emb.weight'];
  for (let n = 0; n < N; n++) {
    const id = inputs[n];
    const t = n % T;
    for (let i = 0; i < d; i++) { gTok[id * d + i] += dh[n * d + i]; gPos[t * d + i] += dh[n * d + i]; }
  }
  result.grads = grads;
  return result;
}
