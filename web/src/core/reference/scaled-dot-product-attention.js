// scaledDotProductAttention(query, key, value, options): PyTorch's F.scaled_dot_product_attention, the
// teaching path in plain JS (the C++ twin is cpp/attention/scaled_dot_product_attention.cpp, same words).
// query (…, L, E), key (…, S, E), value (…, S, Ev), the leading axes equal (any number, including none).
// Its shape checks are written here, not read from the registry's named axes: those name each axis of a
// tensor of fixed rank, and these tensors have any number of leading axes (the C++ twin does the same).
import { allFinite, formatShape, sizeOf } from '../tensor.js';
import { dropWeights } from './dropout.js';
import { checkAnyTensor, checkAttentionOptions, checkMemory, fail } from './check-helpers.js';
import { sdpaFusedApplies, sdpaRoute } from '../routes.js';
import { checkedBackend } from '../registry-checks.js';
import { checkedOnce } from '../api-checked.js';

const FN = 'scaledDotProductAttention';

/** Checks every argument (docs/api.md "Errors"); returns {batch, L, S, E, Ev, lead}. */
export function checkScaledDotProductAttention(query, key, value, options) {
  for (const [name, tensor] of [['query', query], ['key', key], ['value', value]]) {
    checkAnyTensor(FN, name, tensor);
    if (tensor.shape.length < 2) fail(FN, 'shape', name, tensor.shape, 'rank ≥ 2 (…, L, E)');
  }
  const rank = query.shape.length;
  const [L, E] = query.shape.slice(-2);
  if (key.shape.length !== rank) fail(FN, 'shape', 'key', key.shape, `rank ${rank}, the rank of query (…, S, E)`);
  if (value.shape.length !== rank) fail(FN, 'shape', 'value', value.shape, `rank ${rank}, the rank of query (…, S, Ev)`);
  for (let a = 0; a < rank - 2; a++) {
    if (key.shape[a] !== query.shape[a]) fail(FN, 'shape', 'key', key.shape, `the leading axes of query ${formatShape(query.shape)}`);
    if (value.shape[a] !== query.shape[a]) fail(FN, 'shape', 'value', value.shape, `the leading axes of query ${formatShape(query.shape)}`);
  }
  if (key.shape[rank - 1] !== E) fail(FN, 'shape', 'key', key.shape, `E=${E} in its last axis, as query`);
  const S = key.shape[rank - 2];
  if (value.shape[rank - 2] !== S) fail(FN, 'shape', 'value', value.shape, `S=${S} in its second-to-last axis, as key`);
  const mask = options.attnMask;
  if (options.isCausal && mask !== null) {
    fail(FN, 'option', 'options.isCausal', true, 'false when options.attnMask is given (as PyTorch)');
  }
  if (mask !== null) {
    const boolean = mask.data instanceof Uint8Array;
    // a boolean mask is checked as its 0/1 values; a float mask may hold −∞ (masked out), never NaN or +∞
    checkAnyTensor(FN, 'options.attnMask', boolean ? { shape: mask.shape, data: Float32Array.from(mask.data) } : mask,
      { allowNegativeInfinity: !boolean });
    const target = [...query.shape.slice(0, -1), S];
    const fits = mask.shape.length <= rank
      && mask.shape.every((size, axis) => size === 1 || size === target[rank - mask.shape.length + axis]);
    if (!fits) fail(FN, 'shape', 'options.attnMask', mask.shape, `a shape broadcastable to ${formatShape(target)} (…, L, S)`);
    if (boolean) {
      const bad = mask.data.findIndex((x) => x !== 0 && x !== 1);
      if (bad >= 0) fail(FN, 'value', `options.attnMask.data[${bad}]`, mask.data[bad], '0 or 1 (a boolean mask: 1 = may attend)');
    }
  }
  // scale, dropoutP, seed: the registry's ranges, after the mask (as the C++ twin orders them)
  checkAttentionOptions(FN, options);
  const lead = query.shape.slice(0, -2);
  const batch = sizeOf(lead);
  const Ev = value.shape[rank - 1];
  const sizes = { batch, L, S, E, Ev, lead };
  // estimated on the planner's path for the backend that runs the call (the reference's own, checked by itself):
  // a fused form holds no (…, L, S) stage, the teaching code its `stages`
  const { path, stages } = sdpaRoute(E, Ev, options, checkedBackend() ?? 'js');
  checkMemory(FN, path, { ...sizes, stages }, `L=${L}, S=${S}`);
  return sizes;
}

/**
 * The planner's fused path (sdpaFusedApplies: intermediates false, dropoutP 0, no attnMask): one query row at a
 * time, its S scores in one Float32Array row, the keys right of the diagonal skipped when isCausal. The same
 * float32 roundings as the teaching code below, so both give the same output.
 */
function fusedRows(query, key, value, { batch, L, S, E, Ev, lead }, options) {
  const scale = Math.fround(options.scale ?? 1 / Math.sqrt(E));
  const row = new Float32Array(S);
  const output = new Float32Array(batch * L * Ev);
  for (let n = 0; n < batch; n++) {
    for (let i = 0; i < L; i++) {
      const seen = options.isCausal ? Math.min(i + 1, S) : S;
      let max = -Infinity;
      for (let j = 0; j < seen; j++) {
        let dot = 0;
        for (let e = 0; e < E; e++) dot = Math.fround(dot + Math.fround(query.data[(n * L + i) * E + e] * key.data[(n * S + j) * E + e]));
        row[j] = Math.fround(dot * scale);
        if (row[j] > max) max = row[j];
      }
      // every row sees key 0 (S ≥ 1): a max of −∞ is q·k overflowing float32 on every key, a NaN row (as the
      // kernel), not a masked row's zeros
      if (max === -Infinity) {
        output.fill(NaN, (n * L + i) * Ev, (n * L + i + 1) * Ev);
        continue;
      }
      let sum = 0;
      for (let j = 0; j < seen; j++) {
        row[j] = Math.exp(row[j] - max);
        sum += row[j];
      }
      for (let j = 0; j < seen; j++) row[j] /= sum;
      for (let c = 0; c < Ev; c++) {
        let total = 0;
        for (let j = 0; j < seen; j++) total += row[j] * value.data[(n * S + j) * Ev + c];
        output[(n * L + i) * Ev + c] = total;
      }
    }
  }
  return { output: { data: output, shape: [...lead, L, Ev] } };
}

/** The results of docs/api.md: scores, scaled, masked?, weights, dropped?, output (output alone without intermediates). */
export function scaledDotProductAttention(query, key, value, options) {
  const sizes = checkedOnce(FN, () => checkScaledDotProductAttention(query, key, value, options));
  if (sdpaFusedApplies(options)) return fusedRows(query, key, value, sizes, options);
  const { batch, L, S, E, Ev, lead } = sizes;
  const rank = query.shape.length;
  const scale = Math.fround(options.scale ?? 1 / Math.sqrt(E));
  const mask = options.attnMask;
  const boolean = mask?.data instanceof Uint8Array;
  // the mask's stride along each axis of (…, L, S), 0 where it broadcasts
  const stride = new Array(rank).fill(0);
  if (mask) {
    let step = 1;
    for (let a = 1; a <= mask.shape.length; a++) {
      const size = mask.shape[mask.shape.length - a];
      if (size !== 1) stride[rank - a] = step;
      step *= size;
    }
  }
  const squareShape = [...lead, L, S];
  const square = batch * L * S;
  const scores = new Float32Array(square);
  const scaled = new Float32Array(square);
  const masked = new Float32Array(square);
  const weights = new Float32Array(square);
  for (let n = 0; n < batch; n++) {
    let maskBase = 0;
    for (let a = rank - 3, rest = n; a >= 0; a--) {
      maskBase += (rest % lead[a]) * stride[a];
      rest = Math.floor(rest / lead[a]);
    }
    for (let i = 0; i < L; i++) {
      const row = (n * L + i) * S;
      let max = -Infinity;
      for (let j = 0; j < S; j++) {
        let dot = 0;
        for (let e = 0; e < E; e++) dot = Math.fround(dot + Math.fround(query.data[(n * L + i) * E + e] * key.data[(n * S + j) * E + e]));
        scores[row + j] = dot;
        const s = Math.fround(dot * scale);
        scaled[row + j] = s;
        let x = s;
        if (options.isCausal) {
          if (j > i) x = -Infinity;
        } else if (mask) {
          const m = mask.data[maskBase + i * stride[rank - 2] + j * stride[rank - 1]];
          x = boolean ? (m !== 0 ? s : -Infinity) : Math.fround(s + m);
        }
        masked[row + j] = x;
        if (x > max) max = x;
      }
      // softmax over S; a fully masked row (max −∞) keeps zero weights (PyTorch gives NaN)
      if (max === -Infinity) continue;
      let sum = 0;
      for (let j = 0; j < S; j++) {
        weights[row + j] = Math.exp(masked[row + j] - max);
        sum += weights[row + j];
      }
      for (let j = 0; j < S; j++) weights[row + j] /= sum;
    }
  }
  const dropping = options.dropoutP > 0;
  const used = dropping ? dropWeights(weights, options.dropoutP, options.seed).dropped : weights;
  const output = new Float32Array(batch * L * Ev);
  for (let n = 0; n < batch; n++) {
    for (let i = 0; i < L; i++) {
      for (let c = 0; c < Ev; c++) {
        let total = 0;
        for (let j = 0; j < S; j++) total += used[(n * L + i) * S + j] * value.data[(n * S + j) * Ev + c];
        output[(n * L + i) * Ev + c] = total;
      }
    }
  }
  const results = { output: { data: output, shape: [...lead, L, Ev] } };
  // a score that left float32 keeps every stage (for the API's result check to name): as −∞ it passes for a mask
  if (!options.intermediates && allFinite(scores) && allFinite(scaled)) return results;
  const tensor = (data) => ({ data, shape: squareShape });
  return {
    scores: tensor(scores), scaled: tensor(scaled),
    ...(options.isCausal || mask ? { masked: tensor(masked) } : {}),
    weights: tensor(weights),
    ...(dropping ? { dropped: tensor(used) } : {}),
    output: results.output,
  };
}
