// scaledDotProductAttention beyond the fixtures (tests/fixtures/scaledDotProductAttention.json, run by
// steps.test.js on every backend): its errors, in the same words on every backend, and its path.
import { beforeAll, describe, expect, test } from 'vitest';
import { BACKENDS, attentionFor } from './backends.js';

const tensor = (shape, fill = (i) => ((i % 7) - 3) / 4) => {
  const size = shape.reduce((a, b) => a * b, 1);
  return { data: Float32Array.from({ length: size }, (_, i) => fill(i)), shape };
};
const q = tensor([2, 3, 4]);
const k = tensor([2, 5, 4]);
const v = tensor([2, 5, 3]);

for (const backend of BACKENDS) {
  describe(`scaledDotProductAttention on ${backend}`, () => {
    let attention;
    beforeAll(async () => {
      attention = await attentionFor(backend);
    });

    const refused = (args, message) => expect(() => attention.scaledDotProductAttention(...args)).toThrow(message);

    test('a boolean mask other than 0/1 is refused, naming the entry', () => {
      const mask = { data: Uint8Array.from([1, 1, 2, 1, 0]), shape: [5] };
      refused([q, k, v, { attnMask: mask }],
        'scaledDotProductAttention: options.attnMask.data[2] is 2; expected 0 or 1 (a boolean mask: 1 = may attend)');
    });

    test('a mask that does not broadcast to (…, L, S) is refused', () => {
      refused([q, k, v, { attnMask: { data: new Float32Array(4), shape: [4] } }],
        'scaledDotProductAttention: options.attnMask has shape [4]; expected a shape broadcastable to [2, 3, 5] (…, L, S)');
      refused([q, k, v, { attnMask: { data: new Uint8Array(30), shape: [1, 2, 3, 5] } }],
        'scaledDotProductAttention: options.attnMask has shape [1, 2, 3, 5]; expected a shape broadcastable to [2, 3, 5] (…, L, S)');
    });

    test('a mask that is not a tensor of Uint8Array or Float32Array is refused', () => {
      refused([q, k, v, { attnMask: { data: new Int32Array(5), shape: [5] } }], 'scaledDotProductAttention: options.attnMask=');
    });

    test('isCausal with attnMask is an Error, as PyTorch', () => {
      refused([q, k, v, { isCausal: true, attnMask: { data: new Uint8Array(5).fill(1), shape: [5] } }],
        'scaledDotProductAttention: options.isCausal=true; expected false when options.attnMask is given (as PyTorch)');
    });

    test('E, S and the leading axes must agree', () => {
      refused([q, tensor([2, 5, 3]), v], 'scaledDotProductAttention: key has shape [2, 5, 3]; expected E=4 in its last axis, as query');
      refused([q, k, tensor([2, 4, 3])], 'scaledDotProductAttention: value has shape [2, 4, 3]; expected S=5 in its second-to-last axis, as key');
      refused([q, tensor([3, 5, 4]), v], 'scaledDotProductAttention: key has shape [3, 5, 4]; expected the leading axes of query [2, 3, 4]');
      refused([q, tensor([5, 4]), v], 'scaledDotProductAttention: key has shape [5, 4]; expected rank 3, the rank of query (…, S, E)');
      refused([tensor([4]), k, v], 'scaledDotProductAttention: query has shape [4]; expected rank ≥ 2 (…, L, E)');
    });

    test('scale is a finite number or null; dropoutP in [0, 1)', () => {
      refused([q, k, v, { scale: Infinity }], 'scaledDotProductAttention: options.scale=Infinity; expected a finite number, or null for 1/√E');
      refused([q, k, v, { dropoutP: 1 }], 'scaledDotProductAttention: options.dropoutP=1; expected a number in [0, 1)');
    });

    test('intermediates false gives the output alone; the planner names the teaching path', async () => {
      const all = await attention.scaledDotProductAttention(q, k, v, { isCausal: true });
      const alone = await attention.scaledDotProductAttention(q, k, v, { isCausal: true, intermediates: false });
      expect(Object.keys(alone)).toEqual(['output']);
      expect(Array.from(alone.output.data)).toEqual(Array.from(all.output.data));
      expect(attention.lastCall).toMatchObject({ fn: 'scaledDotProductAttention', path: 'teaching' });
    });
  });
}
