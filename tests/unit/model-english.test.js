// The shipped English model (docs/model.md): the stored float16 weights load, reproduce the training script's
// figure on the held-out excerpt, beat the bigram baseline, and give the head scores the docs list.
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ENGLISH_MODEL_URL, headScores, loadEnglishModel, sequenceLoss, textLoss } from '../../web/src/model/index.js';

/** The margin, in nats per token, by which docs/model.md says the model beats the Kneser-Ney bigram. */
const BIGRAM_MARGIN = 0.5;
/** docs/model.md's table: [layer, head, previousToken, induction, sink, self, entropy], 0-based, on headScores' probes. */
const DOCUMENTED_SCORES = [
  [0, 0, 0.208, 0.001, 0.038, 0.149, 1.87], [0, 1, 0.175, 0.004, 0.046, 0.11, 2.08],
  [0, 2, 0.199, 0.002, 0.037, 0.141, 1.97], [0, 3, 0.176, 0.003, 0.047, 0.118, 2.01],
  [1, 0, 0.081, 0.017, 0.064, 0.104, 2.72], [1, 1, 0.161, 0.001, 0.036, 0.153, 2.02],
  [1, 2, 0.071, 0.018, 0.063, 0.081, 2.84], [1, 3, 0.133, 0.004, 0.046, 0.113, 2.28],
];

let model;
beforeAll(async () => { model = await loadEnglishModel(); });

describe('the shipped English model', () => {
  it('is at most 3 MB and loads as the model interface', () => {
    expect(statSync(fileURLToPath(ENGLISH_MODEL_URL)).size).toBeLessThanOrEqual(3e6);
    expect(model.config).toMatchObject({ vocabSize: 1024, ...model.recipe.model });
    expect(model.config).toMatchObject({ dModel: 128, heads: 4, layers: 2, layerNorm: true });
    expect(model.tokenizer.vocabSize).toBe(1024);
  });

  it("reproduces the script's held-out loss on the stored weights (±1e-4)", () => {
    const { loss, count } = textLoss(model, model.tokenizer.encode(model.sample));
    expect(count).toBe(model.figures.sample.count);
    expect(Math.abs(loss - model.figures.sample.loss)).toBeLessThanOrEqual(1e-4);
  });

  it('beats the unigram and the Kneser-Ney bigram on the held-out books by the stated margin', () => {
    const { test, bigram, unigram } = model.figures;
    expect(test.loss).toBeLessThan(bigram.loss - BIGRAM_MARGIN);
    expect(bigram.loss).toBeLessThan(unigram.loss);
    expect(test.bitsPerChar).toBeLessThan(bigram.bitsPerChar);
  });

  it("gives every head the scores docs/model.md lists (and so the labels it states)", () => {
    const { heads } = headScores(model);
    expect(heads.map((h) => [h.layer, h.head, ...['previousToken', 'induction', 'sink', 'self'].map((k) => Number(h[k].toFixed(3))), Number(h.entropy.toFixed(2))])).toEqual(DOCUMENTED_SCORES);
    expect(heads.map((h) => h.label)).toEqual(DOCUMENTED_SCORES.map(() => null));
  });

  it('needs its heads: switching a layer\'s heads off raises the held-out excerpt\'s loss', () => {
    const tokens = model.tokenizer.encode(model.sample).slice(0, 128);
    const on = sequenceLoss(model, tokens).loss;
    for (const layer of [0, 1]) {
      const off = sequenceLoss(model, tokens, { headsOff: [0, 1, 2, 3].map((h) => [layer, h]) }).loss;
      expect(off).toBeGreaterThan(on + 0.3);
    }
  });

  it("every head of a layer off equals the model whose layer's out_proj.weight is zero", () => {
    const tokens = model.tokenizer.encode('Your journey starts with one step, and then another step.');
    const off = model.forward(tokens, { headsOff: [0, 1, 2, 3].map((h) => [1, h]) });
    const weight = model.parameters['blocks.1.out_proj.weight'].data;
    const saved = weight.slice();
    weight.fill(0);
    try {
      expect(Array.from(off.logits.data)).toEqual(Array.from(model.forward(tokens).logits.data));
    } finally {
      weight.set(saved);
    }
  });

  it('its tokenizer round-trips arbitrary Unicode text', () => {
    const { tokenizer } = model;
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (text) => tokenizer.decode(tokenizer.encode(text)) === text), { numRuns: 200 });
    fc.assert(fc.property(fc.string({ unit: 'binary-ascii', maxLength: 80 }), (text) => tokenizer.decode(tokenizer.encode(text)) === text), { numRuns: 100 });
  });
});
