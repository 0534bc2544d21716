// The training session's settings, shared by the page (training/view.js) and the session (engine.js). Only the
// tasks' vocabulary code comes in here, so the page does not load the trainer itself unless it must.
import { taskVocabulary, tokenizeText } from '../../train/tasks.js';

/** The synthetic tasks' vocabulary size (token 0 is the separator of copy, reverse and sort). */
export const SYNTHETIC_VOCAB = 16;
/** The held-out sequences are makeBatch's batch at this step, which training (≤ 100,000 steps) never reaches. */
export const HELD_OUT_STEP = 2 ** 31;
export const HELD_OUT_BATCH = 8;

/**
 * The session's config from plain settings: {task, text, layers, heads, dModel, context, lr, wd, batch, seed, steps}
 * → the same plus vocabSize and vocabulary (the words, or null for synthetic tasks). Throws on settings that cannot train.
 */
export function completeConfig(settings) {
  const config = { ...settings };
  if (config.task === 'text' && (typeof config.text !== 'string' || tokenizeText(config.text).tokens.length < 2)) {
    throw new Error('the text task needs a text of at least two words');
  }
  if (config.dModel % config.heads !== 0) throw new Error(`d_model=${config.dModel} is not divisible by heads=${config.heads}`);
  config.vocabulary = taskVocabulary(config.task, { text: config.text });
  config.vocabSize = config.vocabulary ? config.vocabulary.length : (settings.vocabSize ?? SYNTHETIC_VOCAB);
  return config;
}

