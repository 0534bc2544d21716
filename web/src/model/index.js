// The models entry point (docs/api.md "Models"): the model interface over the trainer's attention-only
// transformer, the shipped English model, its tokenizer, head scores and ablation.
export { createAttentionOnlyModel, ABLATIONS } from './model.js';
export { createTokenizer, splitPieces } from './tokenizer.js';
export { headScores, headProbes, HEAD_SCORE_MULTIPLE, HEAD_LABELS } from './head-scores.js';
export { ablate, batchLoss, sequenceLoss, textLoss, topTokens } from './predictions.js';
export { textTask, TEXT_HELD_OUT_SHARE } from './text-task.js';
export { loadEnglishModel, modelFromSafetensors, ENGLISH_MODEL_URL, MODEL_META_KEY } from './english.js';
