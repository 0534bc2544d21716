// The benchmark's training section: steps/s and tokens/s of our trainer (createTrainer, docs/api.md
// "Training") against TensorFlow.js (wasm backend, threads off) on the issue's AttentionOnly model, LayerNorm
// off, in this page. PyTorch's row comes from bench/train_torch.py, which bench/run.mjs runs beside the page
// (trainingPlan() below is what it is given, so that every contestant starts from the same parameters).
//
// Every contestant gets the same initial parameters (initParameters(config, SEED), docs/api.md "The model"),
// the same batches (makeBatch('induction', {seed: SEED, step: s})) and the same AdamW settings. Its first
// step is the check: its loss must equal ours within LOSS_RTOL (relative) before any time counts; a
// contestant that disagrees is reported 'wrong', never timed. Then warm-up steps, then timed steps.
import { loadTf } from './contestants/tfjs.js';
import { emulatedSuffix, isolatedTensorFlow, requireAdapter } from './webgpu-contestants.js';
import { createTrainer, initParameters, makeBatch, parameterSpec, OPTIMIZER_DEFAULTS } from '../web/src/train/index.js';

export const SEED = 1;
/** AdamW as torch.optim.AdamW with the trainer's defaults; every contestant uses exactly these. */
export const OPTIMIZER = { ...OPTIMIZER_DEFAULTS };
export const LOSS_RTOL = 1e-4;

/**
 * The issue's two sizes. warmup / steps: warm-up and timed steps per contestant; the slow ones (tfjs at
 * small takes ~8 s a step) get `slowSteps` timed steps after one warm-up step.
 */
export const TRAINING_SIZES = {
  tiny: { vocabSize: 32, contextLength: 32, dModel: 64, heads: 4, layers: 2, batch: 32, warmup: 3, steps: 20, slowSteps: 5 },
  small: { vocabSize: 256, contextLength: 128, dModel: 256, heads: 8, layers: 4, batch: 16, warmup: 1, steps: 5, slowSteps: 3 },
  // The GPU runner's larger model (bench/dawn/run.mjs): 4× small's work per step; not in the page's run.
  medium: { vocabSize: 512, contextLength: 256, dModel: 512, heads: 8, layers: 4, batch: 8, warmup: 1, steps: 5, slowSteps: 3 },
};
/** The sizes the page's benchmark trains (runTraining's default). */
export const PAGE_TRAINING_SIZES = ['tiny', 'small'];
/** A contestant whose first step takes longer than this (ms) is 'slow': one warm-up step and slowSteps timed. */
export const SLOW_STEP_MS = 4000;

/** The model config of a size (what createTrainer, the tfjs model and train_torch.py take). */
export function modelConfig(size) {
  const { vocabSize, contextLength, dModel, heads, layers } = TRAINING_SIZES[size];
  return { vocabSize, contextLength, dModel, heads, layers, layerNorm: false };
}

/**
 * Useful multiply-adds of one training step (forward + backward), N = B·T tokens:
 *   forward F = L·(4·N·d² + B·d·T(T+1)) + N·d·V
 *     (per layer the q, k, v and out projections, N·d·d each, and Q·Kᵀ and P·V over the causal half,
 *      B·H·d_head·T(T+1)/2 each; the unembedding N·d·V; the embedding is a lookup: 0)
 *   backward = 2·F (each product's two gradients: dX and dW, or dQ/dK and dP/dV)
 * FLOPs = 2 · 3F. Softmax, the loss, bias adds and AdamW are not counted. tfjs's one-hot embedding
 * products are its own overhead, not useful work.
 */
export function trainingFlops(size) {
  const { vocabSize: V, contextLength: T, dModel: d, layers: L, batch: B } = TRAINING_SIZES[size];
  const N = B * T;
  const forward = L * (4 * N * d * d + B * d * T * (T + 1)) + N * d * V;
  return 2 * 3 * forward;
}

/** The batches of a run: step s of the 'induction' task, seeded. */
export function trainingBatch(size, step) {
  const { batch, contextLength, vocabSize } = TRAINING_SIZES[size];
  return makeBatch('induction', { batch, contextLength, vocabSize, seed: SEED, step });
}

/** The shared starting point of every contestant: {spec: [[name, shape]], parameters: {name: tensor}}. */
export function initialParameters(size) {
  const config = modelConfig(size);
  return { spec: parameterSpec(config).map(([name, shape]) => [name, shape]), parameters: initParameters(config, SEED) };
}

/** How many batches a run can use: the check step, warm-up and timed steps (each step its own batch). */
export function batchCount(size) {
  const s = TRAINING_SIZES[size];
  return 1 + s.warmup + s.steps;
}

// ---------------------------------------------------------------------------------------------------------
// Contestants. A training contestant is { name, group, setup?() → description, supports?(size) → true or the
// reason it does not run at this size, prepare(size, parameters) → { step(batch) → Promise<loss number>, dispose?() } }.

async function relaxedAvailable() {
  try {
    const url = new URL('../web/src/core/wasm/relaxed-tile.wasm', import.meta.url);
    // Node's fetch reads no file: URLs (the GPU runner, bench/dawn/run.mjs, runs this module in Node).
    const fsModule = 'node:fs/promises';
    const bytes = url.protocol === 'file:' ? await (await import(/* @vite-ignore */ fsModule)).readFile(url) : await (await fetch(url)).arrayBuffer();
    return WebAssembly.validate(bytes);
  } catch {
    return false;
  }
}

/**
 * createTrainer({backend: 'wasm-simd', threads}): one thread, or `threads` sharing each batch's rows (the
 * calling thread and threads − 1 workers, web/src/train/shards.js). A trainer that cannot have the threads
 * (no workers in this engine) is an error at setup, so its rows say why instead of timing one thread.
 */
export function oursTraining(threads = 1) {
  return {
    name: threads === 1 ? 'ours (wasm-simd, 1 thread)' : `ours (wasm-simd, ${threads} threads)`,
    group: 'ours',
    threads,
    setup: async () => {
      const relaxed = await relaxedAvailable();
      const probe = await createTrainer({ ...modelConfig('tiny'), seed: SEED, backend: 'wasm-simd', threads });
      const got = [probe.backend, probe.threads, probe.threadsReason];
      probe.dispose();
      if (got[1] !== threads) throw new Error(`createTrainer({threads: ${threads}}): ${got[2]}`);
      return `createTrainer({backend: 'wasm-simd', threads: ${threads}}): backend ${got[0]}, `
        + `${relaxed ? 'relaxed-SIMD FMA tiles installed by the library' : 'plain simd128 tiles (no relaxed SIMD in this engine)'}; `
        + (threads === 1 ? 'the whole step in the WASM heap (cpp/kernels/attention_only_training.h)'
          : `each step's rows shared by the calling thread and ${threads - 1} worker${threads === 2 ? '' : 's'}, the gradients summed and every copy taking the same AdamW step`);
    },
    async prepare(size, { parameters }) {
      const trainer = await createTrainer({ ...modelConfig(size), seed: SEED, parameters, optimizer: OPTIMIZER, backend: 'wasm-simd', threads });
      return {
        step: async (batch) => {
          const { loss } = await trainer.step(batch);
          // a worker that failed leaves the trainer on one thread: never time that as `threads`
          if (trainer.threads !== threads) throw new Error(`createTrainer({threads: ${threads}}) runs on ${trainer.threads}: ${trainer.threadsReason}`);
          return loss;
        },
        dispose: () => trainer.dispose(),
      };
    },
  };
}

/** On a CPU-emulated adapter (SwiftShader) the WebGPU rows train the tiny model only (the small one would
 *  take minutes per contestant, and measures a CPU emulating a GPU anyway). */
const EMULATED_TRAINING_SIZES = ['tiny'];
const emulatedSupports = (state) => (size) => !state.adapter?.emulated || EMULATED_TRAINING_SIZES.includes(size)
  || `SwiftShader (CPU-emulated): only ${EMULATED_TRAINING_SIZES.join(', ')} runs, a step of ${size} would take seconds of a CPU emulating a GPU`;

/** createTrainer({backend: 'webgpu'}): the WGSL training kernels (web/src/gpu/train/), state on the device. */
export function oursWebgpuTraining() {
  const state = { adapter: null };
  return {
    get name() { return `ours webgpu${emulatedSuffix(state.adapter)}`; },
    group: 'ours',
    setup: async () => {
      state.adapter = await requireAdapter();
      return `createTrainer({backend: 'webgpu'}) on ${state.adapter.label}: parameters, gradients and AdamW state on the device, `
        + 'the loss and gradient norm read back every step, the parameters copied back every syncEvery = 10 steps (counted in the time)';
    },
    supports: emulatedSupports(state),
    async prepare(size, { parameters }) {
      const trainer = await createTrainer({ ...modelConfig(size), seed: SEED, parameters, optimizer: OPTIMIZER, backend: 'webgpu' });
      return {
        step: async (batch) => {
          const { loss } = await trainer.step(batch);
          if (trainer.backend !== 'webgpu') throw new Error(`ours webgpu: the trainer left the GPU: ${trainer.backendReason}`);
          return loss;
        },
        dispose: () => trainer.dispose(),
      };
    },
  };
}

// TensorFlow.js: the same model written with tf ops. Its wasm backend has no UnsortedSegmentSum, so
// tf.gather's gradient fails: the token embedding is a one-hot (N, V)·(V, d) product (the webgpu row does the
// same, so both compute one model). AdamW by hand (tf.train.adam has no decoupled weight decay), exactly the
// update of docs/api.md.
let tfRuns = 0;

export function tfjsTraining() {
  return tfjsTrainingOn({
    name: 'tfjs-wasm',
    load: async () => ({ tf: await loadTf(), local: (data) => data }),
    describe: (tf) => `TensorFlow.js ${tf.version_core}, wasm backend (XNNPACK), SIMD ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT') ? 'on' : 'off'}, threads off; `
      + 'tf.variableGrads, token embedding as a one-hot matmul (no UnsortedSegmentSum for tf.gather\'s gradient), AdamW by hand',
  });
}

/** TensorFlow.js's webgpu backend, in its own iframe (bench/webgpu-contestants.js), on the same tf program. */
export function tfjsWebgpuTraining() {
  const state = { adapter: null, loaded: null };
  const contestant = tfjsTrainingOn({
    get name() { return `tfjs-webgpu${emulatedSuffix(state.adapter)}`; },
    load: async () => {
      state.adapter ??= await requireAdapter();
      state.loaded ??= isolatedTensorFlow({ gradients: true });
      return state.loaded;
    },
    describe: (tf) => `TensorFlow.js ${tf.version_core}, webgpu backend, on ${state.adapter.label}; the same tf program as tfjs-wasm, `
      + 'the loss read back every step',
  });
  contestant.supports = emulatedSupports(state);
  return contestant;
}

/** The tf program of the model, on the tf that `options.load()` gives ({tf, local}: local copies an array into tf's realm). */
function tfjsTrainingOn(options) {
  return {
    get name() { return options.name; },
    group: 'peer',
    setup: async () => options.describe((await options.load()).tf),
    async prepare(size, { spec, parameters }) {
      const { tf, local } = await options.load();
      const { vocabSize: V, contextLength: T, dModel: d, heads: H, layers: L } = modelConfig(size);
      const dh = d / H;
      const run = ++tfRuns;
      const vars = {};
      const m = {};
      const v = {};
      for (const [name, shape] of spec) {
        vars[name] = tf.variable(tf.tensor(local(parameters[name].data), shape), true, `train${run}_${name}`);
        m[name] = tf.variable(tf.zeros(shape), false);
        v[name] = tf.variable(tf.zeros(shape), false);
      }
      const mask = new Float32Array(T * T);
      for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = -1e9; // exp underflows to 0 exactly
      const maskT = tf.tensor2d(local(mask), [T, T]);
      const scale = tf.scalar(1 / Math.sqrt(dh));
      const linear = (x, l, p) => tf.add(tf.matMul(x, vars[`blocks.${l}.${p}.weight`], false, true), vars[`blocks.${l}.${p}.bias`]);
      const split = (x, B) => tf.transpose(tf.reshape(x, [B, T, H, dh]), [0, 2, 1, 3]);
      let t = 0;
      const { lr, betas: [b1, b2], eps, weightDecay } = OPTIMIZER;
      const names = spec.map(([name]) => name);
      return {
        async step(batch) {
          const [B, Tb] = batch.inputs.shape;
          if (Tb !== T) throw new Error(`tfjs training: batch T=${Tb}; expected ${T}`);
          const N = B * T;
          const oneHot = new Float32Array(N * V);
          for (let n = 0; n < N; n++) oneHot[n * V + batch.inputs.data[n]] = 1;
          let count = 0;
          for (const target of batch.targets.data) if (target !== -100) count++;
          const pick = new Float32Array(N * V);
          for (let n = 0; n < N; n++) { const target = batch.targets.data[n]; if (target !== -100) pick[n * V + target] = 1 / Math.max(1, count); }
          const lossTensor = tf.tidy(() => {
            const x1 = tf.tensor2d(local(oneHot), [N, V]);
            const w = tf.tensor2d(local(pick), [N, V]);
            const { value, grads } = tf.variableGrads(() => {
              let h = tf.add(tf.reshape(tf.matMul(x1, vars['tok_emb.weight']), [B, T, d]), vars['pos_emb.weight']);
              h = tf.reshape(h, [N, d]);
              for (let l = 0; l < L; l++) {
                const q = split(linear(h, l, 'q_proj'), B);
                const k = split(linear(h, l, 'k_proj'), B);
                const vv = split(linear(h, l, 'v_proj'), B);
                const weights = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), scale), maskT));
                const context = tf.reshape(tf.transpose(tf.matMul(weights, vv), [0, 2, 1, 3]), [N, d]);
                h = tf.add(h, linear(context, l, 'out_proj'));
              }
              const logits = tf.add(tf.matMul(h, vars['unembed.weight'], false, true), vars['unembed.bias']);
              return tf.neg(tf.sum(tf.mul(w, tf.logSoftmax(logits))));
            }, names.map((name) => vars[name]));
            t += 1;
            const c1 = lr / (1 - b1 ** t);
            const c2 = 1 / Math.sqrt(1 - b2 ** t);
            for (const name of names) {
              const g = grads[vars[name].name];
              const p = vars[name];
              m[name].assign(tf.add(tf.mul(m[name], b1), tf.mul(g, 1 - b1)));
              v[name].assign(tf.add(tf.mul(v[name], b2), tf.mul(tf.square(g), 1 - b2)));
              const decayed = tf.mul(p, 1 - lr * weightDecay);
              p.assign(tf.sub(decayed, tf.mul(tf.div(m[name], tf.add(tf.mul(tf.sqrt(v[name]), c2), eps)), c1)));
            }
            return value;
          });
          // data(), not dataSync(): the webgpu backend reads back asynchronously.
          const lossValue = (await lossTensor.data())[0];
          lossTensor.dispose();
          return lossValue;
        },
        dispose() {
          for (const name of names) { vars[name].dispose(); m[name].dispose(); v[name].dispose(); }
          maskT.dispose();
          scale.dispose();
        },
      };
    },
  };
}

export function trainingContestants() {
  return [oursTraining(), oursTraining(2), tfjsTraining(), oursWebgpuTraining(), tfjsWebgpuTraining()];
}

/** The first step's loss on the JS engine: the check's reference when no CPU row of ours is in the line-up. */
async function referenceLoss(size, parameters, batch) {
  const trainer = await createTrainer({ ...modelConfig(size), seed: SEED, parameters, optimizer: OPTIMIZER, backend: 'js' });
  try {
    return (await trainer.step(batch)).loss;
  } finally {
    trainer.dispose();
  }
}

const median = (sorted) => (sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2);
const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

/** The statistics of a timed run (ms per step, sorted): what every training row reports. */
export function trainingStats(size, timesMs) {
  const times = [...timesMs].sort((a, b) => a - b);
  const medianMs = median(times);
  const { batch, contextLength } = TRAINING_SIZES[size];
  return {
    runs: times.length, medianMs, minMs: times[0], maxMs: times.at(-1), timesMs: times,
    stepsPerSecond: 1000 / medianMs, tokensPerSecond: (batch * contextLength * 1000) / medianMs,
    gflops: trainingFlops(size) / (medianMs * 1e6),
  };
}

/**
 * Runs the training section: every contestant at every size. `memory` (optional, from bench/run.mjs):
 * { reset() → Promise, read() → Promise<{peakBytes, startBytes}>, cpuMs() → Promise<ms> } around each run
 * (the page's renderer process: peak RSS, and CPU time around each timed step, all its threads, 10 ms
 * ticks). Returns { sizes, contestants, results, reference }.
 */
export async function runTraining({ contestants = trainingContestants(), sizes = PAGE_TRAINING_SIZES, onProgress = () => {}, memory } = {}) {
  const lineup = [];
  for (const contestant of contestants) {
    try {
      const description = contestant.setup ? await contestant.setup() : '';
      lineup.push({ contestant, name: contestant.name, group: contestant.group, description });
      onProgress(`ready: ${contestant.name} (${description})`);
    } catch (error) {
      lineup.push({ contestant, name: contestant.name, group: contestant.group, error: error.message ?? String(error) });
      onProgress(`unavailable: ${contestant.name}: ${error.message ?? error}`);
    }
  }
  const results = [];
  const reference = {};
  for (const size of sizes) {
    const spec = TRAINING_SIZES[size];
    const start = initialParameters(size);
    const batches = Array.from({ length: batchCount(size) }, (_, s) => trainingBatch(size, s));
    for (const entry of lineup) {
      const row = { task: 'training', size, contestant: entry.name, group: entry.group, threads: entry.contestant.threads ?? 1 };
      if (entry.error) { results.push({ ...row, status: 'unavailable', reason: entry.error }); continue; }
      const supported = entry.contestant.supports ? entry.contestant.supports(size) : true;
      if (supported !== true) {
        results.push({ ...row, status: 'skipped', reason: supported });
        onProgress(`training ${size} ${entry.name}: skipped: ${supported}`);
        continue;
      }
      // The check's reference: ours on the CPU (the first CPU row of ours, else the JS engine's first step),
      // so a GPU row is checked too, never the reference of itself.
      if (reference[size] === undefined && !lineup.some((e) => e.group === 'ours' && !e.error && !/webgpu/.test(e.name))) {
        reference[size] = await referenceLoss(size, start.parameters, batches[0]);
      }
      let runner;
      try {
        await new Promise((resolve) => setTimeout(resolve, 150));
        if (memory) await memory.reset();
        runner = await entry.contestant.prepare(size, start);
        let t0 = performance.now();
        const firstLoss = await runner.step(batches[0]);
        const firstMs = performance.now() - t0;
        row.firstLoss = firstLoss;
        if (entry.group === 'ours' && !/webgpu/.test(entry.name) && reference[size] === undefined) reference[size] = firstLoss;
        const expected = reference[size];
        const relError = Math.abs(firstLoss - expected) / Math.abs(expected);
        row.lossRelError = relError;
        if (!(relError <= LOSS_RTOL)) {
          Object.assign(row, { status: 'wrong', reason: `first step's loss ${firstLoss} vs ours ${expected} (relative ${relError.toExponential(1)} > ${LOSS_RTOL})` });
        } else {
          const slow = firstMs > SLOW_STEP_MS;
          const warmup = slow ? 1 : spec.warmup;
          const steps = slow ? spec.slowSteps : spec.steps;
          let s = 1;
          for (let w = 0; w < warmup; w++) await runner.step(batches[s++]);
          const times = [];
          let cpuMs = 0;
          for (let r = 0; r < steps; r++) {
            await pause();
            const cpu0 = memory?.cpuMs ? await memory.cpuMs() : null;
            t0 = performance.now();
            await runner.step(batches[s++]);
            times.push(performance.now() - t0);
            const cpu1 = memory?.cpuMs ? await memory.cpuMs() : null;
            cpuMs = cpu0 === null || cpu1 === null ? null : cpuMs + (cpu1 - cpu0);
          }
          Object.assign(row, { status: 'ok', warmup, ...trainingStats(size, times) });
          if (typeof cpuMs === 'number' && memory?.cpuMs) row.cpuMsPerStep = cpuMs / steps;
          if (memory) Object.assign(row, await memory.read());
        }
      } catch (error) {
        Object.assign(row, { status: 'failed', reason: error.message ?? String(error) });
      } finally {
        try { runner?.dispose?.(); } catch { /* a failed dispose must not end the suite */ }
      }
      results.push(row);
      onProgress(`training ${size} ${entry.name}: ${row.status === 'ok'
        ? `${row.medianMs.toFixed(1)} ms/step (min ${row.minMs.toFixed(1)}, max ${row.maxMs.toFixed(1)}; ${row.runs} steps${row.cpuMsPerStep === undefined ? '' : `; CPU ${row.cpuMsPerStep.toFixed(1)} ms/step`}), ${row.stepsPerSecond.toFixed(2)} steps/s, ${Math.round(row.tokensPerSecond)} tokens/s, ${row.gflops.toFixed(2)} GFLOP/s; first loss ${row.firstLoss.toFixed(6)} (rel. ${row.lossRelError.toExponential(1)})`
        : `${row.status}: ${row.reason}`}`);
    }
  }
  return {
    sizes: Object.fromEntries(sizes.map((size) => [size, { ...TRAINING_SIZES[size], flopsPerStep: trainingFlops(size) }])),
    optimizer: OPTIMIZER, seed: SEED, task: 'induction', lossRtol: LOSS_RTOL, slowStepMs: SLOW_STEP_MS,
    reference,
    contestants: lineup.map(({ name, group, description, error }) => ({ name, group, description, error })),
    results,
  };
}
