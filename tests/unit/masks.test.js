// The masks of the multi-head functions and crossAttention beyond the fixtures (their masked cases are in
// tests/fixtures/{crossAttention,multiheadAttention*}.json, run by steps.test.js and fast-path.test.js): bad
// input refused with the same structured Error {fn, argument, value, expected, kind} on every backend, the
// planner's path and reason for each mask, and a fully masked row's zero weights and zero output.
import { beforeAll, describe, expect, test } from 'vitest';
import { BACKENDS, attentionFor } from './backends.js';

const tensor = (shape, fill = (i) => ((i % 7) - 3) / 4) => {
  const size = shape.reduce((a, b) => a * b, 1);
  return { data: Float32Array.from({ length: size }, (_, i) => fill(i)), shape };
};
const bools = (shape, values) => ({ data: Uint8Array.from(values), shape });

// B=2, Tq=3, Tk=4, d=4, H=2
const xQuery = tensor([2, 3, 4]);
const xContext = tensor([2, 4, 4], (i) => ((i % 5) - 2) / 3);
const weights = { query: tensor([4, 4]), key: tensor([4, 4], (i) => ((i % 3) - 1) / 2), value: tensor([4, 4], (i) => (i % 4) / 4) };
const x = tensor([2, 4, 4]);

/** The ApiError a call throws, as its fields. */
function errorOf(call) {
  try {
    call();
  } catch (error) {
    return { fn: error.fn, argument: error.argument, value: error.value, expected: error.expected, kind: error.kind, message: error.message };
  }
  throw new Error('the call was not refused');
}

for (const backend of BACKENDS) {
  describe(`masks on ${backend}`, () => {
    let attention;
    beforeAll(async () => {
      attention = await attentionFor(backend);
    });
    const cross = (options) => attention.crossAttention(xQuery, xContext, weights, { heads: 2, ...options });

    test('an attnMask of the wrong shape is refused, (B·H, Tq, Tk) included', () => {
      const expected = '(Tq, Tk), (B, Tq, Tk) or (B, H, Tq, Tk), each size as in [B=2, H=2, Tq=3, Tk=4] or 1 (not (B·H, Tq, Tk))';
      expect(errorOf(() => cross({ attnMask: bools([4, 3, 4], new Array(48).fill(1)) }))).toEqual({
        fn: 'crossAttention', argument: 'options.attnMask', value: [4, 3, 4], expected, kind: 'shape',
        message: `crossAttention: options.attnMask has shape [4, 3, 4]; expected ${expected}`,
      });
      expect(errorOf(() => cross({ attnMask: { data: new Float32Array(4), shape: [4] } })).argument).toBe('options.attnMask');
      expect(errorOf(() => attention.multiheadAttentionSplit(x, weights, { heads: 2, attnMask: bools([3, 4], new Array(12).fill(1)) })))
        .toMatchObject({ fn: 'multiheadAttentionSplit', argument: 'options.attnMask', kind: 'shape', value: [3, 4] });
    });

    test('a boolean mask holding values other than 0/1 is refused, naming the entry', () => {
      expect(errorOf(() => cross({ attnMask: bools([3, 4], [1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1]) }))).toEqual({
        fn: 'crossAttention', argument: 'options.attnMask.data[5]', value: 2, expected: '0 or 1 (a boolean mask: 1 = may attend)', kind: 'value',
        message: 'crossAttention: options.attnMask.data[5] is 2; expected 0 or 1 (a boolean mask: 1 = may attend)',
      });
      expect(errorOf(() => cross({ keyPaddingMask: bools([2, 4], [0, 0, 0, 1, 0, 3, 0, 0]) }))).toEqual({
        fn: 'crossAttention', argument: 'options.keyPaddingMask.data[5]', value: 3, expected: '0 or 1 (1 = padding, ignored)', kind: 'value',
        message: 'crossAttention: options.keyPaddingMask.data[5] is 3; expected 0 or 1 (1 = padding, ignored)',
      });
    });

    test('NaN in a float mask is refused; −∞ is allowed', () => {
      const data = new Float32Array(12);
      data[7] = NaN;
      expect(errorOf(() => cross({ attnMask: { data, shape: [3, 4] } }))).toMatchObject({
        fn: 'crossAttention', argument: 'options.attnMask[7]', value: NaN, kind: 'value',
      });
      data[7] = -Infinity;
      expect(() => cross({ attnMask: { data, shape: [3, 4] } })).not.toThrow();
    });

    test('a keyPaddingMask that is not (B, Tk) Uint8 is refused', () => {
      expect(errorOf(() => cross({ keyPaddingMask: bools([4], [0, 0, 0, 1]) }))).toEqual({
        fn: 'crossAttention', argument: 'options.keyPaddingMask', value: [4], expected: '[B=2, Tk=4] (B, Tk)', kind: 'shape',
        message: 'crossAttention: options.keyPaddingMask has shape [4]; expected [B=2, Tk=4] (B, Tk)',
      });
      expect(errorOf(() => cross({ keyPaddingMask: { data: new Float32Array(8), shape: [2, 4] } }))).toMatchObject({
        fn: 'crossAttention', argument: 'options.keyPaddingMask', kind: 'option',
      });
    });

    test("a mask with mask: 'renormalize' or 'zero' is an Error naming the option", () => {
      const attnMask = bools([3, 4], new Array(12).fill(1));
      for (const mode of ['renormalize', 'zero']) {
        expect(errorOf(() => cross({ causal: true, mask: mode, attnMask }))).toEqual({
          fn: 'crossAttention', argument: 'options.mask', value: mode, kind: 'option',
          expected: "'neg_inf' when options.attnMask is given (masks apply as −∞ before the softmax)",
          message: `crossAttention: options.mask='${mode}'; expected 'neg_inf' when options.attnMask is given (masks apply as −∞ before the softmax)`,
        });
      }
      expect(errorOf(() => attention.multiheadAttentionFused(x, { inProjection: tensor([4, 12]) },
        { heads: 2, mask: 'renormalize', keyPaddingMask: bools([2, 4], [0, 0, 0, 1, 0, 0, 0, 0]) })))
        .toMatchObject({ fn: 'multiheadAttentionFused', argument: 'options.mask', value: 'renormalize', kind: 'option' });
    });

    test("xValue's batch and Tk must be xContext's, and weights.value's rows d_xv", () => {
      expect(errorOf(() => cross({ xValue: tensor([2, 3, 5]) }))).toEqual({
        fn: 'crossAttention', argument: 'options.xValue', value: [2, 3, 5], expected: '[B=2, Tk=4, d_xv] (the batch size and Tk of xContext)', kind: 'shape',
        message: 'crossAttention: options.xValue has shape [2, 3, 5]; expected [B=2, Tk=4, d_xv] (the batch size and Tk of xContext)',
      });
      expect(errorOf(() => cross({ xValue: tensor([2, 4, 5]) }))).toMatchObject({
        fn: 'crossAttention', argument: 'weights.value', value: [4, 4], expected: '[d_xv=5, d_out=4]', kind: 'shape',
      });
    });

    test('a fully masked row gets zero weights and a zero output; masked is returned with any mask', () => {
      const result = cross({ keyPaddingMask: bools([2, 4], [0, 0, 1, 0, 1, 1, 1, 1]) });
      expect(Object.keys(result)).toContain('masked');
      const batch1 = result.weights.data.subarray(2 * 3 * 4);
      expect(Array.from(batch1).every((w) => w === 0)).toBe(true);
      expect(Array.from(result.output.data.subarray(3 * 4)).every((v) => v === 0)).toBe(true);
      expect(Array.from(result.weights.data.subarray(0, 2 * 3 * 4)).filter((_, j) => j % 4 === 2).every((w) => w === 0)).toBe(true);
    });

    test('the planner sends masked calls to the teaching code and says why', () => {
      const attnMask = bools([3, 4], new Array(12).fill(1));
      cross({ attnMask, intermediates: false });
      expect(attention.lastCall).toMatchObject({ fn: 'crossAttention', path: 'teaching', reason: 'options.attnMask: the teaching code (the fused kernel takes no attention mask)' });
      cross({ xValue: xContext, intermediates: false });
      expect(attention.lastCall).toMatchObject({ path: 'teaching', reason: 'options.xValue: the teaching code (the fused kernel projects the values from xContext)' });
      cross({ intermediates: false });
      expect(attention.lastCall).toMatchObject({ path: 'fused' });
      // keyPaddingMask alone (and with causal): the fused kernel skips the padded keys, and equals the teaching path
      const keyPaddingMask = bools([2, 4], [0, 0, 1, 0, 1, 1, 1, 1]);
      for (const causal of [false, true]) {
        const lean = cross({ keyPaddingMask, causal, intermediates: false });
        expect(attention.lastCall).toMatchObject({ path: 'fused', reason: 'intermediates false, no dropout, no mask other than neg_inf: the fused kernel, which skips the padded keys of options.keyPaddingMask' });
        const full = cross({ keyPaddingMask, causal });
        expect(Array.from(lean.output.data).every((v, i) => Math.abs(v - full.output.data[i]) <= 1e-6)).toBe(true);
        expect(Array.from(lean.output.data.subarray(12)).every((v) => v === 0)).toBe(true);
      }
    });

    test('unbatched input takes a (Tq, Tk) attnMask and a (Tk) keyPaddingMask', () => {
      const result = attention.crossAttention(tensor([3, 4]), tensor([4, 4]), weights,
        { heads: 2, attnMask: bools([3, 4], [1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1]), keyPaddingMask: bools([4], [0, 0, 0, 1]), xValue: tensor([4, 4]) });
      expect(result.weights.shape).toEqual([2, 3, 4]);
      expect(result.output.shape).toEqual([3, 4]);
    });
  });
}
