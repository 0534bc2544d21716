// The inputs every step starts from, built from the state: the tokens of the sentence, their
// embeddings x (T, d_model) and the projection weights, each with the cells the learner typed into it.
// This is data preparation, not attention math: the core computes everything else and the views only
// show what it returns. No DOM here.

import { lowbias32 } from '../core/random.js';
import { manualSeed } from '../core/torch-random.js';

/** The classic six-token example (DESIGN.md step 5): 3-d embeddings of "Your journey starts with one step". */
export const CLASSIC_EMBEDDINGS = new Map([
  ['your', [0.43, 0.15, 0.89]],
  ['journey', [0.55, 0.87, 0.66]],
  ['starts', [0.57, 0.85, 0.64]],
  ['with', [0.22, 0.58, 0.33]],
  ['one', [0.77, 0.25, 0.10]],
  ['step', [0.05, 0.80, 0.55]],
]);

function hashText(text) {
  let h = 0x811c9dc5; // FNV-1a, enough to give each word and each weight matrix its own stream
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Value i of the stream named `name` under `seed`, uniform in [-1, 1). */
export function seededUniform(seed, name, i) {
  const u = lowbias32((i ^ lowbias32((seed ^ hashText(name)) >>> 0)) >>> 0) >>> 8;
  return (u / 16777216) * 2 - 1;
}

/** Words of a sentence (split on white space, punctuation kept with its word). */
export function tokenize(sentence) {
  return sentence.trim().split(/\s+/).filter((w) => w.length > 0);
}

/**
 * The first T words, repeating the sentence when it is shorter than T (a repeated word has the same
 * embedding, so its scores tie: visible in the heatmaps).
 */
export function takeTokens(words, T) {
  return Array.from({ length: T }, (_, t) => words[t % words.length]);
}

/** Token ids: each distinct word (lower-cased) numbered in order of first appearance. */
export function tokenIds(tokens) {
  const vocabulary = new Map();
  const ids = tokens.map((word) => {
    const key = word.toLowerCase();
    if (!vocabulary.has(key)) vocabulary.set(key, vocabulary.size);
    return vocabulary.get(key);
  });
  return { ids: Int32Array.from(ids), vocabulary: [...vocabulary.keys()] };
}

/**
 * Embeddings x (T, d_model): the classic vectors for the classic words when d_model = 3, otherwise a
 * seeded random vector per word (so a word keeps its vector when the sentence changes).
 */
export function embed(tokens, dModel, seed) {
  const data = new Float32Array(tokens.length * dModel);
  tokens.forEach((word, t) => {
    const key = word.toLowerCase();
    const classic = dModel === 3 ? CLASSIC_EMBEDDINGS.get(key) : undefined;
    for (let c = 0; c < dModel; c++) {
      data[t * dModel + c] = classic ? classic[c] : seededUniform(seed, `embedding:${key}`, c);
    }
  });
  return { data, shape: [tokens.length, dModel] };
}

/**
 * Whether the seed changes x: only for a word without a classic vector (or any word when d_model ≠ 3). The
 * steps before the projections show the seed control only then.
 */
export function seedChangesEmbeddings({ sentence, T, dModel }) {
  if (dModel !== 3) return true;
  return takeTokens(tokenize(sentence), T).some((word) => !CLASSIC_EMBEDDINGS.has(word.toLowerCase()));
}

/** A seeded (rows, cols) matrix with values in [-1, 1). */
export function seededMatrix(seed, name, rows, cols) {
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < data.length; i++) data[i] = seededUniform(seed, name, i);
  return { data, shape: [rows, cols] };
}

/**
 * Cells the learner typed into the matrix called `name` (state.js EDITABLE_MATRICES: 'x', 'Wq', …);
 * edits outside the current matrix are kept in the URL but not applied.
 */
export function applyEdits(matrix, edits, name = 'x') {
  const [rows, cols] = matrix.shape;
  const data = Float32Array.from(matrix.data);
  for (const { matrix: target = 'x', row, col, value } of edits) {
    if (target === name && row < rows && col < cols) data[row * cols + col] = value;
  }
  return { data, shape: matrix.shape };
}

/**
 * The three projection weights as PyTorch makes them after `torch.manual_seed(seed)`, with the learner's
 * edits (to the matrix as shown). `layout` 'matrix': three torch.rand(d_in, d_out), used as X·W (the
 * book's seed 123); 'linear': three nn.Linear(d_in, d_out, bias=False), each weight (d_out, d_in) used
 * as X·Wᵀ (the book's seed 789). `shown` holds the matrices as PyTorch stores them; `core` the same
 * numbers as (d_in, d_out) for X·W, the layout the core's functions take.
 * `heads` > 1 draws in the order of the book's MultiHeadAttentionWrapper (§3.6.1): each head in turn draws its
 * own query, key and value of d_out / heads outputs, and head h's are rows (Linear) or columns (matrix)
 * h·d_head … (h+1)·d_head − 1 of the whole matrix, as the split form takes them.
 * @param {string[]} editNames the edits' matrix names for query, key and value
 */
export function projectionWeights({ seed, layout, dModel, dOut, edits }, editNames = ['Wq', 'Wk', 'Wv'], heads = 1) {
  const generator = manualSeed(seed);
  const dHead = dOut / heads;
  const draw = layout === 'linear'
    ? () => generator.linear(dModel, dHead, { bias: false }).weight
    : () => ({ data: generator.rand(dModel * dHead), shape: [dModel, dHead] });
  const drawn = Array.from({ length: heads }, () => [draw(), draw(), draw()]);
  const shown = {};
  const core = {};
  ['query', 'key', 'value'].forEach((name, i) => {
    const parts = drawn.map((head) => head[i]);
    const whole = layout === 'linear' ? stackRows(parts) : stackColumns(parts);
    shown[name] = applyEdits(whole, edits, editNames[i]);
    core[name] = layout === 'linear' ? transposed(shown[name]) : shown[name];
  });
  return { layout, shown, core };
}

function stackRows(parts) {
  if (parts.length === 1) return parts[0];
  const cols = parts[0].shape[1];
  const data = new Float32Array(parts.length * parts[0].data.length);
  parts.forEach((part, h) => data.set(part.data, h * part.data.length));
  return { data, shape: [data.length / cols, cols] };
}

function stackColumns(parts) {
  return parts.length === 1 ? parts[0] : transposed(stackRows(parts.map(transposed)));
}

/**
 * The book's §3.6.2 MultiHeadAttention at its own settings, after torch.manual_seed(seed): W_query, W_key,
 * W_value = nn.Linear(d_in, 2, bias=False) and out_proj = nn.Linear(2, 2), drawn in that order, as the core's
 * (d_in, d_out) weights for multiheadAttentionSplit with 2 heads (outWeight = out_proj.weight transposed).
 */
export function bookSplitWeights(seed, dModel) {
  const generator = manualSeed(seed);
  const [query, key, value] = [0, 1, 2].map(() => transposed(generator.linear(dModel, 2, { bias: false }).weight));
  const out = generator.linear(2, 2);
  return { query, key, value, outWeight: transposed(out.weight), outBias: out.bias };
}

/** Columns [from, to) of a (rows, cols) matrix: one head's slice of a projection. */
export function columns(matrix, from, to) {
  const [rows, cols] = matrix.shape;
  const data = new Float32Array(rows * (to - from));
  for (let r = 0; r < rows; r++) data.set(matrix.data.subarray(r * cols + from, r * cols + to), r * (to - from));
  return { data, shape: [rows, to - from] };
}

/** A (rows, cols) matrix stored the other way round: the layout of torch.nn.Linear.weight. */
export function transposed(matrix) {
  const [rows, cols] = matrix.shape;
  const data = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) data[c * rows + r] = matrix.data[r * cols + c];
  return { data, shape: [cols, rows] };
}

/**
 * Everything the steps take as input, for one state.
 * @returns {{tokens: string[], ids: Int32Array, vocabulary: string[], x, contextTokens: string[],
 *   xContext, projection: {query, key, value}, crossProjection: {query, key, value}, weights, crossWeights,
 *   framingIds: Int32Array, framingVocabulary: string[]}}
 */
export function buildInputs(state) {
  const key = JSON.stringify([state.sentence, state.T, state.dModel, state.seed, state.edits, state.context, state.layout, state.dOut, drawnHeads(state)]);
  return remembered(builtInputs, key, () => freshInputs(state));
}

// The last few inputs and projections built, by what they are built from: a repaint that moves the temperature
// builds nothing, and one that moves T keeps the weights (at d = 64, PyTorch's generator drew 24,576 numbers for
// the self and cross weights on every change, the largest share of the page's own work per repaint). Callers
// treat inputs as read-only (steps and the core copy what they change), so sharing them is safe.
const REMEMBERED = 4;
const builtInputs = new Map();
const builtWeights = new Map();
function remembered(cache, key, build) {
  let value = cache.get(key);
  if (value === undefined) {
    value = build();
    if (cache.size >= REMEMBERED) cache.delete(cache.keys().next().value);
  } else {
    cache.delete(key); // most recent last
  }
  cache.set(key, value);
  return value;
}
function rememberedWeights(state, editNames, heads = 1) {
  const key = JSON.stringify([state.seed, state.layout, state.dModel, state.dOut, state.edits, editNames, heads]);
  return remembered(builtWeights, key, () => projectionWeights(state, editNames, heads));
}

/** Step 10 draws its weights head by head, as the book's MultiHeadAttentionWrapper; every other step as one matrix. */
export const drawnHeads = (state) => (state.step === 'multihead' ? state.heads : 1);

function freshInputs(state) {
  const words = tokenize(state.sentence);
  const tokens = takeTokens(words, state.T);
  const { ids, vocabulary } = tokenIds(tokens);
  // Step 1 frames the T tokens as T−1 (context, target) pairs (at least one pair).
  const framing = tokenIds(takeTokens(words, Math.max(2, state.T)));
  const x = applyEdits(embed(tokens, state.dModel, state.seed), state.edits, 'x');
  const contextTokens = tokenize(state.context).slice(0, 32);
  const xContext = embed(contextTokens, state.dModel, state.seed);
  // Self- and cross-attention start from the same seeded modules (each its own edits).
  const weights = rememberedWeights(state, ['Wq', 'Wk', 'Wv'], drawnHeads(state));
  const crossWeights = rememberedWeights(state, ['crossWq', 'crossWk', 'crossWv']);
  return {
    tokens, ids, vocabulary, x, contextTokens, xContext,
    projection: weights.core, crossProjection: crossWeights.core, weights, crossWeights,
    framingIds: framing.ids, framingVocabulary: framing.vocabulary,
  };
}
