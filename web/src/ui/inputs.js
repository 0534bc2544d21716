// The inputs every step starts from, built from the state: the tokens of the sentence, their
// embeddings x (T, d_model) and the projection weights, each with the cells the learner typed into it.
// This is data preparation, not attention math: the core computes everything else and the views only
// show what it returns. No DOM here.

import { lowbias32 } from '../core/random.js';

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

// A seeded projection matrix with the learner's edits to it.
function weights(state, stream, name) {
  return applyEdits(seededMatrix(state.seed, stream, state.dModel, state.dOut), state.edits, name);
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
 *   xContext, projection: {query, key, value}, crossProjection: {query, key, value},
 *   framingIds: Int32Array, framingVocabulary: string[]}}
 */
export function buildInputs(state) {
  const words = tokenize(state.sentence);
  const tokens = takeTokens(words, state.T);
  const { ids, vocabulary } = tokenIds(tokens);
  // Step 1 frames T+1 tokens as T (context, target) pairs, never wrapping around the sentence: a
  // sentence of fewer than T+1 words gives one pair fewer than it has words.
  const framing = tokenIds(words.length >= 2 ? words.slice(0, state.T + 1) : takeTokens(words, state.T + 1));
  const x = applyEdits(embed(tokens, state.dModel, state.seed), state.edits, 'x');
  const contextTokens = tokenize(state.context).slice(0, 32);
  const xContext = embed(contextTokens, state.dModel, state.seed);
  const projection = {
    query: weights(state, 'query', 'Wq'),
    key: weights(state, 'key', 'Wk'),
    value: weights(state, 'value', 'Wv'),
  };
  const crossProjection = {
    query: weights(state, 'cross-query', 'crossWq'),
    key: weights(state, 'cross-key', 'crossWk'),
    value: weights(state, 'cross-value', 'crossWv'),
  };
  return {
    tokens, ids, vocabulary, x, contextTokens, xContext, projection, crossProjection,
    framingIds: framing.ids, framingVocabulary: framing.vocabulary,
  };
}
