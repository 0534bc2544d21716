// Repeats at random offsets (makeBatch 'induction' with randomOffset): only a previous-token head in layer 1
// feeding an induction head in layer 2 solves it. Seeded runs on the wasm-simd build, step for step.
import { describe, expect, it } from 'vitest';
import { countedLoss, heldOut, LOSS, RUN, trainInduction } from './induction-heads.js';

describe(`the random-offset induction task, ${RUN.steps} steps, seed ${RUN.seed}`, () => {
  it(`two layers reach held-out loss ${LOSS} with a layer-1 previous-token head and a layer-2 induction head; ablating it sends the loss back up`, async () => {
    const { trainer, model, scores } = await trainInduction(2);
    const held = heldOut();
    const { loss } = await trainer.evaluate(held);
    expect(loss).toBeLessThan(LOSS);
    const previous = scores.heads.filter((h) => h.layer === 0 && h.label === 'previous token');
    const induction = scores.heads.filter((h) => h.layer === 1 && h.label === 'induction');
    expect(previous.length).toBeGreaterThan(0);
    expect(induction.length).toBeGreaterThan(0);
    // the interface's forward agrees with the trainer's
    expect(countedLoss(model, held)).toBeCloseTo(loss, 4);
    const off = countedLoss(model, held, induction.map((h) => [h.layer, h.head]));
    expect(off).toBeGreaterThan(loss + 1);
    trainer.dispose();
  }, 120_000);

  it(`one layer (same width, steps, learning rate and seed) does not reach ${LOSS}`, async () => {
    const { trainer } = await trainInduction(1);
    const { loss } = await trainer.evaluate(heldOut());
    expect(loss).toBeGreaterThan(LOSS);
    trainer.dispose();
  }, 120_000);
});
