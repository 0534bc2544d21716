// One training session, the same code in the Web Worker (train-worker.js) and, where workers cannot start,
// on the page itself (runner.js). It owns the trainer of docs/api.md "Training" and answers messages:
//   init {config}        → a new trainer from config.seed (its initial state kept for reset)
//   steps {count, view}  → `count` AdamW steps on makeBatch(task, {seed, step: trainer.steps}) (the English
//                          tasks: textTask's batch at that step), their losses
//   snapshot {view}      → what the page draws: held-out loss, attention, weights, gradients, predictions
//   reset                → back to the initial weights (the same ones: the saved step-0 file)
//   backend {backend}    → the same run (parameters, AdamW state, step) on another backend (the header's choice)
//   save                 → trainer.save()'s bytes;  load {bytes} → the trainer in the file
// Batches depend only on (task, seed, step), so pausing, stepping and resetting reproduce the same losses.
import { createTrainer, loadTrainer, makeBatch } from '../../train/index.js';
import { createAttentionOnlyModel } from '../../model/model.js';
import { headScores } from '../../model/head-scores.js';
import { batchLoss } from '../../model/predictions.js';
import { loadEnglishModel } from '../../model/english.js';
import { textTask } from '../../model/text-task.js';

import { HELD_OUT_BATCH, HELD_OUT_STEP, isEnglishTask } from './config.js';

// The induction task repeats its pattern at random offsets, so only an induction head solves it (docs/api.md "Tasks").
function batchOptions(config, batch, step) {
  return { batch, contextLength: config.context, vocabSize: config.vocabSize, seed: config.seed, step, text: config.text, randomOffset: config.task === 'induction' };
}

// The English tasks' model is 100 times the synthetic ones' (2 × 4 heads of d 128, T 64, V 1024): its heads are
// scored on 4 probes (not 8) every ENGLISH_SCORE_EVERY steps, so labelling costs a small share of the run.
const ENGLISH_SCORE_EVERY = 32;
const ENGLISH_PROBES = 4;

/** Every head's scores and label (headScores on its documented probes) for the trainer's current weights. */
function labelledHeads(trainer, options) {
  const model = createAttentionOnlyModel({ config: trainer.config, parameters: trainer.parameters() });
  const { heads, thresholds } = headScores(model, options);
  return { step: trainer.steps, heads: heads.map(({ layer, head, previousToken, induction, sink, self, entropy, label }) => ({ layer, head, previousToken, induction, sink, self, entropy, label })), thresholds };
}

/**
 * The English tasks (docs/page.md "The Training tab"): the shipped model's architecture on its held-out excerpt
 * ('english') or the learner's text ('english-text'), in its BPE tokens; from its weights (start 'shipped') or the seed.
 */
async function englishSetup(config) {
  const model = await loadEnglishModel();
  const text = config.task === 'english' ? model.sample : config.text;
  const task = textTask(model.tokenizer.encode(text), { contextLength: model.config.contextLength });
  const { vocabSize, contextLength, dModel, heads, layers, layerNorm } = model.config;
  const vocabulary = Array.from({ length: vocabSize }, (_, id) => model.tokenizer.tokenText(id));
  return {
    task, parameters: config.start === 'scratch' ? undefined : model.parameters,
    config: { ...config, vocabSize, context: contextLength, dModel, heads, layers, layerNorm, vocabulary, trainTokens: task.train.length, heldOutTokens: task.heldOut.length },
  };
}

function topGuesses(logits, V, index, k = 3) {
  const row = logits.subarray(index * V, (index + 1) * V);
  let max = -Infinity;
  for (const v of row) if (v > max) max = v;
  let sum = 0;
  for (const v of row) sum += Math.exp(v - max);
  const order = Array.from(row.keys()).sort((a, b) => row[b] - row[a]).slice(0, k);
  return order.map((token) => ({ token, p: Math.exp(row[token] - max) / sum }));
}

/** @param {{wasmBinary?: Uint8Array}} engineOptions given to the trainer (the single-file page's WASM bytes) */
export function createSession(engineOptions = {}) {
  let trainer = null;
  let config = null;
  let initial = null;
  let held = null;
  let english = null; // the English tasks' textTask, or null
  let scored = null; // the English tasks' last head labels (they are scored every ENGLISH_SCORE_EVERY steps)
  const nextBatch = (batch, step) => (english ? english.batch({ batch, seed: config.seed, step }) : makeBatch(config.task, batchOptions(config, batch, step)));

  async function snapshot({ layer = 0, predictions = 2, weights = true, headsOff = [] } = {}, fresh = true) {
    const { loss, accuracy } = await trainer.evaluate(held);
    const attention = await trainer.attention(held.inputs);
    const [B, H, T] = attention[0].shape;
    const result = {
      step: trainer.steps, evalLoss: loss, evalAccuracy: accuracy, heads: H, T,
      // The first held-out sequence's weights, (H, T, T) per layer.
      attention: attention.map((w) => w.data.slice(0, H * T * T)),
      induction: null,
    };
    if (config.context >= 9) {
      // every head's scores and label on the documented probes; per layer, the induction scores for its table
      if (english && (!scored || trainer.steps < scored.step || trainer.steps - scored.step >= ENGLISH_SCORE_EVERY || fresh || trainer.steps >= config.steps)) {
        scored = labelledHeads(trainer, { count: ENGLISH_PROBES });
      }
      const labelled = english ? scored : labelledHeads(trainer);
      result.headScores = labelled.heads;
      result.thresholds = labelled.thresholds;
      result.headScoresStep = labelled.step;
      if (config.task === 'induction') result.induction = Array.from({ length: config.layers }, (_, l) => labelled.heads.filter((h) => h.layer === l).map((h) => h.induction));
    }
    // Heads switched off (0-based [layer, head]): the held-out loss with every head on and with those off
    const off = headsOff.filter(([l, h]) => l < config.layers && h < config.heads);
    if (off.length) {
      const model = createAttentionOnlyModel({ config: trainer.config, parameters: trainer.parameters() });
      result.ablation = { headsOff: off, before: batchLoss(model, held), after: batchLoss(model, held, { headsOff: off }) };
    }
    if (weights) {
      const l = Math.min(layer, config.layers - 1);
      const params = trainer.parameters();
      const grads = trainer.gradients();
      result.layer = l;
      result.weights = ['q_proj', 'k_proj', 'v_proj'].map((name) => {
        const key = `blocks.${l}.${name}.weight`;
        return { name, weight: params[key], grad: grads ? grads[key] : null };
      });
    }
    if (predictions > 0) {
      const logits = await trainer.predict(held.inputs);
      const V = config.vocabSize;
      result.predictions = Array.from({ length: Math.min(predictions, B) }, (_, b) => Array.from({ length: T }, (_, t) => ({
        input: held.inputs.data[b * T + t], target: held.targets.data[b * T + t], guesses: topGuesses(logits.data, V, b * T + t),
      })));
    }
    return result;
  }

  let fallback = null; // why the page's backend choice could not run here, when it could not
  function info() {
    return { backend: trainer.backend, backendReason: trainer.backendReason, requested: config.backend ?? 'auto', fallback, threads: trainer.threads, step: trainer.steps, config };
  }

  // The page's backend choice (config.backend, the header's select): one that cannot load here (no WebGPU
  // adapter, d_head beyond its kernels) trains on 'auto' instead, and the reply says why.
  async function withBackend(make) {
    const wanted = config.backend ?? 'auto';
    fallback = null;
    try {
      return await make(wanted);
    } catch (error) {
      if (wanted === 'auto') throw error;
      fallback = error.message;
      return make('auto');
    }
  }

  async function init(newConfig, bytes = null) {
    trainer?.dispose();
    config = newConfig;
    english = null;
    scored = null;
    let parameters;
    if (isEnglishTask(config.task)) {
      const setup = await englishSetup(config);
      ({ config } = setup);
      english = setup.task;
      parameters = setup.parameters;
    }
    if (bytes) {
      trainer = await withBackend((backend) => loadTrainer(bytes, { backend, ...engineOptions }));
    } else {
      trainer = await withBackend((backend) => createTrainer({
        vocabSize: config.vocabSize, contextLength: config.context, dModel: config.dModel, heads: config.heads,
        layers: config.layers, layerNorm: config.layerNorm ?? false, seed: config.seed, parameters, backend, ...engineOptions,
        optimizer: { name: 'adamw', lr: config.lr, weightDecay: config.wd },
      }));
      initial = trainer.save();
    }
    held = english ? english.heldOutBatch() : makeBatch(config.task, batchOptions(config, HELD_OUT_BATCH, HELD_OUT_STEP));
  }

  /** Answers one message; the reply is structured-clone safe. */
  async function handle(message) {
    switch (message.type) {
      case 'init':
        await init(message.config);
        return { ...info(), snapshot: await snapshot(message.view) };
      case 'load': {
        // The file fixes the model; the task, text and batch stay the page's (the vocabulary must match).
        const probe = await loadTrainer(message.bytes, { backend: 'js' });
        const c = probe.config;
        probe.dispose();
        const next = { ...message.config, layers: c.layers, heads: c.heads, dModel: c.dModel, context: c.contextLength, seed: c.seed, lr: c.optimizer.lr, wd: c.optimizer.weightDecay };
        if (c.vocabSize !== next.vocabSize) throw new Error(`the file's model has ${c.vocabSize} tokens; the task '${next.task}' has ${next.vocabSize}`);
        await init(next, message.bytes);
        // Reset goes back to the initial weights of the same model: the seed's, or the shipped model's.
        const shipped = english && config.start !== 'scratch' ? (await loadEnglishModel()).parameters : undefined;
        const fresh = await createTrainer({ vocabSize: c.vocabSize, contextLength: c.contextLength, dModel: c.dModel, heads: c.heads, layers: c.layers, layerNorm: c.layerNorm, seed: c.seed, parameters: shipped, backend: 'js', optimizer: c.optimizer });
        initial = fresh.save();
        fresh.dispose();
        return { ...info(), snapshot: await snapshot(message.view) };
      }
      case 'reset':
        trainer.dispose();
        trainer = await withBackend((backend) => loadTrainer(initial, { backend, ...engineOptions }));
        return { ...info(), snapshot: await snapshot(message.view) };
      case 'backend': {
        // The run goes on from where it is (parameters, AdamW state, step) on the newly chosen backend.
        const bytes = trainer.save();
        trainer.dispose();
        config = { ...config, backend: message.backend };
        trainer = await withBackend((backend) => loadTrainer(bytes, { backend, ...engineOptions }));
        return { ...info(), snapshot: await snapshot(message.view) };
      }
      case 'steps': {
        const first = trainer.steps;
        const losses = [];
        const started = performance.now();
        for (let i = 0; i < message.count; i++) {
          const { loss } = await trainer.step(nextBatch(config.batch, trainer.steps));
          losses.push(loss);
        }
        const ms = performance.now() - started;
        return { first, losses, ms, step: trainer.steps, snapshot: message.view ? await snapshot(message.view, false) : null };
      }
      case 'snapshot':
        return { snapshot: await snapshot(message.view) };
      case 'save':
        return { bytes: trainer.save(), step: trainer.steps };
      case 'evaluate':
        return { step: trainer.steps, ...(await trainer.evaluate(held)) };
      default:
        throw new Error(`training session: unknown message type ${JSON.stringify(message.type)}`);
    }
  }
  return { handle };
}
