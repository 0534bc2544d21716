// The training entry point (docs/api.md "Training"): the trainer, its tasks and the induction score.
export { createTrainer, loadTrainer, OPTIMIZER_DEFAULTS } from './trainer.js';
export { parameterSpec, initParameters, INIT_STD } from './model.js';
export { makeBatch, inductionScore, tokenizeText, taskVocabulary, TASKS, CORPUS, IGNORE } from './tasks.js';
export { encodeSafetensors, decodeSafetensors, roundToFloat16 } from './safetensors.js';
