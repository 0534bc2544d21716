// Trains the shipped English model (docs/model.md): an attention-only transformer, with the project's own
// trainer, on the World English Bible (Debian package sword-text-web, public domain). Whole books are held out:
// a validation set tunes the baselines, a test set gives the figures. Writes web/src/model/english.safetensors
// (float16 weights, the tokenizer's merges, the figures) and prints a report.
//   nice node scripts/train-model.mjs [--steps N] [--out FILE] [--check]
// Seeded: the same seed and WASM build give the same weights and figures, bit for bit; --check trains into a
// temporary file and compares its tensors and metadata (all but the timings) with the shipped file.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { loadDocuments, PACKAGE } from './model/web-corpus.mjs';
import { trainBpe } from './model/bpe-train.mjs';
import { baselines } from './model/baselines.mjs';
import { createTrainer } from '../web/src/train/index.js';
import { batchRandom } from '../web/src/train/tasks.js';
import { decodeSafetensors, encodeSafetensors, roundToFloat16 } from '../web/src/train/safetensors.js';
import { createTokenizer } from '../web/src/model/tokenizer.js';
import { createAttentionOnlyModel } from '../web/src/model/model.js';
import { textLoss } from '../web/src/model/predictions.js';
import { headScores } from '../web/src/model/head-scores.js';
import { MODEL_META_KEY } from '../web/src/model/english.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);

export const RECIPE = {
  seed: 1,
  vocabSize: 1024, // 256 bytes + 768 merges
  model: { contextLength: 64, dModel: 128, heads: 4, layers: 2, layerNorm: true },
  batch: 32,
  steps: Number(arg('--steps', 5000)),
  lr: 3e-3, warmup: 100, finalLr: 3e-4, weightDecay: 0.01, gradClip: 1,
  randomShare: 0.25, // of each batch's rows are random tokens with a span repeated (below)
  randomSpan: [8, 32], // the repeated span's length in tokens, uniform between the two
  repeatShare: 1, // of the other rows (text) copy a span of their own text later in the row (below)
  split: { validation: 5, test: 8 }, // document i is validation when i % 10 is 5, test when 8
};
const shipped = join(root, 'web/src/model/english.safetensors');
const check = args.includes('--check');
const out = check ? join(mkdtempSync(join(tmpdir(), 'train-model-')), 'english.safetensors') : arg('--out', shipped);
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(0);

// 1. The corpus, split by whole documents (books).
const documents = loadDocuments(join(root, 'build/corpus'));
const part = (i) => (i % 10 === RECIPE.split.validation ? 'validation' : i % 10 === RECIPE.split.test ? 'test' : 'train');
const split = { train: [], validation: [], test: [] };
documents.forEach((doc, i) => split[part(i)].push(doc));
const words = (docs) => docs.reduce((n, d) => n + d.text.split(/\s+/).length, 0);
const chars = (docs) => docs.reduce((n, d) => n + [...d.text].length, 0);
console.log(`corpus: ${documents.length} documents, ${words(documents)} words; train ${split.train.length} (${words(split.train)} words), validation ${split.validation.length}, test ${split.test.length} (${split.test.map((d) => d.name).join('; ')})`);

// 2. The tokenizer, learned from the training documents only.
const merges = trainBpe(split.train.map((d) => d.text), RECIPE.vocabSize);
const tokenizer = createTokenizer({ merges });
const encoded = Object.fromEntries(Object.entries(split).map(([k, docs]) => [k, docs.map((d) => tokenizer.encode(d.text))]));
const tokenCount = (k) => encoded[k].reduce((n, ids) => n + ids.length, 0);
console.log(`tokenizer: ${tokenizer.vocabSize} tokens; train ${tokenCount('train')} tokens, validation ${tokenCount('validation')}, test ${tokenCount('test')} (${seconds()} s)`);

// 3. The baselines, tuned on validation, scored on test.
const base = baselines(encoded.train, encoded.validation, encoded.test, RECIPE.vocabSize);
console.log(`unigram (α=${base.unigram.alpha}): ${base.unigram.loss.toFixed(4)} nats/token; bigram (Kneser-Ney, D=${base.bigram.discount}): ${base.bigram.loss.toFixed(4)}`);

// 4. Training. A row is one of two kinds. A text row is a window of T + 1 tokens at a random place of a training
// document (documents drawn in proportion to their length); in repeatShare of them a span of 16 to T/2 tokens is
// copied to a later place of the same row, as names and phrases recur in long texts: it lets the induction heads
// form within the budget. A random row (randomShare of the rows) is T + 1 tokens drawn uniformly from the whole
// vocabulary with a span of randomSpan tokens copied to a later place, and only the copy's tokens are targets:
// there no bigram statistic can stand in for the previous token, so layer 1 grows an exact previous-token head.
const { contextLength: T } = RECIPE.model;
const trainDocs = encoded.train.filter((ids) => ids.length > T + 1);
const cumulative = [];
trainDocs.reduce((n, ids, i) => (cumulative[i] = n + ids.length - T - 1), 0);
const positions = cumulative[cumulative.length - 1];
const IGNORE = -100; // the trainer's ignored target
/** Copies a span of n tokens of row to a random later place that does not overlap it; returns where it went. */
function copySpan(row, n, uniform) {
  const from = uniform(T + 1 - 2 * n);
  const to = from + n + uniform(T + 1 - 2 * n - from + 1);
  row.copyWithin(to, from, from + n);
  return to;
}
function trainingBatch(step) {
  const next = batchRandom(RECIPE.seed, step);
  const uniform = (n) => Math.floor(next() * n);
  const B = RECIPE.batch;
  const inputs = new Int32Array(B * T);
  const targets = new Int32Array(B * T);
  const row = new Int32Array(T + 1);
  for (let b = 0; b < B; b++) {
    const target = targets.subarray(b * T, (b + 1) * T);
    if (next() < RECIPE.randomShare) {
      for (let t = 0; t <= T; t++) row[t] = uniform(RECIPE.vocabSize);
      const [shortest, longest] = RECIPE.randomSpan;
      const n = shortest + uniform(longest - shortest + 1);
      const to = copySpan(row, n, uniform);
      // input t predicts row[t + 1]: predictable from the first copy when both sit in the second
      target.fill(IGNORE);
      target.set(row.subarray(to + 1, to + n), to);
      inputs.set(row.subarray(0, T), b * T);
      continue;
    }
    let at = uniform(positions);
    const doc = cumulative.findIndex((c) => at < c);
    at -= doc ? cumulative[doc - 1] : 0;
    row.set(trainDocs[doc].subarray(at, at + T + 1));
    if (next() < RECIPE.repeatShare) copySpan(row, 16 + uniform(T / 2 - 16 + 1), uniform);
    inputs.set(row.subarray(0, T), b * T);
    target.set(row.subarray(1));
  }
  return { inputs: { data: inputs, shape: [B, T] }, targets: { data: targets, shape: [B, T] } };
}

/** Windows of T + 1 tokens overlapping by one over each document, every token but a document's first a target. */
function windows(docs) {
  const list = [];
  for (const ids of docs) for (let s = 0; s + 1 < ids.length; s += T) list.push(ids.subarray(s, Math.min(ids.length, s + T + 1)));
  return list;
}
/** Mean loss over the windows on the trainer (WASM), batched by window length. */
async function heldOutLoss(trainer, list) {
  let sum = 0;
  let count = 0;
  const byLength = new Map();
  for (const w of list) byLength.set(w.length, [...(byLength.get(w.length) ?? []), w]);
  for (const [length, group] of byLength) {
    for (let i = 0; i < group.length; i += 32) {
      const chunk = group.slice(i, i + 32);
      const L = length - 1;
      const inputs = new Int32Array(chunk.length * L);
      const targets = new Int32Array(chunk.length * L);
      chunk.forEach((w, b) => { inputs.set(w.subarray(0, L), b * L); targets.set(w.subarray(1), b * L); });
      const { loss } = await trainer.evaluate({ inputs: { data: inputs, shape: [chunk.length, L] }, targets: { data: targets, shape: [chunk.length, L] } });
      sum += loss * chunk.length * L;
      count += chunk.length * L;
    }
  }
  return { loss: sum / count, count };
}

const trainer = await createTrainer({
  vocabSize: RECIPE.vocabSize, ...RECIPE.model, seed: RECIPE.seed, backend: 'wasm', gradClip: RECIPE.gradClip,
  optimizer: { name: 'adamw', lr: RECIPE.lr, weightDecay: RECIPE.weightDecay },
});
const validationWindows = windows(encoded.validation);
const probeWindows = validationWindows.filter((w) => w.length === T + 1).filter((_, i) => i % 16 === 0);
const trainStarted = performance.now();
const cpuStarted = process.cpuUsage();
let recent = 0;
let since = 0;
const curve = [];
for (let step = 0; step < RECIPE.steps; step++) {
  const progress = step < RECIPE.warmup ? (step + 1) / RECIPE.warmup : 1;
  const decay = 0.5 * (1 + Math.cos(Math.PI * Math.min(1, step / RECIPE.steps)));
  trainer.setLearningRate(progress * (RECIPE.finalLr + (RECIPE.lr - RECIPE.finalLr) * decay));
  const { loss } = await trainer.step(trainingBatch(step));
  recent += loss;
  since++;
  if ((step + 1) % 250 === 0 || step + 1 === RECIPE.steps) {
    const validation = await heldOutLoss(trainer, probeWindows);
    // the circuit as it forms: layer 1's best previous-token score and the best induction score of the last layer
    const probe = createAttentionOnlyModel({ name: 'probe', config: trainer.config, parameters: trainer.parameters() });
    const scores = headScores(probe, { seed: 0 }).heads;
    const best = (layer, key) => Math.max(...scores.filter((h) => h.layer === layer).map((h) => h[key]));
    const circuit = { previousToken: best(0, 'previousToken'), induction: best(RECIPE.model.layers - 1, 'induction') };
    curve.push({ step: step + 1, train: recent / since, validation: validation.loss, ...circuit });
    const rate = (step + 1) / ((performance.now() - trainStarted) / 1000);
    console.log(`step ${step + 1}: train ${(recent / since).toFixed(4)}, validation ${validation.loss.toFixed(4)}, layer 1 previous token ${circuit.previousToken.toFixed(3)}, induction ${circuit.induction.toFixed(3)} (${rate.toFixed(2)} steps/s, ${seconds()} s)`);
    recent = 0;
    since = 0;
  }
}
const trainSeconds = (performance.now() - trainStarted) / 1000;
// CPU time of this process: what the wall time would be on an idle machine (the trainer runs on one thread)
const { user, system } = process.cpuUsage(cpuStarted);
const trainCpuSeconds = (user + system) / 1e6;

// 5. The stored weights are float16: round, and measure what ships.
const parameters = trainer.parameters();
for (const t of Object.values(parameters)) t.data = Float32Array.from(t.data, roundToFloat16);
trainer.setParameters(parameters);
const test = await heldOutLoss(trainer, windows(encoded.test));
const validation = await heldOutLoss(trainer, validationWindows);
const testChars = chars(split.test);
const bpc = (loss, count) => (loss * count) / Math.LN2 / testChars;
// The sample the tests reproduce: the opening of the first test document, its loss by the JS forward.
const model = createAttentionOnlyModel({ name: 'english', tokenizer, config: trainer.config, parameters });
const sampleText = split.test[0].text.slice(0, 1500);
const sample = { text: sampleText, ...textLoss(model, tokenizer.encode(sampleText)) };
const heads = headScores(model, { seed: 0 });

const figures = {
  corpus: { package: PACKAGE, documents: documents.length, words: words(documents), trainWords: words(split.train), testDocuments: split.test.map((d) => d.name), testChars, testTokens: test.count },
  test: { loss: test.loss, bitsPerChar: bpc(test.loss, test.count) },
  validation: { loss: validation.loss },
  unigram: { ...base.unigram, bitsPerChar: bpc(base.unigram.loss, base.unigram.count) },
  bigram: { ...base.bigram, bitsPerChar: bpc(base.bigram.loss, base.bigram.count) },
  sample: { loss: sample.loss, count: sample.count },
  training: { steps: RECIPE.steps, seconds: trainSeconds, cpuSeconds: trainCpuSeconds, tokens: RECIPE.steps * RECIPE.batch * T, curve },
};
const { seed, ...config } = trainer.config;
const tensors = Object.fromEntries(Object.entries(parameters).map(([name, t]) => [name, { ...t, dtype: 'F16' }]));
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, encodeSafetensors(tensors, {
  format: 'pt',
  [MODEL_META_KEY]: JSON.stringify({ version: 1, name: 'english', config: { ...config, seed }, recipe: RECIPE, tokenizer: { kind: 'byte-bpe', merges }, sample: sampleText, figures }),
}));
trainer.dispose();
console.log(JSON.stringify(figures, null, 1));
console.log(heads.heads.map((h) => `layer ${h.layer + 1} head ${h.head + 1}: ${h.label ?? '—'} (prev ${h.previousToken.toFixed(2)}, induction ${h.induction.toFixed(2)}, sink ${h.sink.toFixed(2)}, self ${h.self.toFixed(2)}, entropy ${h.entropy.toFixed(2)})`).join('\n'));
if (check) {
  // the timings differ from run to run; everything else must not
  const read = (file) => {
    const { tensors, metadata } = decodeSafetensors(new Uint8Array(readFileSync(file)), 'train-model --check');
    const meta = JSON.parse(metadata[MODEL_META_KEY]);
    delete meta.figures.training.seconds;
    delete meta.figures.training.cpuSeconds;
    return { tensors, meta: JSON.stringify(meta) };
  };
  const [a, b] = [read(out), read(shipped)];
  const differing = Object.keys(b.tensors).filter((name) => !a.tensors[name] || a.tensors[name].data.some((v, i) => !Object.is(v, b.tensors[name].data[i])));
  if (differing.length || a.meta !== b.meta) {
    console.error(`train-model --check: the run differs from ${shipped}: ${differing.length ? `tensors ${differing.join(', ')}` : 'the metadata'}`);
    process.exit(1);
  }
  console.log(`train-model --check: ${out} has the shipped file's tensors and figures`);
}
console.log(`test: ${test.loss.toFixed(4)} nats/token, ${figures.test.bitsPerChar.toFixed(4)} bits/char; bigram ${base.bigram.loss.toFixed(4)}, unigram ${base.unigram.loss.toFixed(4)}; training ${trainSeconds.toFixed(0)} s (${trainCpuSeconds.toFixed(0)} s of CPU), all ${seconds()} s; wrote ${out}`);
