// The package's entry point ('attention-playground'): the attention core (core/index.js) and the trainer
// (train/index.js, also importable alone as 'attention-playground/train'), side by side. The core does not
// know the trainer; the trainer reaches the core through core/engine.js.
export * from './core/index.js';
export { createTrainer, loadTrainer, makeBatch, inductionScore, TASKS } from './train/index.js';
