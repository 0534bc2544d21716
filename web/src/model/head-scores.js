// What each head does, measured (docs/api.md "Models"): per-head scores on probe sequences of random tokens in
// which a pattern occurs twice at random offsets, and a label where a score passes its threshold. Thresholds
// are fixed in advance as HEAD_SCORE_MULTIPLE times the score a uniform causal head (row t: 1/(t+1) on every
// position ≤ t) gets on the same probes.
import { describeValue } from '../core/tensor.js';
import { batchRandom, inductionRandomOffset } from '../train/tasks.js';

/** A head is labelled when its score is at least this many times a uniform head's on the same probes. */
export const HEAD_SCORE_MULTIPLE = 6;

/** The labelled scores, in the order labels are tried, with their words. */
export const HEAD_LABELS = { previousToken: 'previous token', induction: 'induction', sink: 'first token (sink)', self: 'self' };

/**
 * The probes: `count` sequences of `length` tokens, each from inductionRandomOffset (docs/api.md "Tasks": a
 * pattern of ⌊(length − 1)/4⌋ distinct random tokens twice, at random places among random filler tokens) over
 * the model's whole vocabulary, drawn from batchRandom(seed, i) for sequence i.
 */
export function headProbes({ vocabSize, count = 8, length = 64, seed = 0 }) {
  const probes = [];
  for (let i = 0; i < count; i++) {
    const next = batchRandom(seed, i);
    const s = new Int32Array(length);
    inductionRandomOffset(s, new Uint8Array(length - 1), length - 1, vocabSize, (n) => Math.floor(next() * n));
    probes.push(s);
  }
  return probes;
}

/** Adds one (T, T) weights matrix's scores (row-major, causal) to acc; weight(t, j) reads it. */
function accumulate(acc, weight, tokens) {
  const T = tokens.length;
  const seen = new Map(); // token → [first position, occurrences so far]
  for (let t = 0; t < T; t++) {
    const before = seen.get(tokens[t]);
    if (!before) seen.set(tokens[t], [t, 1]);
    else {
      // one earlier occurrence: its next position is where an induction head looks (with several, it may split)
      if (before[1] === 1 && before[0] + 1 < t) { acc.induction += weight(t, before[0] + 1); acc.inductionCount++; }
      before[1]++;
    }
    if (t === 0) continue;
    acc.previousToken += weight(t, t - 1);
    acc.self += weight(t, t);
    acc.sink += weight(t, 0);
    let entropy = 0;
    for (let j = 0; j <= t; j++) { const w = weight(t, j); if (w > 0) entropy -= w * Math.log(w); }
    acc.entropy += entropy;
    acc.rows++;
  }
}

const emptyScores = () => ({ previousToken: 0, induction: 0, sink: 0, self: 0, entropy: 0, rows: 0, inductionCount: 0 });
function finish(acc) {
  return {
    previousToken: acc.previousToken / acc.rows, induction: acc.inductionCount ? acc.induction / acc.inductionCount : 0,
    sink: acc.sink / acc.rows, self: acc.self / acc.rows, entropy: acc.entropy / acc.rows,
  };
}

/**
 * headScores(model, {seed [0], count [8], length [min(64, contextLength)], multiple [HEAD_SCORE_MULTIPLE]}) →
 * { probes, uniform, thresholds, heads: [{layer, head, previousToken, induction, sink, self, entropy, labels, label}] }.
 * Scores are means over the probes' rows t ≥ 1: previousToken the weight on t − 1, self on t, sink on 0, entropy
 * (nats) of the row; induction the weight on f + 1 at every t whose token occurred exactly once before, at f < t − 1. A head's
 * labels: each HEAD_LABELS score ≥ its threshold (multiple × uniform[score]), strongest (score/threshold) first;
 * label the first, or null. layer and head are 0-based. A Promise of them where model.forward returns Promises.
 */
export function headScores(model, options = {}) {
  const fn = 'headScores';
  if (!model || typeof model.forward !== 'function' || !model.config) throw new Error(`${fn}: model is ${describeValue(model)}; expected a model {tokenizer, config, forward}`);
  const { vocabSize, contextLength, layers, heads } = model.config;
  const { seed = 0, count = 8, length = Math.min(64, contextLength), multiple = HEAD_SCORE_MULTIPLE } = options;
  if (!Number.isInteger(length) || length < 9 || length > contextLength) throw new Error(`${fn}: options.length=${describeValue(length)}; expected an integer from 9 to ${contextLength} (the model's contextLength)`);
  if (!Number.isInteger(count) || count < 1) throw new Error(`${fn}: options.count=${describeValue(count)}; expected an integer ≥ 1`);
  if (typeof multiple !== 'number' || !(multiple > 0)) throw new Error(`${fn}: options.multiple=${describeValue(multiple)}; expected a number > 0`);
  const probes = headProbes({ vocabSize, count, length, seed });
  const acc = Array.from({ length: layers * heads }, emptyScores);
  const uniformAcc = emptyScores();
  const add = (tokens, { attention }) => {
    for (let l = 0; l < layers; l++) {
      const { data } = attention[l];
      for (let h = 0; h < heads; h++) {
        const base = h * length * length;
        accumulate(acc[l * heads + h], (t, j) => data[base + t * length + j], tokens);
      }
    }
    accumulate(uniformAcc, (t) => 1 / (t + 1), tokens);
  };
  const first = model.forward(probes[0]);
  if (typeof first?.then === 'function') {
    // a model whose forward is asynchronous (GPT-2 on workers or WebGPU): one probe after the other
    return (async () => {
      add(probes[0], await first);
      for (const tokens of probes.slice(1)) add(tokens, await model.forward(tokens));
      return scoresOf(acc, uniformAcc, { probes, multiple, heads });
    })();
  }
  add(probes[0], first);
  for (const tokens of probes.slice(1)) add(tokens, model.forward(tokens));
  return scoresOf(acc, uniformAcc, { probes, multiple, heads });
}

function scoresOf(acc, uniformAcc, { probes, multiple, heads }) {
  const uniform = finish(uniformAcc);
  const thresholds = Object.fromEntries(Object.keys(HEAD_LABELS).map((k) => [k, multiple * uniform[k]]));
  const list = acc.map((a, i) => {
    const scores = finish(a);
    const passed = Object.keys(HEAD_LABELS).filter((k) => scores[k] >= thresholds[k])
      .sort((x, y) => scores[y] / thresholds[y] - scores[x] / thresholds[x]);
    const labels = passed.map((k) => HEAD_LABELS[k]);
    return { layer: Math.floor(i / heads), head: i % heads, ...scores, labels, label: labels[0] ?? null };
  });
  return { probes, uniform, thresholds, multiple, heads: list };
}
