// dropoutRng 'torch': torch.nn.Dropout's own mask (docs/api.md "Dropout's random numbers"). The fixtures
// (tests/fixtures, attentionDropout / selfAttention / multiheadAttentionSplit / selfAttentionBackward) hold
// torch's numbers and run on every backend in steps.test.js; here: the mask itself, the routing and the errors.
import { describe, expect, test } from 'vitest';
import { attentionFor, BACKENDS } from './backends.js';
import { plan, planGpuCall } from '../../web/src/core/planner.js';
import { dropoutKeeps, torchDropoutKeeps } from '../../web/src/core/reference/dropout.js';

// The book's §3.5.2: torch.manual_seed(123); torch.nn.Dropout(0.5)(torch.ones(6, 6)), 1 where it printed 2.
const BOOK_MASK = [
  [1, 1, 0, 1, 1, 0], [0, 0, 0, 1, 0, 1], [1, 1, 1, 1, 0, 1],
  [0, 1, 1, 0, 0, 1], [0, 1, 0, 1, 0, 1], [0, 1, 1, 1, 1, 0],
].flat();

const sequence = (T, d, offset = 0) => ({ data: Float32Array.from({ length: T * d }, (_, i) => Math.sin(i + offset)), shape: [1, T, d] });
const weights = (dIn, dOut) => Object.fromEntries(['query', 'key', 'value'].map((name, k) => [name, {
  data: Float32Array.from({ length: dIn * dOut }, (_, i) => Math.cos(3 * i + k) / 2), shape: [dIn, dOut],
}]));

describe('the torch generator draws torch.nn.Dropout\'s mask', () => {
  test('seed 123, p = 0.5 on 36 elements: the book\'s mask', () => {
    expect(Array.from(torchDropoutKeeps(36, 0.5, 123))).toEqual(BOOK_MASK);
    expect(Array.from(dropoutKeeps(36, 0.5, 123, 'torch'))).toEqual(BOOK_MASK);
  });

  test('the counter generator is unchanged and is the default', () => {
    expect(Array.from(dropoutKeeps(36, 0.5, 123))).toEqual(Array.from(dropoutKeeps(36, 0.5, 123, 'counter')));
    expect(Array.from(dropoutKeeps(36, 0.5, 123))).not.toEqual(BOOK_MASK);
  });

  for (const name of BACKENDS) {
    test(`${name}: attentionDropout of ones is the book's dropout(torch.ones(6, 6))`, async () => {
      const api = await attentionFor(name);
      const ones = { data: new Float32Array(36).fill(1), shape: [6, 6] };
      const { mask, output } = await api.attentionDropout(ones, { dropout: 0.5, seed: 123, dropoutRng: 'torch' });
      expect(Array.from(mask.data)).toEqual(BOOK_MASK);
      expect(Array.from(output.data)).toEqual(BOOK_MASK.map((k) => 2 * k));
    });

    test(`${name}: an unknown dropoutRng is refused, naming the option and the choices`, async () => {
      const api = await attentionFor(name);
      const ones = { data: new Float32Array(4).fill(1), shape: [2, 2] };
      await expect(async () => api.attentionDropout(ones, { dropout: 0.5, dropoutRng: 'numpy' })).rejects.toThrow(/dropoutRng.*'counter'.*'torch'/);
      await expect(async () => api.selfAttention(sequence(2, 2), weights(2, 2), { dropout: 0.5, dropoutRng: 7 })).rejects.toThrow(/dropoutRng/);
    });
  }
});

describe('the planner sends a torch-dropout call to the teaching path', () => {
  const options = (extra) => ({
    scale: true, temperature: 1, causal: true, mask: 'neg_inf', dropout: 0.5, seed: 123, dropoutRng: 'counter', intermediates: false, ...extra,
  });
  const args = (extra) => [sequence(64, 8), weights(8, 8), options(extra)];

  test('on the webgpu backend: the JS reference, and lastCall says why', () => {
    expect(plan('selfAttention', args({}), { name: 'webgpu' }).path).toBe('webgpu');
    const torch = plan('selfAttention', args({ dropoutRng: 'torch' }), { name: 'webgpu' });
    expect(torch.path).toBe('teaching');
    expect(torch.reason).toMatch(/dropoutRng 'torch'/);
    // p = 0 draws nothing, so the generator does not matter.
    expect(plan('selfAttention', args({ dropoutRng: 'torch', dropout: 0 }), { name: 'webgpu' }).path).toBe('webgpu');
  });

  test('never across the GPU crossover, and the WASM backends name the generator', () => {
    expect(planGpuCall('selfAttention', args({ dropoutRng: 'torch' }), 1).gpu).toBe(false);
    expect(planGpuCall('selfAttention', args({}), 1).gpu).toBe(true);
    const wasm = plan('multiheadAttentionSplit', [sequence(64, 8), weights(8, 8), { ...options({ dropoutRng: 'torch' }), heads: 2 }], { name: 'wasm-simd', workers: 2 });
    expect(wasm.path).toBe('teaching');
    expect(wasm.reason).toMatch(/dropoutRng 'torch'/);
  });

  for (const name of BACKENDS) {
    test(`${name}: lastCall of a torch-dropout call is the teaching path, and says why`, async () => {
      const api = await attentionFor(name);
      for (const intermediates of [false, undefined]) {
        await api.multiheadAttentionSplit(sequence(4, 4), weights(4, 4), { heads: 2, causal: true, dropout: 0.5, seed: 1, dropoutRng: 'torch', intermediates });
        expect(api.lastCall).toMatchObject({ fn: 'multiheadAttentionSplit', path: 'teaching' });
        expect(api.lastCall.reason).toMatch(/dropoutRng 'torch'/);
      }
    });
  }
});
