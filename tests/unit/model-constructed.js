// Attention-only models whose weights are written by hand, so what each head does is known: a token block
// (one-hot of the token), a position block (one-hot of the position) and a "previous token" block that a
// previous-token head in layer 1 fills. Scores are scaled by SHARP so each softmax is one-hot in practice.
import { createAttentionOnlyModel } from '../../web/src/model/model.js';
import { parameterSpec } from '../../web/src/train/model.js';

export const V = 64;
export const T = 64;
const SHARP = 60;

/** Block offsets: token [0, V), position [V, V + T), previous token [V + T, 2V + T), induction's output [2V + T, 3V + T). */
export const TOKEN = 0;
export const POSITION = V;
export const PREVIOUS = V + T;
export const OUTPUT = 2 * V + T;
export const D = 3 * V + T;

/**
 * kinds: one entry per layer, each one head: 'previous' (position t looks at t − 1 and writes that token into the
 * previous-token block), 'sink' (every row on position 0), 'self' (every row on itself), 'induction' (the token at
 * t looks for a position whose previous-token block holds it: the position after its earlier occurrence, and
 * copies that position's token into the output block, which the unembedding reads as its prediction).
 */
export function constructedModel(kinds) {
  const config = { vocabSize: V, contextLength: T, dModel: D, heads: 1, layers: kinds.length, layerNorm: false };
  const parameters = {};
  for (const [name, shape] of parameterSpec(config)) parameters[name] = { data: new Float32Array(shape.reduce((a, b) => a * b, 1)), shape };
  const set = (name, row, col, value) => { parameters[name].data[row * D + col] = value; };
  for (let v = 0; v < V; v++) set('tok_emb.weight', v, TOKEN + v, 1);
  for (let t = 0; t < T; t++) set('pos_emb.weight', t, POSITION + t, 1);
  const scale = SHARP * Math.sqrt(D); // undoes the 1/√d_head of the scores
  kinds.forEach((kind, l) => {
    const w = (p) => `blocks.${l}.${p}.weight`;
    if (kind === 'previous' || kind === 'self' || kind === 'sink') {
      for (let t = 0; t < T; t++) set(w('k_proj'), POSITION + t, POSITION + t, 1);
    }
    if (kind === 'previous') {
      // q_t = scale·e_{t−1}: the score is high on key t − 1; the value copies the token into the previous block
      for (let t = 1; t < T; t++) set(w('q_proj'), POSITION + t - 1, POSITION + t, scale);
      for (let v = 0; v < V; v++) { set(w('v_proj'), TOKEN + v, TOKEN + v, 1); set(w('out_proj'), PREVIOUS + v, TOKEN + v, 1); }
    }
    if (kind === 'self') for (let t = 0; t < T; t++) set(w('q_proj'), POSITION + t, POSITION + t, scale);
    if (kind === 'sink') parameters[`blocks.${l}.q_proj.bias`].data[POSITION] = scale;
    if (kind === 'induction') {
      // q_t = scale·(token at t), in the previous block's coordinates; k_j = the previous-token block at j
      for (let v = 0; v < V; v++) { set(w('q_proj'), PREVIOUS + v, TOKEN + v, scale); set(w('k_proj'), PREVIOUS + v, PREVIOUS + v, 1); }
      // the value copies the attended token into the output block, which the unembedding reads: predict it
      for (let v = 0; v < V; v++) { set(w('v_proj'), TOKEN + v, TOKEN + v, 1); set(w('out_proj'), OUTPUT + v, TOKEN + v, 1); }
    }
  });
  for (let v = 0; v < V; v++) set('unembed.weight', v, OUTPUT + v, 10);
  return createAttentionOnlyModel({ name: `constructed ${kinds.join(' + ')}`, config, parameters });
}
