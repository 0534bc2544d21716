// The backward functions as API functions (docs/api.md "Training" → "Backward functions"): on every CPU
// backend the same gradients' names, the planner's path in lastCall, the batch axis dropped for unbatched
// input, and the same Errors, in the backward's name. Their values against autograd: steps.test.js.
import { beforeAll, describe, expect, test } from 'vitest';
import { attentionFor, BACKENDS } from './backends.js';

const tensor = (shape, offset = 0) => ({
  data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => Math.sin(i + offset) / 2),
  shape,
});
const split = () => ({ query: tensor([8, 8], 1), key: tensor([8, 8], 2), value: tensor([8, 8], 3), outWeight: tensor([8, 8], 4) });

describe.each(BACKENDS)('the backward functions on %s', (backend) => {
  let attention;
  beforeAll(async () => {
    attention = await attentionFor(backend);
  });

  test('lastCall reports the planner\'s path: fused with intermediates false, else teaching', () => {
    const x = tensor([2, 4, 8]);
    const lean = attention.multiheadAttentionSplitBackward(x, split(), tensor([2, 4, 8], 5), { heads: 2, causal: true, intermediates: false });
    expect(Object.keys(lean).sort()).toEqual(['key', 'outWeight', 'query', 'value', 'x']);
    expect(attention.lastCall).toMatchObject({ fn: 'multiheadAttentionSplitBackward', backend, path: 'fused' });
    const full = attention.multiheadAttentionSplitBackward(x, split(), tensor([2, 4, 8], 5), { heads: 2, causal: true });
    expect(attention.lastCall.path).toBe('teaching');
    // Both paths compute the same gradients.
    for (const name of Object.keys(full)) {
      full[name].data.forEach((value, i) => expect(Math.abs(value - lean[name].data[i])).toBeLessThanOrEqual(1e-5));
    }
    attention.selfAttentionBackward(x, { query: tensor([8, 3]), key: tensor([8, 3]), value: tensor([8, 3]) }, tensor([2, 4, 3]));
    expect(attention.lastCall).toMatchObject({ fn: 'selfAttentionBackward', path: 'teaching' });
  });

  test('unbatched input gives x\'s gradient without B; the stacked form\'s heads come back as heads', () => {
    const one = attention.selfAttentionBackward(tensor([4, 8]), { query: tensor([8, 3]), key: tensor([8, 3]), value: tensor([8, 3]) }, tensor([4, 3]));
    expect(one.x.shape).toEqual([4, 8]);
    expect(one.query.shape).toEqual([8, 3]);
    const head = () => ({ query: tensor([8, 4]), key: tensor([8, 4], 1), value: tensor([8, 4], 2) });
    const stacked = attention.multiheadAttentionStackedBackward(tensor([2, 4, 8]), { heads: [head(), head()] }, tensor([2, 4, 8]));
    expect(stacked.heads.map((h) => Object.keys(h).sort())).toEqual([['key', 'query', 'value'], ['key', 'query', 'value']]);
  });

  test('bad input is the same Error on every backend, in the backward\'s name', () => {
    const x = tensor([2, 4, 8]);
    expect(() => attention.multiheadAttentionSplitBackward(x, split(), tensor([2, 4, 7]), { heads: 2 }))
      .toThrow("multiheadAttentionSplitBackward: gradOutput has shape [2, 4, 7]; expected [2, 4, 8], the shape of the forward's output");
    expect(() => attention.multiheadAttentionSplitBackward(x, split(), tensor([2, 4, 8]), { heads: 3 }))
      .toThrow('multiheadAttentionSplitBackward: d_out=8 is not divisible by heads=3');
    expect(() => attention.multiheadAttentionFusedBackward(x, { inProjection: tensor([8, 24]) }, tensor([2, 4, 8]), { dropout: 1 }))
      .toThrow('multiheadAttentionFusedBackward: options.dropout=1; expected a number in [0, 1)');
    const nan = tensor([2, 4, 3]);
    nan.data[5] = NaN;
    expect(() => attention.selfAttentionBackward(x, { query: tensor([8, 3]), key: tensor([8, 3]), value: tensor([8, 3]) }, nan))
      .toThrow('selfAttentionBackward: gradOutput[5] is NaN; expected finite numbers');
  });
});
