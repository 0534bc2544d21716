// headScores and ablation on hand-written weights (tests/unit/model-constructed.js), and the tokenizer.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ablate, createTokenizer, HEAD_SCORE_MULTIPLE, headScores, sequenceLoss } from '../../web/src/model/index.js';
import { constructedModel, T, V } from './model-constructed.js';

const label = (scores, layer) => scores.heads.find((h) => h.layer === layer).label;

describe('headScores on constructed weights', () => {
  it('labels a pure previous-token head, a sink head and a self head', () => {
    const scores = headScores(constructedModel(['previous', 'sink', 'self']), { count: 4 });
    expect(scores.multiple).toBe(HEAD_SCORE_MULTIPLE);
    expect(scores.heads.map((h) => h.label)).toEqual(['previous token', 'first token (sink)', 'self']);
    expect(scores.heads[0].previousToken).toBeGreaterThan(0.99);
    expect(scores.heads[1].sink).toBeGreaterThan(0.99);
    expect(scores.heads[2].self).toBeGreaterThan(0.99);
    // each threshold is the stated multiple of a uniform causal head's score on the same probes
    expect(scores.thresholds.previousToken).toBeCloseTo(HEAD_SCORE_MULTIPLE * scores.uniform.previousToken, 12);
    expect(scores.uniform.previousToken).toBeLessThan(0.1);
  });

  it('labels a previous-token head in layer 1 and the induction head it feeds in layer 2', () => {
    const scores = headScores(constructedModel(['previous', 'induction']), { count: 4 });
    expect(label(scores, 0)).toBe('previous token');
    expect(label(scores, 1)).toBe('induction');
    expect(scores.heads[1].induction).toBeGreaterThan(0.9);
    expect(scores.heads[1].previousToken).toBeLessThan(scores.thresholds.previousToken);
  });

  it('gives the same scores, as a Promise, for a model whose forward is asynchronous (GPT-2 on workers)', async () => {
    const model = constructedModel(['previous', 'induction']);
    const later = { ...model, forward: async (tokens) => model.forward(tokens) };
    const pending = headScores(later, { count: 2 });
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual(headScores(model, { count: 2 }));
  });

  it('gives an induction head alone (nothing writes the previous token) no label', () => {
    const scores = headScores(constructedModel(['self', 'induction']), { count: 4 });
    expect(label(scores, 1)).toBe(null);
  });
});

describe('ablation', () => {
  // a repeated random sequence: the second copy is predictable only through the induction pair
  const first = Array.from({ length: 12 }, (_, i) => (i * 7 + 3) % V);
  const tokens = [V - 1, ...first, ...first]; // V − 1: a first token outside the pattern

  it('switching the induction head off changes the forward, and every head off equals zeroing the layer', () => {
    const model = constructedModel(['previous', 'induction']);
    const on = model.forward(tokens);
    const off = model.forward(tokens, { headsOff: [[1, 0]] });
    expect(off.logits.data).not.toEqual(on.logits.data);
    // every head of layer 1 off = the model whose layer-1 out_proj is zero (its bias belongs to no head)
    const without = constructedModel(['previous', 'induction']);
    without.parameters['blocks.1.out_proj.weight'].data.fill(0);
    expect(Array.from(off.logits.data)).toEqual(Array.from(without.forward(tokens).logits.data));
  });

  it('ablate reports the loss and top-5 before and after, and rejects a head that does not exist', () => {
    const model = constructedModel(['previous', 'induction']);
    const result = ablate(model, tokens, [[0, 0]], { from: 14 });
    expect(result.before.top).toHaveLength(5);
    expect(result.after.top[0].probability).toBeLessThanOrEqual(1);
    expect(result.before.loss).toBeCloseTo(sequenceLoss(model, tokens, { from: 14 }).loss, 12);
    // the induction head predicts the second copy: switched off, the loss there goes up
    const induction = ablate(model, tokens, [[1, 0]], { from: 14 });
    expect(induction.before.loss).toBeLessThan(0.01);
    expect(induction.after.loss).toBeGreaterThan(induction.before.loss + 2);
    expect(() => ablate(model, tokens, [[2, 0]])).toThrow('ablate: options.headsOff[0] is [2,0]; expected [layer, head] with layer 0 to 1 and head 0 to 0');
    expect(() => model.forward(tokens, { ablation: 'half' })).toThrow("model.forward: options.ablation='half'; expected 'zero' or 'mean'");
    expect(() => model.forward(new Array(T + 1).fill(0))).toThrow("model.forward: tokens has 65 ids; expected 1 to 64 (the model's contextLength)");
  });

  it("'mean' replaces a head's output by its mean over the positions", () => {
    const model = constructedModel(['previous', 'induction']);
    const mean = model.forward(tokens, { headsOff: [[0, 0]], ablation: 'mean', intermediates: true });
    const context = mean.layers[0].context.data;
    const D = model.config.dModel;
    for (let t = 1; t < tokens.length; t++) expect(context[t * D + 3]).toBeCloseTo(context[3], 6);
  });
});

describe('the byte-level BPE tokenizer', () => {
  const tokenizer = createTokenizer({ merges: [[32, 116], [256, 104], [257, 101], [101, 114]] }); // ' t', ' th', ' the', 'er'
  it('encodes with the merges in the order learned and decodes back', () => {
    const ids = tokenizer.encode('the other there');
    expect(Array.from(ids, (id) => tokenizer.tokenText(id))).toEqual(['t', 'h', 'e', ' o', 't', 'h', 'er', ' the', 'r', 'e'].flatMap((s) => (s === ' o' ? [' ', 'o'] : [s])));
    expect(tokenizer.decode(ids)).toBe('the other there');
  });
  it('round-trips arbitrary Unicode text', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (text) => tokenizer.decode(tokenizer.encode(text)) === text), { numRuns: 300 });
    for (const text of ['naïve café — 日本語 🙂👩🏽‍💻', '\u0000\t\r\n  ', 'Ω≈ç√∫˜µ≤≥÷']) expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
  });
});

describe('float16 safetensors', () => {
  it('stores F16 rounded to nearest even and restores it exactly as float32', async () => {
    const { encodeSafetensors, decodeSafetensors, roundToFloat16 } = await import('../../web/src/train/index.js');
    const values = Float32Array.of(0, -2, 0.1, 65504, 70000, 6e-8, 1.00146484375, -1 / 3);
    const { tensors } = decodeSafetensors(encodeSafetensors({ w: { data: values, shape: [8], dtype: 'F16' } }));
    expect(Array.from(tensors.w.data)).toEqual([0, -2, 0.0999755859375, 65504, Infinity, 5.960464477539063e-8, 1.001953125, -0.333251953125]);
    expect(Array.from(values, roundToFloat16)).toEqual(Array.from(tensors.w.data));
  });
});
