// The random-offset induction task (docs/api.md "Tasks", randomOffset) trained with a fixed seed, and what the
// heads become: shared by tests/unit/induction-offset.test.js and the Training tab's claims.
import { createTrainer, makeBatch } from '../../web/src/train/index.js';
import { batchLoss, createAttentionOnlyModel, headScores } from '../../web/src/model/index.js';

export const TASK = { vocabSize: 32, contextLength: 32 };
export const RUN = { dModel: 32, heads: 2, seed: 1, batch: 32, lr: 0.01, steps: 1000 };
/** The held-out loss two layers reach by RUN.steps, and one layer does not (a uniform guess: ln 32 ≈ 3.47). */
export const LOSS = 0.3;

export const heldOut = () => makeBatch('induction', { batch: 64, ...TASK, seed: 2, step: 0, randomOffset: true });

/** Trains `layers` layers for `steps` steps; → {trainer, model (the interface over its parameters)}. */
export async function trainInduction(layers, steps = RUN.steps, backend = 'wasm-simd') {
  const trainer = await createTrainer({
    ...TASK, dModel: RUN.dModel, heads: RUN.heads, layers, seed: RUN.seed, backend, optimizer: { name: 'adamw', lr: RUN.lr },
  });
  for (let step = 0; step < steps; step++) {
    await trainer.step(makeBatch('induction', { batch: RUN.batch, ...TASK, seed: RUN.seed, step, randomOffset: true }));
  }
  const model = createAttentionOnlyModel({ name: `induction ${layers} layers`, config: trainer.config, parameters: trainer.parameters() });
  return { trainer, model, scores: headScores(model) };
}

/** The mean loss over the counted targets (the second copy) of a batch, through the model interface. */
export const countedLoss = (model, batch, headsOff = []) => batchLoss(model, batch, { headsOff });
