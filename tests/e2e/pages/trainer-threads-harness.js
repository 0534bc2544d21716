// What tests/e2e/trainer-threads.spec.js drives (on threads.html, as window.trainerThreads): createTrainer({threads}) on the WASM backends, the batch's
// rows shared among the calling thread and workers (web/src/train/shards.js), on cases of
// tests/fixtures/trainAttentionOnly.json (decoded by the spec in Node, passed in as plain arrays).
import { createTrainer } from '/web/src/train/index.js';
import { asTensors, keyBiasErrors, trainerOptions, worstDifference } from './trainer-fixture.js';


/**
 * The 50 PyTorch steps with `threads`: the worst relative loss and gradient-norm errors, the worst final
 * parameter error (k_proj.bias apart, as the unit test does; keyBias checks it), and the losses themselves.
 */
export async function trainFixture(testCase, { backend = 'wasm-simd', threads }) {
  const trainer = await createTrainer(trainerOptions(testCase, { backend, threads }));
  const losses = [];
  let lossError = 0;
  let gradNormError = 0;
  for (let s = 0; s < testCase.batches.length; s++) {
    const { loss, gradNorm } = await trainer.step(asTensors(testCase.batches[s]));
    losses.push(loss);
    lossError = Math.max(lossError, Math.abs(loss - testCase.losses[s]) / Math.abs(testCase.losses[s]));
    gradNormError = Math.max(gradNormError, Math.abs(gradNorm - testCase.gradNorms[s]) / (testCase.gradNorms[s] + 1e-2));
  }
  const ours = trainer.parameters();
  let finalError = 0;
  for (const [name, t] of Object.entries(testCase.final)) {
    if (!name.endsWith('k_proj.bias')) finalError = Math.max(finalError, worstDifference(ours[name].data, t.data));
  }
  const result = { backend: trainer.backend, threads: trainer.threads, threadsReason: trainer.threadsReason, steps: trainer.steps, lossError, gradNormError, finalError, keyBias: keyBiasErrors(testCase, ours), losses };
  trainer.dispose();
  return result;
}

/**
 * setParameters() between steps reaches the workers: `threads` and one thread each take 10 steps, have the
 * same parameter replaced, and take 10 more; the second half's worst loss difference.
 */
export async function setParametersMidway(testCase, threads) {
  const embedding = testCase.initial['tok_emb.weight'];
  const doubled = { 'tok_emb.weight': { data: Float32Array.from(embedding.data, (v) => v * 2), shape: embedding.shape } };
  const runs = [];
  for (const count of [threads, 1]) {
    const trainer = await createTrainer(trainerOptions(testCase, { backend: 'wasm-simd', threads: count }));
    const losses = [];
    for (let s = 0; s < 20; s++) {
      if (s === 10) trainer.setParameters(doubled);
      losses.push((await trainer.step(asTensors(testCase.batches[s]))).loss);
    }
    runs.push({ threads: trainer.threads, losses });
    trainer.dispose();
  }
  return { threads: runs[0].threads, lossDifference: worstDifference(runs[0].losses.slice(10), runs[1].losses.slice(10)) };
}

/** A worker that fails mid-run: the trainer goes on on one thread from its own current model and says why. */
export async function workerFailure(testCase) {
  const trainer = await createTrainer(trainerOptions(testCase, { backend: 'wasm-simd', threads: 2 }));
  const reference = await createTrainer(trainerOptions(testCase, { backend: 'wasm-simd', threads: 2 }));
  let lossError = 0;
  for (let s = 0; s < 12; s++) {
    if (s === 6) trainer.native.shards.pool.fail('worker 0 failed: killed by the test');
    const { loss } = await trainer.step(asTensors(testCase.batches[s]));
    const expected = (await reference.step(asTensors(testCase.batches[s]))).loss;
    lossError = Math.max(lossError, Math.abs(loss - expected) / Math.abs(expected));
  }
  const result = { threads: trainer.threads, threadsReason: trainer.threadsReason, steps: trainer.steps, lossError };
  trainer.dispose();
  reference.dispose();
  return result;
}

/** threads 'auto' for a model: the thread count and reason (nothing trained). */
export async function autoThreads(config) {
  const trainer = await createTrainer({ ...config, backend: 'wasm-simd', threads: 'auto' });
  const result = { threads: trainer.threads, threadsReason: trainer.threadsReason, cores: navigator.hardwareConcurrency, isolated: crossOriginIsolated };
  trainer.dispose();
  return result;
}

/** The first `rows` rows of a fixture batch. */
function firstRows(batch, rows) {
  const T = batch.inputs.shape[1];
  const cut = (t) => ({ data: t.data.slice(0, rows * T), shape: [rows, T] });
  return { inputs: cut(batch.inputs), targets: cut(batch.targets) };
}

/**
 * Batches of 1, 2 and 3 rows in turn on `threads` (more threads than some batches have rows) against one
 * thread: the worst relative loss difference over `steps` steps. A worker without rows must still take
 * each AdamW step, or the next batch that reaches it shows.
 */
export async function fewerRowsThanThreads(testCase, threads, steps) {
  const runs = [];
  for (const count of [threads, 1]) {
    const trainer = await createTrainer(trainerOptions(testCase, { backend: 'wasm-simd', threads: count }));
    const losses = [];
    for (let s = 0; s < steps; s++) losses.push((await trainer.step(asTensors(firstRows(testCase.batches[s], 1 + (s % 3))))).loss);
    runs.push({ threads: trainer.threads, losses });
    trainer.dispose();
  }
  const worst = runs[1].losses.reduce((w, loss, s) => Math.max(w, Math.abs(loss - runs[0].losses[s]) / Math.abs(loss)), 0);
  return { threads: runs[0].threads, worst };
}
