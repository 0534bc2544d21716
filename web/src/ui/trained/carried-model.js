// A model the learner trained on the Training tab's `text` task, carried into the walk's "trained" steps in the
// English model's place: the model interface over its parameters, with its words as its tokens. Loaded only when
// a model is carried (the page's first screen does not need the model code).
import { decodeSafetensors } from '../../train/safetensors.js';
import { createAttentionOnlyModel } from '../../model/model.js';

/**
 * A model the learner trained on the Training tab's `text` task, carried into the walk: its safetensors bytes and
 * vocabulary (its tokens are words). Returns {model} (a walk model, as englishWalkModel's) or {missing: the words
 * of `sentence` it never saw}.
 */
export function carriedModel(bytes, vocabulary, sentence) {
  const { tensors, metadata } = decodeSafetensors(bytes);
  const { config } = JSON.parse(metadata.attention_playground);
  const { vocabSize, contextLength, dModel, heads, layers, layerNorm = false } = config;
  const index = new Map(vocabulary.map((w, i) => [w, i]));
  const unknown = (text) => [...new Set(text.trim().split(/\s+/).filter((w) => !index.has(w)))];
  const missing = unknown(sentence);
  if (missing.length) return { missing };
  const model = createAttentionOnlyModel({ name: 'carried', config: { vocabSize, contextLength, dModel, heads, layers, layerNorm }, parameters: tensors });
  return {
    model: {
      model,
      carried: true,
      tokens(text) {
        const words = text.trim().split(/\s+/).slice(0, contextLength);
        const gaps = unknown(words.join(' '));
        if (gaps.length) throw new Error(`The model you trained never saw ${gaps.map((w) => `“${w}”`).join(', ')}: train it on a text that has ${gaps.length > 1 ? 'them' : 'it'}, or change the sentence.`);
        return { ids: words.map((w) => index.get(w)), labels: words };
      },
    },
  };
}

