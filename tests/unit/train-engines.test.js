// The WASM engine's attention products (T·d_head ≥ WASM_ATTENTION_MIN, a size the torch fixture's tiny
// model does not reach) give the JS engine's loss and gradients.
import { describe, expect, it } from 'vitest';
import { createTrainer, makeBatch } from '../../web/src/train/index.js';
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
  });
});
