// The training tasks (docs/api.md "Training"): makeBatch(task, options) → { inputs, targets }, each (B, T)
// Int32, targets −100 where a position has nothing to predict (F.cross_entropy's ignore_index). Every batch
// is a pure function of (task, options): the same seed and step give the same batch.
import { lowbias32, mulberry32 } from '../base/random.js';
import { describeValue } from '../core/engine.js';

export const IGNORE = -100;

/** The built-in corpus: short sentences we wrote, with repeated structure a small model can learn. */
export const CORPUS = [
  'the cat sat on the mat .', 'the dog sat on the rug .', 'a cat saw a dog .', 'a dog saw a cat .',
  'the cat ate the fish .', 'the dog ate the bone .', 'the bird sat on the tree .', 'a bird saw the fish .',
  'the cat ran to the tree .', 'the dog ran to the mat .', 'one cat and one dog sat on the rug .',
  'the fish swam in the pond .', 'a bird sang in the tree .', 'the dog slept on the mat .',
  'the cat slept on the rug .', 'attention looks back at every word before it .',
  'each word asks a question and every earlier word answers .', 'the weights of a row sum to one .',
].join(' ');

/** Whitespace tokens, as the page splits its sentence; vocabulary in order of first appearance. */
export function tokenizeText(text) {
  if (typeof text !== 'string') throw new Error(`tokenizeText: text is ${describeValue(text)}; expected a string`);
  const words = text.trim().split(/\s+/).filter((w) => w.length > 0);
  const vocabulary = [];
  const index = new Map();
  for (const w of words) if (!index.has(w)) { index.set(w, vocabulary.length); vocabulary.push(w); }
  return { vocabulary, tokens: Int32Array.from(words, (w) => index.get(w)) };
}

/** The words of a task's vocabulary ('corpus' or 'text'), null for the synthetic tasks. */
export function taskVocabulary(task, { text } = {}) {
  if (task === 'corpus') return tokenizeText(CORPUS).vocabulary;
  if (task === 'text') return tokenizeText(text).vocabulary;
  return null;
}

export const TASKS = {
  corpus: 'next word of the built-in corpus: heads attend to the previous word and to earlier words of the sentence',
  text: "next word of the learner's text: as corpus, on the text's own vocabulary",
  previous: 'predict the previous token: every position attends to the one before it (the first sub-diagonal)',
  copy: 'a random first half, separator 0, then the first half again: row n+i attends to position i (a stripe n back)',
  reverse: 'a random first half, separator 0, then it reversed: row n+i attends to position n−1−i (an anti-diagonal)',
  sort: 'a random first half, separator 0, then it sorted: rows attend by content to the next-smallest token',
  induction: 'a random sequence of T/2 tokens repeated: on the repeat, position t attends to t−T/2+1, the token after the earlier occurrence of the current token (an induction head)',
};

function fail(message) {
  throw new Error(`makeBatch: ${message}`);
}
function checkInteger(name, value, min, max = 2 ** 32 - 1) {
  if (!Number.isInteger(value) || value < min || value > max) {
    fail(`options.${name}=${describeValue(value)}; expected an integer from ${min} to ${max}`);
  }
}

/**
 * The batch's random stream: mulberry32(lowbias32(lowbias32(seed) ⊕ step)), one per (seed, step), drawn
 * row by row (batch entry 0 first).
 */
export function batchRandom(seed, step) {
  return mulberry32(lowbias32((lowbias32(seed) ^ step) >>> 0));
}

/**
 * makeBatch(task, {batch, contextLength, vocabSize, seed [0], step [0], text, randomOffset [false]}) → { inputs,
 * targets } (B, T) Int32. Every task builds a sequence s of T + 1 tokens per row; inputs = s[0..T), targets =
 * s[1..T] (next token), except 'previous' (target t is input t−1). Synthetic tokens are drawn from the
 * vocabulary by the batch's stream. randomOffset (task 'induction' only): see inductionRandomOffset.
 */
export function makeBatch(task, options = {}) {
  if (!(task in TASKS)) fail(`task=${describeValue(task)}; expected one of ${Object.keys(TASKS).map((t) => `'${t}'`).join(', ')}`);
  const { batch: B, contextLength: T, vocabSize: V, seed = 0, step = 0, randomOffset = false } = options;
  checkInteger('batch', B, 1, 65536);
  checkInteger('contextLength', T, 2, 65536);
  checkInteger('vocabSize', V, 2, 2 ** 24);
  checkInteger('seed', seed, 0);
  checkInteger('step', step, 0);
  if (typeof randomOffset !== 'boolean') fail(`options.randomOffset=${describeValue(randomOffset)}; expected true or false`);
  if (randomOffset && task !== 'induction') fail(`options.randomOffset=true with task=${describeValue(task)}; expected it only with task 'induction'`);
  if (randomOffset && T < 8) fail(`options.contextLength=${T}; expected at least 8 for task 'induction' with randomOffset (two copies of ⌊T/4⌋ ≥ 2 tokens)`);
  const next = batchRandom(seed, step);
  const uniform = (n) => Math.floor(next() * n);
  const inputs = new Int32Array(B * T);
  const targets = new Int32Array(B * T);
  const half = Math.floor(T / 2);
  let stream = null;
  if (task === 'corpus' || task === 'text') {
    if (task === 'text' && (typeof options.text !== 'string' || tokenizeText(options.text).tokens.length < 2)) {
      fail(`options.text is ${describeValue(options.text)}; expected a string of at least two words for task 'text'`);
    }
    stream = tokenizeText(task === 'corpus' ? CORPUS : options.text);
    if (stream.vocabulary.length > V) {
      fail(`options.vocabSize=${V} is smaller than the ${task}'s vocabulary of ${stream.vocabulary.length} words; expected at least ${stream.vocabulary.length}`);
    }
  }
  if ((task === 'copy' || task === 'reverse' || task === 'sort') && V < 3) fail(`options.vocabSize=${V}; expected at least 3 for task '${task}' (token 0 is the separator)`);
  if ((task === 'copy' || task === 'reverse' || task === 'sort' || task === 'induction') && T < 4) fail(`options.contextLength=${T}; expected at least 4 for task '${task}'`);
  const s = new Int32Array(T + 1);
  const mask = new Uint8Array(T); // 1: targets[t] = −100
  for (let b = 0; b < B; b++) {
    mask.fill(0);
    if (stream) {
      // A window of T + 1 words at a random offset; the text wraps around at its end.
      const n = stream.tokens.length;
      const start = uniform(n);
      for (let t = 0; t <= T; t++) s[t] = stream.tokens[(start + t) % n];
    } else if (task === 'previous') {
      for (let t = 0; t <= T; t++) s[t] = uniform(V);
    } else if (task === 'induction' && randomOffset) {
      inductionRandomOffset(s, mask, T, V, uniform);
    } else if (task === 'induction') {
      // n = T/2 distinct tokens when V ≥ n (a partial Fisher–Yates shuffle), else tokens with repeats.
      const pool = Int32Array.from({ length: V }, (_, i) => i);
      for (let i = 0; i < half; i++) {
        if (half <= V) { const j = i + uniform(V - i); const tmp = pool[i]; pool[i] = pool[j]; pool[j] = tmp; s[i] = pool[i]; } else s[i] = uniform(V);
      }
      for (let t = half; t <= T; t++) s[t] = s[t - half];
      for (let t = 0; t < half; t++) mask[t] = 1; // the first occurrence cannot be predicted
    } else {
      // copy / reverse / sort: a (tokens 1..V−1), separator 0, then b; positions before the separator, and
      // the padding after b when T is odd, predict nothing.
      const a = Int32Array.from({ length: half }, () => 1 + uniform(V - 1));
      const out = task === 'copy' ? a : task === 'reverse' ? a.slice().reverse() : a.slice().sort();
      s.fill(0);
      s.set(a, 0);
      s.set(out, half + 1);
      for (let t = 0; t < half; t++) mask[t] = 1;
      for (let t = 2 * half; t < T; t++) mask[t] = 1; // T odd: the last target is padding
    }
    for (let t = 0; t < T; t++) {
      inputs[b * T + t] = s[t];
      if (task === 'previous') targets[b * T + t] = t === 0 ? IGNORE : s[t - 1];
      else targets[b * T + t] = mask[t] ? IGNORE : s[t + 1];
    }
  }
  return { inputs: { data: inputs, shape: [B, T] }, targets: { data: targets, shape: [B, T] } };
}

/**
 * 'induction' with randomOffset, one row of s (T + 1 tokens): a pattern of n = ⌊T/4⌋ tokens (distinct when
 * n ≤ V) occurs twice, at random places: the T + 1 − 2n other slots are filler (tokens not in the pattern when
 * V > n) split in three random runs, before, between and after the copies. So neither the copies' positions nor
 * the distance between them is fixed, and no positional head can solve it: only a head that finds the earlier
 * occurrence of the current token by content (an induction head) can. Counted targets: the positions of the
 * second copy but its last, each predicting the pattern's next token; every other target is −100.
 */
export function inductionRandomOffset(s, mask, T, V, uniform) {
  const n = Math.floor(T / 4);
  const pool = Int32Array.from({ length: V }, (_, i) => i);
  const pattern = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (n <= V) { const j = i + uniform(V - i); const tmp = pool[i]; pool[i] = pool[j]; pool[j] = tmp; pattern[i] = pool[i]; } else pattern[i] = uniform(V);
  }
  const filler = () => (V > n ? pool[n + uniform(V - n)] : uniform(V));
  const free = T + 1 - 2 * n;
  const gap = uniform(free + 1); // filler between the copies
  const before = uniform(free - gap + 1); // filler before the first copy; the rest follows the second
  const first = before;
  const second = before + n + gap;
  for (let t = 0; t <= T; t++) s[t] = filler();
  s.set(pattern, first);
  s.set(pattern, second);
  mask.fill(1);
  for (let t = second; t < second + n - 1; t++) mask[t] = 0;
}

/**
 * inductionScore(attention, inputs): attention (B, H, T, T) weights of one layer, inputs (B, T) Int32 →
 * { heads: number[H], score, head }. For every position t whose token occurred before, first at f < t − 1,
 * head h's score counts attention[b, h, t, f + 1] (the token after the first occurrence); heads[h] is the
 * mean over those positions (0 if none), score the largest, head its index.
 */
export function inductionScore(attention, inputs) {
  const fn = 'inductionScore';
  if (!attention || !Array.isArray(attention.shape) || attention.shape.length !== 4) {
    throw new Error(`${fn}: attention ${attention && Array.isArray(attention.shape) ? `has shape [${attention.shape.join(', ')}]` : 'is not a tensor'}; expected (B, H, T, T)`);
  }
  const [B, H, T] = attention.shape;
  if (attention.shape[3] !== T || !inputs || !Array.isArray(inputs.shape) || inputs.shape[0] !== B || inputs.shape[1] !== T) {
    throw new Error(`${fn}: inputs has shape [${inputs?.shape?.join(', ')}] and attention [${attention.shape.join(', ')}]; expected inputs (B, T) = (${B}, ${T}) and attention (B, H, T, T)`);
  }
  const sums = new Float64Array(H);
  let count = 0;
  for (let b = 0; b < B; b++) {
    const first = new Map();
    for (let t = 0; t < T; t++) {
      const token = inputs.data[b * T + t];
      const f = first.get(token);
      if (f === undefined) { first.set(token, t); continue; }
      if (f + 1 >= t) continue;
      count++;
      for (let h = 0; h < H; h++) sums[h] += attention.data[((b * H + h) * T + t) * T + f + 1];
    }
  }
  const heads = Array.from(sums, (s) => (count ? s / count : 0));
  const head = heads.reduce((best, v, i) => (v > heads[best] ? i : best), 0);
  return { heads, score: heads[head], head };
}
