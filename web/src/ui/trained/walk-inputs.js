// The walk's "trained" inputs, without loading anything (walk-model.js loads the shipped file): a model from
// safetensors bytes, the state it implies, and x and W_query/W_key/W_value from its tensors. Pure, so Node (the
// PyTorch snippets' fixtures, tests/fixtures/snippet_texts.mjs) builds the same inputs as the page.
import { decodeSafetensors } from '../../train/safetensors.js';
import { applyEdits, transposed } from '../inputs.js';

/** The steps that have a trained counterpart. */
export const TRAINED_STEPS = ['weights', 'causal', 'dropout', 'multihead'];
/** The settings the trained model fixes (locked while `model=trained`). */
export const TRAINED_LOCKS = ['sentence', 'T', 'dModel', 'dOut', 'heads', 'seed'];

/** The shipped model's safetensors bytes → {sentence, vocabulary, T, dModel, heads, tensors}. */
export function walkModelFromBytes(bytes) {
  const { tensors, metadata } = decodeSafetensors(bytes);
  const info = JSON.parse(metadata.attention_playground);
  return { sentence: info.sentence, vocabulary: info.vocabulary, T: info.config.contextLength, dModel: info.config.dModel, heads: info.config.heads, tensors };
}

/**
 * A model the learner trained on the Training tab's `text` task, carried into the walk: its safetensors bytes and
 * vocabulary, for the walk's sentence. Returns {model} or {missing: words of the sentence it never saw}.
 */
export function carriedModel(bytes, vocabulary, sentence) {
  const { tensors, metadata } = decodeSafetensors(bytes);
  const { config } = JSON.parse(metadata.attention_playground);
  const words = sentence.trim().split(/\s+/);
  const known = new Set(vocabulary);
  const missing = [...new Set(words.filter((w) => !known.has(w)))];
  if (missing.length) return { missing };
  const T = Math.min(words.length, config.contextLength, 32);
  return { model: { sentence, vocabulary, T, dModel: config.dModel, heads: config.heads, tensors, carried: true } };
}

/** The state the trained model implies: its sentence and sizes replace the learner's. */
export function trainedState(state, model) {
  return { ...state, sentence: model.sentence, T: model.T, dModel: model.dModel, dOut: model.dModel, heads: model.heads };
}

/** Replaces x and the projection weights of `inputs` (built for trainedState) with the model's. */
export function trainedInputs(inputs, model, edits) {
  const { T, dModel: d, tensors } = model;
  const tok = tensors['tok_emb.weight'].data;
  const pos = tensors['pos_emb.weight'].data;
  const x = new Float32Array(T * d);
  const index = new Map(model.vocabulary.map((w, i) => [w, i]));
  inputs.tokens.forEach((word, t) => {
    const id = index.get(word);
    for (let c = 0; c < d; c++) x[t * d + c] = tok[id * d + c] + pos[t * d + c];
  });
  // The q/k/v projections in the walk's layout (inputs.js projectionWeights): `shown` as PyTorch stores them,
  // `core` as (d_in, d_out) for X·W; the learner's edits go to the matrix as shown.
  const { layout } = inputs.weights;
  const shown = {};
  const core = {};
  [['query', 'q_proj', 'Wq'], ['key', 'k_proj', 'Wk'], ['value', 'v_proj', 'Wv']].forEach(([name, module, edit]) => {
    const weight = tensors[`blocks.0.${module}.weight`]; // nn.Linear's (out, in)
    const stored = layout === 'linear' ? { data: Float32Array.from(weight.data), shape: [...weight.shape] } : transposed(weight);
    shown[name] = applyEdits(stored, edits, edit);
    core[name] = layout === 'linear' ? transposed(shown[name]) : shown[name];
  });
  return {
    ...inputs,
    trained: { carried: Boolean(model.carried) }, // the PyTorch panel writes these weights out (torch-snippets.js)
    x: applyEdits({ data: x, shape: [T, d] }, edits, 'x'),
    projection: core,
    weights: { layout, shown, core },
  };
}
