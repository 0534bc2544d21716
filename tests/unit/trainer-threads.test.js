// createTrainer({threads}) where no worker can run (Node) and on engines that take none: one thread, and
// threadsReason says why. The workers themselves are tested in Chromium (tests/e2e/trainer-threads.spec.js).
import { describe, expect, it } from 'vitest';
import { createTrainer } from '../../web/src/train/index.js';
import { AUTO_MIN_WORK, sequenceWork } from '../../web/src/train/shards.js';

const tiny = { vocabSize: 32, contextLength: 32, dModel: 64, heads: 4, layers: 2 };

describe('createTrainer({threads})', () => {
  it('in Node (no Web Worker) runs on one thread and says so', async () => {
    const trainer = await createTrainer({ ...tiny, backend: 'wasm-simd', threads: 2 });
    expect(trainer.threads).toBe(1);
    expect(trainer.threadsReason).toBe('this environment has no Web Worker');
    trainer.dispose();
  });

  it('threads: 1 is one thread with no reason', async () => {
    const trainer = await createTrainer({ ...tiny, backend: 'wasm-simd', threads: 1 });
    expect([trainer.threads, trainer.threadsReason]).toEqual([1, null]);
    trainer.dispose();
  });

  it("the JS engine takes no workers", async () => {
    const trainer = await createTrainer({ ...tiny, backend: 'js', threads: 4 });
    expect([trainer.threads, trainer.threadsReason]).toEqual([1, 'the JS engine runs on the calling thread']);
    trainer.dispose();
  });

  it("'auto' wants a sequence's forward of AUTO_MIN_WORK multiply-adds: the issue's tiny model is below, its small model above", () => {
    expect(sequenceWork(tiny)).toBe(2 * (4 * 32 * 64 * 64 + 64 * 32 * 33) + 32 * 64 * 32);
    expect(sequenceWork(tiny)).toBeLessThan(AUTO_MIN_WORK);
    expect(sequenceWork({ vocabSize: 256, contextLength: 128, dModel: 256, heads: 8, layers: 4 })).toBeGreaterThan(AUTO_MIN_WORK);
  });
});
