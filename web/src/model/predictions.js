// What a model predicts and how well (docs/api.md "Models"): next-token loss over a text, the top-k next
// tokens, and the same before and after switching heads off (ablation).
import { describeValue } from '../core/tensor.js';
import { headsOffSet } from './model.js';

/** Row t of logits (T, V), its maximum and Σ_c exp(row[c] − max): its softmax is exp(row[c] − max)/sum. */
function softmaxRow(logits, t) {
  const V = logits.shape[1];
  const row = logits.data.subarray(t * V, (t + 1) * V);
  let max = -Infinity;
  for (let c = 0; c < V; c++) if (row[c] > max) max = row[c];
  let sum = 0;
  for (let c = 0; c < V; c++) sum += Math.exp(row[c] - max);
  return { row, max, sum };
}

/** log-softmax of row t of logits (T, V) at index target. */
function rowLogProb(logits, t, target) {
  const { row, max, sum } = softmaxRow(logits, t);
  return row[target] - max - Math.log(sum);
}

/**
 * sequenceLoss(model, tokens, {headsOff, ablation, from [1]}) → { loss, count, losses }: the mean over
 * positions t = from … T−1 of −ln p(tokens[t] | tokens[0..t)), one forward of the whole sequence; losses[t]
 * per position (NaN before `from`).
 */
export function sequenceLoss(model, tokens, { headsOff, ablation, from = 1 } = {}) {
  const T = tokens.length;
  if (!Number.isInteger(from) || from < 1 || from >= T) throw new Error(`sequenceLoss: options.from=${describeValue(from)}; expected an integer from 1 to ${T - 1} (T − 1)`);
  return lossFromLogits(model.forward(Array.prototype.slice.call(tokens, 0, T - 1), { headsOff, ablation }).logits, tokens, from);
}

function lossFromLogits(logits, tokens, from) {
  const T = tokens.length;
  const losses = new Float64Array(T).fill(NaN);
  let sum = 0;
  for (let t = from; t < T; t++) { losses[t] = -rowLogProb(logits, t - 1, Number(tokens[t])); sum += losses[t]; }
  return { loss: sum / (T - from), count: T - from, losses };
}

/**
 * textLoss(model, ids) → { loss, count }: the mean next-token loss over every id but the first of a long
 * sequence, cut into windows of contextLength + 1 ids that overlap by one (each id is predicted once, from
 * the ids of its window before it). The training script reports the held-out loss this way.
 */
export function textLoss(model, ids) {
  const T = model.config.contextLength;
  let sum = 0;
  let count = 0;
  for (let start = 0; start + 1 < ids.length; start += T) {
    const window = ids.slice(start, Math.min(ids.length, start + T + 1));
    const { loss, count: n } = sequenceLoss(model, window);
    sum += loss * n;
    count += n;
  }
  return { loss: count ? sum / count : 0, count };
}

/**
 * batchLoss(model, {inputs, targets}, {headsOff, ablation}) → the mean −ln p(target) over the targets that are
 * not −100 of a (B, T) batch (makeBatch's), each row one forward: the trainer's evaluate() loss, through the
 * model interface, so heads can be switched off.
 */
export function batchLoss(model, { inputs, targets }, { headsOff, ablation } = {}) {
  const [B, T] = inputs.shape;
  let sum = 0;
  let count = 0;
  for (let b = 0; b < B; b++) {
    const { logits } = model.forward(inputs.data.subarray(b * T, (b + 1) * T), { headsOff, ablation });
    for (let t = 0; t < T; t++) {
      const target = targets.data[b * T + t];
      if (target === -100) continue;
      sum -= rowLogProb(logits, t, target);
      count++;
    }
  }
  return count ? sum / count : 0;
}

/** The k most likely next tokens after position t of a forward's logits: [{id, text, probability}]. */
export function topTokens(model, logits, t, k = 5) {
  const { row, max, sum } = softmaxRow(logits, t);
  const order = Array.from({ length: row.length }, (_, c) => c).sort((a, b) => row[b] - row[a]).slice(0, k);
  return order.map((id) => ({ id, text: model.tokenizer ? model.tokenizer.tokenText(id) : String(id), probability: Math.exp(row[id] - max) / sum }));
}

/**
 * ablate(model, tokens, headsOff, {ablation ['zero'], k [5], from [1], position [T − 1]}) → { headsOff, ablation,
 * before: {loss, losses, top}, after: {loss, losses, top} }: the loss over positions from … T−1 and the top-k
 * next tokens after `position`, with every head on and with headsOff ([[layer, head], …], 0-based) off.
 */
export function ablate(model, tokens, headsOff, { ablation = 'zero', k = 5, from = 1, position } = {}) {
  headsOffSet('ablate', headsOff, model.config);
  const at = position ?? tokens.length - 1;
  if (!Number.isInteger(at) || at < 0 || at >= tokens.length) throw new Error(`ablate: options.position=${describeValue(position)}; expected an integer from 0 to ${tokens.length - 1}`);
  const run = (off) => {
    const { logits } = model.forward(tokens, { headsOff: off, ablation });
    if (tokens.length > 1 && (!Number.isInteger(from) || from < 1 || from >= tokens.length)) throw new Error(`ablate: options.from=${describeValue(from)}; expected an integer from 1 to ${tokens.length - 1}`);
    const { loss, losses } = tokens.length > 1 ? lossFromLogits(logits, tokens, from) : { loss: NaN, losses: [] };
    return { loss, losses, top: topTokens(model, logits, at, k) };
  };
  return { headsOff, ablation, before: run([]), after: run(headsOff) };
}
