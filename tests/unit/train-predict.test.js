// trainer.predict(inputs) → logits (B, T, V): the page's prediction panel reads the model's guesses from it.
import { describe, expect, test } from 'vitest';
import { createTrainer, makeBatch } from '../../web/src/train/index.js';

describe('trainer.predict', () => {
  test('returns (B, T, V) logits whose argmax gives evaluate()’s accuracy', async () => {
    const trainer = await createTrainer({ vocabSize: 8, contextLength: 6, dModel: 8, heads: 2, layers: 1, seed: 3, backend: 'js', optimizer: { lr: 0.05 } });
    for (let step = 0; step < 20; step++) await trainer.step(makeBatch('previous', { batch: 8, contextLength: 6, vocabSize: 8, seed: 1, step }));
    const batch = makeBatch('previous', { batch: 4, contextLength: 6, vocabSize: 8, seed: 2 });
    const logits = await trainer.predict(batch.inputs);
    expect(logits.shape).toEqual([4, 6, 8]);
    let correct = 0;
    let count = 0;
    for (let i = 0; i < 24; i++) {
      if (batch.targets.data[i] === -100) continue;
      const row = Array.from(logits.data.subarray(i * 8, i * 8 + 8));
      correct += row.indexOf(Math.max(...row)) === batch.targets.data[i] ? 1 : 0;
      count++;
    }
    expect(correct / count).toBeCloseTo((await trainer.evaluate(batch)).accuracy, 12);
    await expect(trainer.predict({ data: new Int32Array([9]), shape: [1, 1] })).rejects.toThrow(/trainer\.predict: inputs\.data\[0\]=9/);
  });
});
