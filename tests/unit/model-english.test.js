// The shipped English model (docs/model.md): the stored float16 weights load, reproduce the training script's
// figure on the held-out excerpt, beat the bigram baseline, and give the head scores and labels the docs list.
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ENGLISH_MODEL_URL, headScores, loadEnglishModel, sequenceLoss, textLoss } from '../../web/src/model/index.js';
import { mulberry32 } from '../../web/src/core/random.js';

/** The margin, in nats per token, by which docs/model.md says the model beats the Kneser-Ney bigram. */
const BIGRAM_MARGIN = 0.25;
/** docs/model.md's table: [layer, head, previousToken, induction, sink, self, entropy], 0-based, on headScores' probes. */
const DOCUMENTED_SCORES = [
  [0, 0, 0.2, 0.002, 0.035, 0.128, 2], [0, 1, 0.196, 0.011, 0.007, 0.316, 1.89],
  [0, 2, 0.099, 0.009, 0.003, 0.546, 1.41], [0, 3, 0.869, 0.001, 0.017, 0.022, 0.54],
  [1, 0, 0.032, 0.944, 0.335, 0.025, 0.97], [1, 1, 0.05, 0.795, 0.151, 0.107, 1.56],
  [1, 2, 0.035, 0.938, 0.289, 0.029, 1.14], [1, 3, 0.059, 0.021, 0.031, 0.28, 2.46],
];
/** docs/model.md's labels, in the same order. */
const DOCUMENTED_LABELS = [null, null, 'self', 'previous token', 'induction', 'induction', 'induction', null];

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

  it("gives every head the scores and labels docs/model.md lists: a previous-token head in layer 1, three induction heads in layer 2", () => {
    const { heads } = headScores(model);
    expect(heads.map((h) => [h.layer, h.head, ...['previousToken', 'induction', 'sink', 'self'].map((k) => Number(h[k].toFixed(3))), Number(h.entropy.toFixed(2))])).toEqual(DOCUMENTED_SCORES);
    expect(heads.map((h) => h.label)).toEqual(DOCUMENTED_LABELS);
    expect(heads.filter((h) => h.layer === 0 && h.labels.includes('previous token'))).toHaveLength(1);
    expect(heads.filter((h) => h.layer === 1 && h.labels.includes('induction'))).toHaveLength(3);
  });

  it('switching its induction heads, or the previous-token head, off sends the loss on the second copy of a repeated random sequence up', () => {
    const { heads } = headScores(model);
    const labelled = (label) => heads.filter((h) => h.labels.includes(label)).map((h) => [h.layer, h.head]);
    const induction = labelled('induction');
    const next = mulberry32(7);
    const half = Array.from({ length: 24 }, () => Math.floor(next() * model.config.vocabSize));
    const tokens = [...half, ...half];
    const on = sequenceLoss(model, tokens, { from: 25 }).loss;
    const off = sequenceLoss(model, tokens, { from: 25, headsOff: induction }).loss;
    expect(off).toBeGreaterThan(on + 2);
    // and so does switching off the layer-1 previous-token head that feeds them
    expect(sequenceLoss(model, tokens, { from: 25, headsOff: labelled('previous token') }).loss).toBeGreaterThan(on + 2);
  });

  it('needs its first layer: switching its heads off raises the held-out excerpt\'s loss', () => {
    const tokens = model.tokenizer.encode(model.sample).slice(0, 64);
    const on = sequenceLoss(model, tokens).loss;
    const off = sequenceLoss(model, tokens, { headsOff: [0, 1, 2, 3].map((h) => [0, h]) }).loss;
    expect(off).toBeGreaterThan(on + 0.5);
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
