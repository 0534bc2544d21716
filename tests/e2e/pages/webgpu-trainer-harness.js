// What tests/e2e/webgpu-train-engine.spec.js and webgpu-trainer.spec.js drive: the WebGPU training engine
// and createTrainer({backend: 'webgpu'}) on cases of tests/fixtures/trainAttentionOnly.json (decoded by the
// spec in Node and passed in as plain arrays).
import { runtime } from './webgpu-train-harness.js';
import { createAdamState } from '/web/src/train/adamw.js';
import { asTensors, keyBiasErrors, trainerOptions, worstDifference } from './trainer-fixture.js';

/**
 * The WebGPU training engine on one case of tests/fixtures/trainAttentionOnly.json (50 torch.optim.AdamW
 * steps of AttentionOnly in torch 1.13): the loss and gradient norm at every step and the final parameters.
 * Returns the worst relative loss/gradNorm error, the worst final-parameter error per name, k_proj.bias against
 * weight decay alone and against torch (keyBiasErrors), and the time.
 */
export async function checkTrainFixture(testCase) {
  const gpu = await runtime();
  const { parameterSpec } = await import('/web/src/train/model.js');
  const { GpuTrainingEngine } = await import('/web/src/gpu/train/engine.js');
  const config = { ...testCase.config, optimizer: testCase.optimizer, gradClip: testCase.gradClip ?? null };
  const spec = parameterSpec(config);
  const params = Object.fromEntries(spec.map(([name, shape]) => [name, { data: Float32Array.from(testCase.initial[name].data), shape }]));
  const adam = createAdamState(params);
  const engine = new GpuTrainingEngine(gpu, config, spec, params, adam);
  const started = performance.now();
  let lossError = 0;
  let gradNormError = 0;
  try {
    for (let s = 0; s < testCase.batches.length; s++) {
      const { inputs, targets } = testCase.batches[s];
      const [B, T] = inputs.shape;
      const result = await engine.trainStep(Int32Array.from(inputs.data), Int32Array.from(targets.data), B, T);
      lossError = Math.max(lossError, Math.abs(result.loss - testCase.losses[s]) / Math.abs(testCase.losses[s]));
      gradNormError = Math.max(gradNormError, Math.abs(result.gradNorm - testCase.gradNorms[s]) / (testCase.gradNorms[s] + 1e-2));
    }
    await engine.readBack(params, adam);
  } finally {
    engine.dispose();
  }
  const finalErrors = {};
  for (const [name, t] of Object.entries(testCase.final)) {
    let worst = 0;
    for (let i = 0; i < t.data.length; i++) worst = Math.max(worst, Math.abs(params[name].data[i] - t.data[i]));
    finalErrors[name] = worst;
  }
  return { lossError, gradNormError, finalErrors, keyBias: keyBiasErrors(testCase, params), steps: adam.step, ms: performance.now() - started };
}


/**
 * createTrainer({backend: 'webgpu', syncEvery}) on a fixture case: the losses of every step, what
 * parameters() holds between copies (the state of the last copy) and after sync() (the final state).
 */
export async function checkWebgpuTrainer(testCase, syncEvery) {
  const { createTrainer } = await import('/web/src/train/index.js');
  const trainer = await createTrainer(trainerOptions(testCase, { backend: 'webgpu', syncEvery }));
  let lossError = 0;
  const stepsAtCopies = [];
  let copiedStepsOk = true;
  for (let s = 0; s < testCase.batches.length; s++) {
    const { loss } = await trainer.step(asTensors(testCase.batches[s]));
    lossError = Math.max(lossError, Math.abs(loss - testCase.losses[s]) / Math.abs(testCase.losses[s]));
    // the CPU copy (save()'s optimizer step) trails by less than syncEvery steps
    const saved = trainer.save();
    const { decodeSafetensors } = await import('/web/src/train/safetensors.js');
    const copied = Number(decodeSafetensors(saved).metadata.optimizer_step);
    stepsAtCopies.push(copied);
    copiedStepsOk &&= copied === Math.floor((s + 1) / syncEvery) * syncEvery;
  }
  await trainer.sync();
  const ours = trainer.parameters();
  let finalError = 0;
  for (const [name, t] of Object.entries(testCase.final)) {
    if (name.endsWith('k_proj.bias')) continue;
    for (let i = 0; i < t.data.length; i++) finalError = Math.max(finalError, Math.abs(ours[name].data[i] - t.data[i]));
  }
  const result = { backend: trainer.backend, steps: trainer.steps, lossError, finalError, copiedStepsOk,
    gradients: trainer.gradients() !== null };
  trainer.dispose();
  return result;
}

/**
 * A lost device: `before` steps on 'webgpu' with syncEvery, then the device is destroyed; the next step
 * resumes on the CPU from the last copy. Its loss is compared with a JS trainer that ran the same steps up
 * to that copy and then the same batch.
 */
export async function checkLostDevice(testCase, { syncEvery, before }) {
  const { createTrainer } = await import('/web/src/train/index.js');
  const trainer = await createTrainer(trainerOptions(testCase, { backend: 'webgpu', syncEvery }));
  for (let s = 0; s < before; s++) await trainer.step(asTensors(testCase.batches[s]));
  trainer.gpu.device.destroy();
  const { loss } = await trainer.step(asTensors(testCase.batches[before]));
  const copied = Math.floor(before / syncEvery) * syncEvery;
  const reference = await createTrainer(trainerOptions(testCase, { backend: 'js' }));
  for (let s = 0; s < copied; s++) await reference.step(asTensors(testCase.batches[s]));
  const expected = (await reference.step(asTensors(testCase.batches[before]))).loss;
  return { backend: trainer.backend, reason: trainer.backendReason, steps: trainer.steps, copied,
    lossError: Math.abs(loss - expected) / Math.abs(expected) };
}

/**
 * loadTrainer(bytes, {backend: 'webgpu'}) resumes a JS trainer's file (parameters, AdamW state, step count):
 * the next `more` losses against the JS trainer continuing, then the webgpu trainer's own save() (after
 * sync()) against the JS trainer's parameters.
 */
export async function checkResumeOnWebgpu(testCase, { first, more }) {
  const { createTrainer, loadTrainer } = await import('/web/src/train/index.js');
  const cpu = await createTrainer(trainerOptions(testCase, { backend: 'js' }));
  for (let s = 0; s < first; s++) await cpu.step(asTensors(testCase.batches[s]));
  const gpu = await loadTrainer(cpu.save(), { backend: 'webgpu', syncEvery: 4 });
  let lossError = 0;
  for (let s = first; s < first + more; s++) {
    const expected = (await cpu.step(asTensors(testCase.batches[s]))).loss;
    const { loss } = await gpu.step(asTensors(testCase.batches[s]));
    lossError = Math.max(lossError, Math.abs(loss - expected) / Math.abs(expected));
  }
  await gpu.sync();
  const reloaded = await loadTrainer(gpu.save(), { backend: 'js' });
  let parameterError = 0;
  const ours = reloaded.parameters();
  for (const [name, t] of Object.entries(cpu.parameters())) {
    if (name.endsWith('k_proj.bias')) continue;
    for (let i = 0; i < t.data.length; i++) parameterError = Math.max(parameterError, Math.abs(ours[name].data[i] - t.data[i]));
  }
  const result = { backend: gpu.backend, steps: gpu.steps, reloadedSteps: reloaded.steps, lossError, parameterError };
  gpu.dispose();
  return result;
}

/** A device lost before sync(): sync() resumes on the CPU from the last copy instead of throwing. */
export async function checkLostDeviceAtSync(testCase, { syncEvery, before }) {
  const { createTrainer } = await import('/web/src/train/index.js');
  const trainer = await createTrainer(trainerOptions(testCase, { backend: 'webgpu', syncEvery }));
  for (let s = 0; s < before; s++) await trainer.step(asTensors(testCase.batches[s]));
  trainer.gpu.device.destroy();
  await trainer.sync();
  const copied = Math.floor(before / syncEvery) * syncEvery;
  const reference = await createTrainer(trainerOptions(testCase, { backend: 'js' }));
  for (let s = 0; s < copied; s++) await reference.step(asTensors(testCase.batches[s]));
  let parameterError = 0;
  const ours = trainer.parameters();
  for (const [name, t] of Object.entries(reference.parameters())) {
    if (name.endsWith('k_proj.bias')) continue;
    for (let i = 0; i < t.data.length; i++) parameterError = Math.max(parameterError, Math.abs(ours[name].data[i] - t.data[i]));
  }
  return { backend: trainer.backend, reason: trainer.backendReason, steps: trainer.steps, copied, parameterError };
}

/**
 * evaluate(), predict() and attention() on the device after `steps` steps with no copy back yet (syncEvery
 * larger): their answers against a JS trainer that took the same steps, and the CPU copy's step count
 * (still 0: nothing was copied). Then the device is lost and evaluate() resumes on the CPU.
 */
export async function checkForwardOnDevice(testCase, steps) {
  const { createTrainer } = await import('/web/src/train/index.js');
  const { decodeSafetensors } = await import('/web/src/train/safetensors.js');
  const gpu = await createTrainer(trainerOptions(testCase, { backend: 'webgpu', syncEvery: steps + 10 }));
  const cpu = await createTrainer(trainerOptions(testCase, { backend: 'js' }));
  for (let s = 0; s < steps; s++) {
    const batch = asTensors(testCase.batches[s]);
    await gpu.step(batch);
    await cpu.step(batch);
  }
  const probe = asTensors(testCase.batches[steps]);
  const [evalGpu, evalCpu] = [await gpu.evaluate(probe), await cpu.evaluate(probe)];
  const [logitsGpu, logitsCpu] = [await gpu.predict(probe.inputs), await cpu.predict(probe.inputs)];
  const [weightsGpu, weightsCpu] = [await gpu.attention(probe.inputs), await cpu.attention(probe.inputs)];
  const copiedStep = Number(decodeSafetensors(gpu.save()).metadata.optimizer_step);
  const result = {
    backend: gpu.backend, copiedStep,
    lossError: Math.abs(evalGpu.loss - evalCpu.loss) / Math.abs(evalCpu.loss), accuracy: [evalGpu.accuracy, evalCpu.accuracy],
    logitsShape: logitsGpu.shape, logitsError: worstDifference(logitsGpu.data, logitsCpu.data),
    weightsShapes: weightsGpu.map((w) => w.shape), weightsError: Math.max(...weightsGpu.map((w, l) => worstDifference(w.data, weightsCpu[l].data))),
    rowSums: Math.max(...weightsGpu.map((w) => { const T = w.shape[3]; let worst = 0; for (let r = 0; r < w.data.length / T; r++) worst = Math.max(worst, Math.abs(w.data.subarray(r * T, r * T + T).reduce((a, b) => a + b, 0) - 1)); return worst; })),
  };
  gpu.gpu.device.destroy();
  const afterLoss = await gpu.evaluate(probe);
  Object.assign(result, { afterBackend: gpu.backend, afterReason: gpu.backendReason, afterLoss: afterLoss.loss });
  gpu.dispose();
  cpu.dispose();
  return result;
}
