// Types of the package's entry point (web/src/index.js): the attention core's (core/index.d.ts, docs/api.md)
// and the trainer's (train/index.d.ts, docs/api.md "Training").
export * from './core/index.js';
/** The trainer (docs/api.md "Training"), also importable alone as 'attention-playground/train'. */
export { createTrainer, loadTrainer, makeBatch, inductionScore, TASKS } from './train/index.js';
