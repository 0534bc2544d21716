// The training session's settings, shared by the page (training/view.js) and the session (engine.js). Only the
// tasks' vocabulary code comes in here, so the page does not load the trainer itself unless it must.
import { taskVocabulary, tokenizeText } from '../../train/tasks.js';

/** The synthetic tasks' vocabulary size (token 0 is the separator of copy, reverse and sort). */
export const SYNTHETIC_VOCAB = 16;
/** The induction task's: random tokens repeated at random offsets, among 32 (the run of tests/unit/induction-offset.test.js). */
export const INDUCTION_VOCAB = 32;
/** The held-out sequences are makeBatch's batch at this step, which training (≤ 100,000 steps) never reaches. */
export const HELD_OUT_STEP = 2 ** 31;
export const HELD_OUT_BATCH = 8;

/** The tasks on the shipped English model: its held-out excerpt ('english') or the learner's text ('english-text'). */
export const isEnglishTask = (task) => task === 'english' || task === 'english-text';

/**
 * The session's config from plain settings: {task, text, layers, heads, dModel, context, lr, wd, batch, seed, steps}
 * → the same plus vocabSize and vocabulary (the words, or null for synthetic tasks). Throws on settings that cannot train.
 */
export function completeConfig(settings) {
  const config = { ...settings };
  if (isEnglishTask(config.task)) {
    // The shipped English model fixes the model (docs/model.md); the session fills in its sizes and token texts.
    if (config.task === 'english-text' && (typeof config.text !== 'string' || config.text.trim().length < 8)) {
      throw new Error('the English text task needs a text of at least 8 characters');
    }
    return { ...config, layers: 2, heads: 4, dModel: 128, context: 64, layerNorm: true, vocabSize: 1024, vocabulary: null };
  }
  if (config.task === 'text' && (typeof config.text !== 'string' || tokenizeText(config.text).tokens.length < 2)) {
    throw new Error('the text task needs a text of at least two words');
  }
  if (config.dModel % config.heads !== 0) throw new Error(`d_model=${config.dModel} is not divisible by heads=${config.heads}`);
  if (config.task === 'induction' && config.context < 9) throw new Error(`the induction task needs a context of at least 9 tokens (two copies of a pattern of ⌊T/4⌋ ≥ 2 among filler); context=${config.context}`);
  config.vocabulary = taskVocabulary(config.task, { text: config.text });
  config.vocabSize = config.vocabulary ? config.vocabulary.length : (settings.vocabSize ?? (config.task === 'induction' ? INDUCTION_VOCAB : SYNTHETIC_VOCAB));
  return config;
}

/**
 * Step 12's settings: one layer, one head, on a synthetic task (default 'previous': fresh random sequences every
 * batch, so the held-out batch is new sequences, never seen) or on the sentence's words; seeded by learn-seed.
 */
export function demoSettings(state) {
  const words = state.sentence.trim().split(/\s+/).length;
  const sentence = state['learn-task'] === 'sentence';
  return {
    task: sentence ? 'text' : state['learn-task'], text: state.sentence, layers: 1, heads: 1, dModel: 16,
    context: sentence ? Math.max(2, Math.min(16, words)) : 32, vocabSize: 16,
    lr: 0.03, wd: 0.01, batch: 16, seed: state['learn-seed'], steps: 200,
  };
}
