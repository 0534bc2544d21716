// The trainer against PyTorch training (tests/fixtures/training.py): AttentionOnly with explicit initial
// parameters, 50 explicit batches, 50 torch.optim.AdamW steps in torch 1.13 (float32, one thread).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTrainer, loadTrainer } from '../../web/src/train/index.js';
import { decodeValue } from './fixtures.js';
import { keyBiasErrors } from '../e2e/pages/trainer-fixture.js';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/trainAttentionOnly.json', import.meta.url), 'utf8'));

function maxError(actual, expected) {
  let worst = 0;
  for (let i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
  return worst;
}

describe.each(['js', 'wasm-simd', 'wasm-baseline'])('the trainer matches PyTorch AdamW training of AttentionOnly on %s', (backend) => {
  for (const testCase of fixture.cases) {
    it(`${testCase.name}: the loss at every step to 1e-4 relative, the final parameters to 1e-4`, async () => {
      const initial = decodeValue(testCase.initial);
      const trainer = await createTrainer({
        ...testCase.config, seed: 0, parameters: initial, optimizer: testCase.optimizer,
        gradClip: testCase.gradClip ?? undefined, backend,
      });
      expect(trainer.backend).toBe(backend);
      for (let s = 0; s < testCase.batches.length; s++) {
        const batch = decodeValue(testCase.batches[s]);
        const { loss, gradNorm } = await trainer.step(batch);
        expect(Math.abs(loss - testCase.losses[s]), `loss at step ${s}`).toBeLessThanOrEqual(1e-4 * Math.abs(testCase.losses[s]));
        expect(Math.abs(gradNorm - testCase.gradNorms[s]), `gradNorm at step ${s}`).toBeLessThanOrEqual(1e-4 * testCase.gradNorms[s] + 1e-6);
      }
      const final = decodeValue(testCase.final);
      const ours = trainer.parameters();
      expect(Object.keys(ours)).toEqual(Object.keys(final));
      for (const [name, t] of Object.entries(final)) {
        if (!name.endsWith('k_proj.bias')) expect(maxError(ours[name].data, t.data), name).toBeLessThanOrEqual(1e-4);
      }
      // k_proj.bias has a gradient of exactly 0 (the softmax cancels a bias on the keys): weight decay alone moves
      // it, bit for bit. torch's gradient there is rounding noise, which AdamW turns into steps of up to lr.
      const keyBias = keyBiasErrors({ ...testCase, initial: decodeValue(testCase.initial), final }, ours);
      expect(keyBias.fromDecay, 'k_proj.bias against weight decay alone').toBe(0);
      expect(keyBias.fromTorch, "k_proj.bias against torch's").toBeLessThanOrEqual(2e-2);
      const gradients = trainer.gradients();
      for (const [name, g] of Object.entries(gradients)) {
        // at contextLength 1 (one key, softmax 1) torch's q_proj and k_proj gradients are exactly 0, and ours
        const zero = name.endsWith('k_proj.bias') || (testCase.config.contextLength === 1 && /[qk]_proj/.test(name));
        if (zero) expect(g.data.every((v) => v === 0), `${name}'s gradient is exactly 0`).toBe(true);
      }
    });
  }
});

describe('save() writes a file PyTorch loads with load_state_dict', () => {
  it('the committed file is what save() writes for its model, and torch computes our loss with it', async () => {
    const saved = fixture.savedFile;
    expect(saved, 'tests/fixtures/training.py found tests/fixtures/trainerSave.safetensors').toBeTruthy();
    const bytes = new Uint8Array(readFileSync(new URL(`../fixtures/${saved.file}`, import.meta.url)));
    const trainer = await loadTrainer(bytes, { backend: 'js' });
    expect(trainer.steps).toBe(saved.optimizerStep);
    const { loss } = await trainer.evaluate({ inputs: decodeValue(saved.inputs), targets: decodeValue(saved.targets) });
    expect(Math.abs(loss - saved.loss)).toBeLessThanOrEqual(1e-5 * Math.abs(saved.loss));
    expect(Array.from(trainer.save())).toEqual(Array.from(bytes));
  });
});
