// Plan first, then run: the API hands a backend the path it planned (options.path), the WASM binding and the JS
// reference run that path, and a call planned onto the fused path that the fused kernel's rule refuses is an
// Error, never run (docs/api.md "Which path runs a call").
import { describe, expect, test } from 'vitest';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';
import { createReferenceBackend } from '../../web/src/core/reference/index.js';
import { loadAttention } from '../../web/src/core/index.js';
import { compareTensors } from './tolerance.js';
import { waveTensor } from './wasm-helpers.js';

const x = waveTensor([2, 5, 4], 0.3);
const weights = { query: waveTensor([4, 4], 1), key: waveTensor([4, 4], 2), value: waveTensor([4, 4], 3), outWeight: waveTensor([4, 4], 4) };
const OPTIONS = {
  scale: true, temperature: 1, causal: true, mask: 'neg_inf', dropout: 0, seed: 0, heads: 2, intermediates: false,
  attnMask: null, keyPaddingMask: null,
};

describe('a backend runs the path it is given', () => {
  const backends = [['wasm-simd', () => loadWasmBackend({ build: 'simd' })], ['js', async () => createReferenceBackend()]];
  for (const [name, load] of backends) {
    test(`${name}: 'teaching' and 'fused' give the same output; 'fused' where the rule refuses it is an Error`, async () => {
      const backend = await load();
      const fused = backend.multiheadAttentionSplit(x, weights, { ...OPTIONS, path: 'fused' });
      const teaching = backend.multiheadAttentionSplit(x, weights, { ...OPTIONS, path: 'teaching' });
      expect(Object.keys(teaching)).toEqual(['output']);
      expect(compareTensors(teaching.output, fused.output, { atol: 1e-5, rtol: 1e-5 }).report).toBeFalsy();
      expect(() => backend.multiheadAttentionSplit(x, weights, { ...OPTIONS, dropout: 0.5, path: 'fused' }))
        .toThrow(/planned onto the fused/);
    });
  }

  test("the API's lastCall is the plan the call ran with", async () => {
    const attention = await loadAttention({ backend: 'wasm-simd' });
    attention.multiheadAttentionSplit(x, weights, { heads: 2, causal: true, intermediates: false });
    expect(attention.lastCall).toMatchObject({ path: 'fused', backend: 'wasm-simd' });
    attention.multiheadAttentionSplit(x, weights, { heads: 2, causal: true, mask: 'zero', intermediates: false });
    expect(attention.lastCall).toMatchObject({ path: 'teaching', reason: "mask 'zero': the teaching code" });
  });
});
