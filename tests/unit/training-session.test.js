// The Training tab's session (web/src/ui/training/engine.js) follows the page's backend choice: a backend that
// cannot load here trains on 'auto' and says why; a new choice moves the same run on (step, parameters, AdamW).
import { describe, expect, test } from 'vitest';
import { createSession } from '../../web/src/ui/training/engine.js';
import { completeConfig } from '../../web/src/ui/training/config.js';

const SETTINGS = { task: 'previous', layers: 1, heads: 1, dModel: 8, context: 8, lr: 0.03, wd: 0.01, batch: 4, seed: 7, steps: 6 };
const VIEW = { layer: 0, predictions: 0, weights: false };

describe('training session backends', () => {
  test('WebGPU where there is none (Node) falls back to auto, and the reply says why', async () => {
    const session = createSession();
    const reply = await session.handle({ type: 'init', config: { ...completeConfig(SETTINGS), backend: 'webgpu' }, view: VIEW });
    expect(reply.requested).toBe('webgpu');
    expect(reply.backend).not.toBe('webgpu');
    expect(reply.fallback).toMatch(/webgpu/);
  });

  test('a new backend continues the run: the same losses as a run that never switched', async () => {
    const steady = createSession();
    await steady.handle({ type: 'init', config: { ...completeConfig(SETTINGS), backend: 'js' }, view: VIEW });
    const expected = (await steady.handle({ type: 'steps', count: 4 })).losses;

    const switching = createSession();
    const start = await switching.handle({ type: 'init', config: { ...completeConfig(SETTINGS), backend: 'js' }, view: VIEW });
    expect(start.backend).toBe('js');
    const before = (await switching.handle({ type: 'steps', count: 2 })).losses;
    const moved = await switching.handle({ type: 'backend', backend: 'wasm-baseline', view: VIEW });
    expect(moved).toMatchObject({ backend: 'wasm-baseline', requested: 'wasm-baseline', fallback: null, step: 2 });
    const after = (await switching.handle({ type: 'steps', count: 2 })).losses;
    expect(before).toEqual(expected.slice(0, 2));
    // Another backend's GEMM rounds differently in the last bits: the same curve to float32 precision.
    after.forEach((loss, i) => expect(Math.abs(loss - expected[2 + i])).toBeLessThan(1e-4));
  });
});
