// The WASM engine's attention products (T·d_head ≥ WASM_ATTENTION_MIN, a size the torch fixture's tiny
// model does not reach) give the JS engine's loss and gradients; the resident model's state (native.js) is what
// parameters(), gradients(), setParameters(), evaluate() and save() see, and predict() and attention() run on.
import { describe, expect, it } from 'vitest';
import { createTrainer, loadTrainer, makeBatch } from '../../web/src/train/index.js';
import { WASM_ATTENTION_MIN } from '../../web/src/train/linear.js';

describe('the WASM attention products', () => {
  const config = { vocabSize: 12, contextLength: 64, dModel: 64, heads: 2, layers: 2, layerNorm: true, seed: 4 };
  it.each(['wasm-simd', 'wasm-baseline'])('%s: loss and gradients equal the JS engine\'s (1e-5 relative to the largest)', async (backend) => {
    expect(64 * 32).toBeGreaterThanOrEqual(WASM_ATTENTION_MIN);
    const batch = makeBatch('induction', { batch: 2, contextLength: 64, vocabSize: 12, seed: 1, step: 0 });
    const js = await createTrainer({ ...config, backend: 'js' });
    const wasm = await createTrainer({ ...config, backend });
    const a = await js.step(batch);
    const b = await wasm.step(batch);
    expect(Math.abs(a.loss - b.loss)).toBeLessThan(1e-5 * a.loss);
    expect(Math.abs(a.gradNorm - b.gradNorm)).toBeLessThan(1e-4 * a.gradNorm);
    const ga = js.gradients();
    const gb = wasm.gradients();
    for (const name of Object.keys(ga)) {
      if (name.endsWith('k_proj.bias')) continue; // true gradient 0: rounding noise only
      const scale = Math.max(...ga[name].data.map(Math.abs));
      const worst = Math.max(...ga[name].data.map((v, i) => Math.abs(v - gb[name].data[i])));
      expect(worst, name).toBeLessThanOrEqual(1e-4 * scale + 1e-7);
    }
    const attention = await wasm.attention(batch.inputs);
    expect(attention[1].shape).toEqual([2, 2, 64, 64]);
    expect(attention[1].data[1]).toBe(0);
    // predict() and attention() run the resident model's forward: the JS model's on the same parameters
    const same = await createTrainer({ ...config, backend: 'js', parameters: wasm.parameters() });
    const [logits, expected] = [await wasm.predict(batch.inputs), await same.predict(batch.inputs)];
    expect(logits.shape).toEqual(expected.shape);
    const scale = Math.max(...expected.data.map(Math.abs));
    expect(Math.max(...logits.data.map((v, i) => Math.abs(v - expected.data[i])))).toBeLessThanOrEqual(1e-5 * scale);
    const expectedAttention = await same.attention(batch.inputs);
    attention.forEach((w, l) => {
      expect(w.shape).toEqual(expectedAttention[l].shape);
      expect(Math.max(...w.data.map((v, i) => Math.abs(v - expectedAttention[l].data[i]))), `layer ${l}`).toBeLessThanOrEqual(1e-6);
    });
  });
});

describe('the resident WASM model and the trainer\'s JS copy of its state', () => {
  const config = { vocabSize: 8, contextLength: 8, dModel: 8, heads: 2, layers: 1, seed: 2, optimizer: { lr: 0.01 } };
  const batch = (step) => makeBatch('induction', { batch: 4, contextLength: 8, vocabSize: 8, seed: 3, step });
  it.each(['wasm-simd', 'wasm-baseline'])('%s: setParameters, evaluate, gradients and save follow the steps', async (backend) => {
    const wasm = await createTrainer({ ...config, backend });
    const start = wasm.parameters();
    const before = await wasm.evaluate(batch(9));
    for (let s = 0; s < 3; s++) await wasm.step(batch(s));
    const after = await wasm.evaluate(batch(9));
    expect(after.loss).not.toBe(before.loss);
    expect(wasm.parameters()['unembed.weight'].data).not.toEqual(start['unembed.weight'].data);
    expect(wasm.gradients()['unembed.bias'].data.some((g) => g !== 0)).toBe(true);
    // the saved file resumes on the JS engine: the same evaluation, and the same next step to float32 noise
    const resumed = await loadTrainer(wasm.save(), { backend: 'js' });
    expect(resumed.steps).toBe(3);
    expect(Math.abs((await resumed.evaluate(batch(9))).loss - after.loss)).toBeLessThan(1e-5 * after.loss);
    const next = await wasm.step(batch(3));
    expect(Math.abs((await resumed.step(batch(3))).loss - next.loss)).toBeLessThan(1e-5 * next.loss);
    // setParameters reaches the resident model: back at the start, the first evaluation again
    wasm.setParameters(start);
    expect(Math.abs((await wasm.evaluate(batch(9))).loss - before.loss)).toBeLessThan(1e-6 * before.loss);
    wasm.dispose();
  });
});
