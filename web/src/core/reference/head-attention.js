// The attention of one or several heads, written once and used by selfAttention (H = 1), the three
// multi-head formulations and crossAttention. Every intermediate is kept, because the page shows them.
import { dropWeights } from './dropout.js';
import { matmulRaw } from './linalg.js';
import { applyMasks, hasMasks } from './masks.js';
import { normalizeRow, normalizeRows } from './softmax.js';

/** Row i may attend to keys j ≤ i (top-left aligned like torch.tril, also when Tq ≠ Tk). */
const isFuture = (i, j) => j > i;

/** Masks the (Tq, Tk) block at `offset` of scaled into masked, and normalises it into weights. */
function maskAndNormalize(scaled, masked, weights, offset, Tq, Tk, mode) {
  if (mode === 'renormalize') {
    // softmax first, then zero the future and renormalise each row to sum to 1 again.
    for (let i = 0; i < Tq; i++) {
      const row = offset + i * Tk;
      normalizeRow(scaled, masked, row, Tk, 'stable');
      let sum = 0;
      for (let j = 0; j < Tk; j++) {
        if (isFuture(i, j)) masked[row + j] = 0;
        sum += masked[row + j];
      }
      // A row whose past underflowed to 0 keeps weights 0 rather than 0/0.
      for (let j = 0; j < Tk; j++) weights[row + j] = sum > 0 ? masked[row + j] / sum : 0;
    }
    return;
  }
  // 'neg_inf' puts −∞ in the future (exp(−∞) = 0); 'zero' puts 0 there, the classic mistake:
  // exp(0) = 1, so the future still receives weight.
  const fill = mode === 'neg_inf' ? -Infinity : 0;
  for (let i = 0; i < Tq; i++) {
    const row = offset + i * Tk;
    for (let j = 0; j < Tk; j++) masked[row + j] = isFuture(i, j) ? fill : scaled[row + j];
    normalizeRow(masked, weights, row, Tk, 'stable');
  }
}

/**
 * query (B, H, Tq, d_head), key (B, H, Tk, d_head), value (B, H, Tk, d_head), flat Float32Arrays
 * → { scores, scaled, masked (when causal or a mask is given), weights, dropped (only when dropout > 0)
 *     (B, H, Tq, Tk), context (B, H, Tq, d_head) }, flat Float32Arrays.
 * 1. scores = Q·Kᵀ  2. scale by 1/√d_head (when options.scale) and 1/temperature  3. causal mask, attnMask,
 * keyPaddingMask (masks.js; with them the mask mode is 'neg_inf', and a row left with no key gets zero weights)
 * 4. softmax  5. dropout  6. context = weights·V.
 * Dropout's random number for weight i uses i, the flat index over the whole (B, H, Tq, Tk) tensor.
 */
export function attentionPerHead(query, key, value, { B, H, Tq, Tk, dHead }, options) {
  const blocks = B * H;
  const block = Tq * Tk;

  // 1. scores = Q·Kᵀ: (Tq, d_head)·(d_head, Tk) for every (b, h).
  const scores = new Float32Array(blocks * block);
  for (let n = 0; n < blocks; n++) {
    const q = query.subarray(n * Tq * dHead, (n + 1) * Tq * dHead);
    const k = key.subarray(n * Tk * dHead, (n + 1) * Tk * dHead);
    scores.set(matmulRaw(q, k, Tq, dHead, Tk, true), n * block);
  }

  // 2. Without 1/√d_head the dot products grow with d_head and the softmax becomes nearly one-hot.
  const factor = (options.scale ? 1 / Math.sqrt(dHead) : 1) / options.temperature;
  const scaled = scores.map((score) => score * factor);

  // 3–4. mask and softmax.
  let masked = null;
  let weights;
  if (hasMasks(options)) {
    // −∞ in the future (causal), where attnMask is 0 or adds, where a key is padding; then softmax
    masked = scaled.slice();
    if (options.causal) {
      for (let n = 0; n < blocks; n++) {
        for (let i = 0; i < Tq; i++) masked.fill(-Infinity, n * block + i * Tk + i + 1, n * block + (i + 1) * Tk);
      }
    }
    applyMasks(masked, { B, H, Tq, Tk }, options);
    weights = normalizeRows(masked, blocks * Tq, Tk, 'stable');
  } else if (options.causal) {
    masked = new Float32Array(blocks * block);
    weights = new Float32Array(blocks * block);
    for (let n = 0; n < blocks; n++) maskAndNormalize(scaled, masked, weights, n * block, Tq, Tk, options.mask);
  } else {
    weights = normalizeRows(scaled, blocks * Tq, Tk, 'stable');
  }

  // 5. dropout (training only): the context is computed from the dropped weights.
  const dropped = options.dropout > 0 ? dropWeights(weights, options.dropout, options.seed, options.dropoutRng).dropped : null;
  const attended = dropped ?? weights;

  // 6. context = weights·V: (Tq, Tk)·(Tk, d_head) for every (b, h).
  const context = new Float32Array(blocks * Tq * dHead);
  for (let n = 0; n < blocks; n++) {
    const w = attended.subarray(n * block, (n + 1) * block);
    const v = value.subarray(n * Tk * dHead, (n + 1) * Tk * dHead);
    context.set(matmulRaw(w, v, Tq, Tk, dHead), n * Tq * dHead);
  }
  return { scores, scaled, masked, weights, dropped, context };
}

/**
 * The fused path of the reference (the planner's 'fused': intermediates false, no dropout, the causal mask
 * only as −∞): the same math one query row at a time, so it holds one (Tk) row of scores instead of the
 * (B, H, Tq, Tk) stages — the memory the check estimates for it. query (B, H, Tq, d_head), key and value
 * (B, H, Tk, d_head) → context (B, H, Tq, d_head).
 */
export function fusedAttention(query, key, value, { B, H, Tq, Tk, dHead }, options) {
  const factor = (options.scale ? 1 / Math.sqrt(dHead) : 1) / options.temperature;
  // keyPaddingMask (B, Tk): a padded key scores −∞ for every query; a row with no key left gets zeros
  const padding = options.keyPaddingMask?.data ?? null;
  const context = new Float32Array(B * H * Tq * dHead);
  const row = new Float32Array(Tk);
  const weights = new Float32Array(Tk);
  for (let n = 0; n < B * H; n++) {
    const q0 = n * Tq * dHead;
    const k0 = n * Tk * dHead;
    for (let i = 0; i < Tq; i++) {
      // 1–3. scaled scores of row i; the future is −∞ when causal.
      let scored = false; // some key scored above −∞
      let seen = false; // some key not masked
      for (let j = 0; j < Tk; j++) {
        if ((options.causal && isFuture(i, j)) || (padding !== null && padding[Math.floor(n / H) * Tk + j] !== 0)) {
          row[j] = -Infinity;
          continue;
        }
        let dot = 0;
        for (let c = 0; c < dHead; c++) dot += query[q0 + i * dHead + c] * key[k0 + j * dHead + c];
        row[j] = Math.fround(dot) * factor;
        seen = true;
        scored ||= row[j] !== -Infinity;
      }
      const out = q0 + i * dHead;
      // keys that all scored −∞ overflowed float32: NaN (as the kernel), not a masked row's zeros
      if (seen && !scored) {
        context.fill(NaN, out, out + dHead);
        continue;
      }
      // 4. softmax; 6. context row = weights·V.
      normalizeRow(row, weights, 0, Tk, 'stable');
      for (let j = 0; j < Tk; j++) {
        const w = weights[j];
        if (w === 0) continue;
        for (let c = 0; c < dHead; c++) context[out + c] += w * value[k0 + j * dHead + c];
      }
    }
  }
  return { context };
}
