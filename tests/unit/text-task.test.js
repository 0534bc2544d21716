// The Training tab's "real English" task (docs/api.md "Models", textTask): training the shipped model's
// architecture on the shipped excerpt in its BPE tokens, continuing from the shipped weights or from the seed.
import { describe, it, expect, beforeAll } from 'vitest';
import { loadEnglishModel } from '../../web/src/model/english.js';
import { textTask } from '../../web/src/model/text-task.js';
import { batchLoss } from '../../web/src/model/predictions.js';
import { createTrainer } from '../../web/src/train/index.js';
import { createSession } from '../../web/src/ui/training/engine.js';
import { completeConfig } from '../../web/src/ui/training/config.js';

let model;
let task;
beforeAll(async () => {
  model = await loadEnglishModel();
  task = textTask(model.tokenizer.encode(model.sample), { contextLength: model.config.contextLength });
});

const trainerFor = (parameters) => createTrainer({
  vocabSize: model.config.vocabSize, contextLength: model.config.contextLength, dModel: model.config.dModel,
  heads: model.config.heads, layers: model.config.layers, layerNorm: model.config.layerNorm, seed: 1, parameters,
  backend: 'wasm', optimizer: { lr: 1e-3 },
});

describe('textTask', () => {
  it('holds out the text\'s tail and trains on windows of the rest', () => {
    const n = task.train.length + task.heldOut.length;
    expect(n).toBe(model.tokenizer.encode(model.sample).length);
    expect(task.heldOut.length).toBe(Math.ceil(0.2 * n));
    expect(task.length).toBe(64);
    const { inputs, targets } = task.batch({ batch: 4, seed: 3, step: 5 });
    expect(inputs.shape).toEqual([4, 64]);
    // each row is a window of the training part: targets are the inputs shifted by one
    for (let b = 0; b < 4; b++) expect(Array.from(inputs.data.subarray(b * 64 + 1, b * 64 + 64))).toEqual(Array.from(targets.data.subarray(b * 64, b * 64 + 63)));
    const held = task.heldOutBatch();
    const counted = Array.from(held.targets.data).filter((t) => t !== -100).length;
    expect(counted).toBe(task.heldOut.length - 1);
    expect(() => textTask([1, 2], { contextLength: 8 })).toThrow(/textTask: ids has 2 tokens; expected at least 4/);
    expect(() => completeConfig({ task: 'english-text', text: 'hi' })).toThrow(/English text task needs a text of at least 8 characters/);
  });

  it('from the shipped weights, the first step\'s loss is the shipped model\'s on the batch; from the seed, ln V', async () => {
    const batch = task.batch({ batch: 2, seed: 1, step: 0 });
    const shipped = await trainerFor(model.parameters);
    const expected = batchLoss(model, batch);
    expect(expected).toBeGreaterThan(2);
    expect(expected).toBeLessThan(5);
    expect((await shipped.evaluate(task.heldOutBatch())).loss).toBeCloseTo(batchLoss(model, task.heldOutBatch()), 4);
    const { loss } = await shipped.step(batch);
    expect(Math.abs(loss - expected)).toBeLessThan(1e-4);
    shipped.dispose();
    const scratch = await trainerFor(undefined);
    const first = (await scratch.step(batch)).loss;
    expect(Math.abs(first - Math.log(model.config.vocabSize))).toBeLessThan(0.05);
    scratch.dispose();
  });

  it('the Training tab\'s session on the excerpt: the held-out loss starts at the shipped model\'s, every head is scored', async () => {
    const session = createSession();
    const settings = { task: 'english', text: '', layers: 1, heads: 1, dModel: 8, context: 8, lr: 1e-4, wd: 0.01, batch: 2, seed: 1, steps: 100, start: 'shipped', backend: 'wasm' };
    const reply = await session.handle({ type: 'init', config: completeConfig(settings), view: { predictions: 1 } });
    expect(reply.config).toMatchObject({ layers: 2, heads: 4, dModel: 128, context: 64, vocabSize: 1024, trainTokens: task.train.length, heldOutTokens: task.heldOut.length });
    expect(reply.config.vocabulary[model.tokenizer.encode(' the')[0]]).toBe(' the');
    expect(Math.abs(reply.snapshot.evalLoss - batchLoss(model, task.heldOutBatch()))).toBeLessThan(1e-4);
    expect(reply.snapshot.headScores).toHaveLength(8);
    expect(reply.snapshot.headScoresStep).toBe(0);
    const steps = await session.handle({ type: 'steps', count: 2, view: { predictions: 0, weights: false } });
    expect(steps.losses).toHaveLength(2);
    expect(steps.snapshot.headScoresStep).toBe(0); // rescored every 32 steps
  });
});
