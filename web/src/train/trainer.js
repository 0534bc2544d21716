// The trainer of docs/api.md "Training": createTrainer / loadTrainer and the Trainer object. It owns the
// parameters (state_dict names and layouts), the AdamW state and the last gradients; the math is in
// model.js, ops.js and adamw.js.
import { formatShape, loadWasmCore, resolveThreads } from '../core/engine.js';
// device.js touches no WebGPU object when imported (the package entry exports its error classes statically)
import { acquireDevice } from '../gpu/device.js';
import { adamwStep, clipGradNorm, createAdamState } from './adamw.js';
import { initParameters, parameterSpec, runModel } from './model.js';
import { jsLinear, wasmLinear } from './linear.js';
import { NativeTraining } from './native.js';
import { AUTO_MIN_WORK, sequenceWork, TrainingShards } from './shards.js';
import { decodeSafetensors, encodeSafetensors } from './safetensors.js';
import { checkBatch, checkParameters, checkTokens, fail, normalizeTrainerOptions } from './trainer-options.js';

export { OPTIMIZER_DEFAULTS } from './trainer-options.js';
/** The safetensors metadata key under which save() writes the config. */
const META_KEY = 'attention_playground';

const copyTensors = (tensors) => Object.fromEntries(Object.entries(tensors).map(([n, t]) => [n, { data: t.data.slice(), shape: [...t.shape] }]));

class Trainer {
  constructor({ config, backend, threads, syncEvery }, params, optimizerState, engine) {
    this.config = config;
    this.spec = parameterSpec(config);
    this.params = params;
    this.adam = optimizerState ?? createAdamState(params);
    this.grads = null;
    this.disposed = false;
    this.requested = { backend, threads };
    this.linear = engine.linear;
    this.syncEvery = syncEvery;
    // 'webgpu': the device holds the parameters and AdamW state; this.params/this.adam are its last copy.
    this.gpu = engine.gpu ? new engine.gpu.Engine(engine.gpu.runtime, config, this.spec, params, this.adam) : null;
    this.sinceSync = 0;
    // WASM: the whole step runs in the heap (native.js); this.params/this.adam/this.grads are copied back on demand.
    this.native = engine.core ? new NativeTraining(engine.core, config, this.spec, params, this.adam) : null;
    this.nativeAhead = false;
    /** The backend that runs the model ('js', 'wasm-simd', 'wasm-baseline' or 'webgpu'). */
    this.backend = this.gpu ? 'webgpu' : engine.linear.name;
    this.backendReason = engine.reason;
    this.unthreaded = null;
  }

  /** Threads a step runs on: the calling thread and the workers (train/shards.js). */
  get threads() { return this.native?.threads ?? 1; }

  /** Why `threads` is 1 (or why the workers stopped), or null. */
  get threadsReason() { return this.native ? this.native.threadsReason : this.unthreaded; }

  /**
   * Starts the workers options.threads asks for, on a WASM engine; without them `threadsReason` says why.
   * 'auto' follows loadAttention's rule (thread-plan.js resolveThreads: a cross-origin isolated page with
   * ≥ 2 cores) and wants a model whose step is large enough to pay for the workers' messages.
   */
  async startThreads(threads, { build, wasmBinary }) {
    if (!this.native) {
      if (threads !== 1) this.unthreaded = this.gpu ? "'webgpu' runs the step on the device" : 'the JS engine runs on the calling thread';
      return;
    }
    const { count, reason } = resolveThreads(threads, {
      crossOriginIsolated: globalThis.crossOriginIsolated,
      hasWorker: typeof globalThis.Worker === 'function',
      hardwareConcurrency: globalThis.navigator?.hardwareConcurrency,
    });
    let why = reason;
    const work = sequenceWork(this.config);
    if (count >= 2 && threads === 'auto' && work < AUTO_MIN_WORK) {
      why = `threads 'auto': a sequence's forward is ${(work / 1e6).toFixed(1)} M multiply-adds, below the ${AUTO_MIN_WORK / 1e6} M from which 'auto' starts workers`;
    } else if (count >= 2) {
      try {
        this.native.shards = await TrainingShards.start(count - 1, { build, wasmBinary }, this.config, this.native.state());
      } catch (error) {
        why = `the workers could not start (${error?.message ?? error}); one thread`;
      }
    }
    this.native.threadsReason = why;
  }

  get steps() { return this.gpu ? this.gpu.step : this.adam.step; }

  /**
   * On 'webgpu': copies the device's parameters, AdamW state and last gradients into this trainer's CPU copy
   * (what parameters(), gradients() and save() return). A lost device resumes on the CPU from the last copy,
   * as a step would. Elsewhere nothing to do.
   */
  async sync() {
    this.alive('sync');
    if (!this.gpu) return;
    try {
      await this.copyBack();
    } catch (error) {
      await this.gpuFailed('trainer.sync', error);
    }
  }

  /**
   * A GPU step or copy failed: a device failure (lost, out of memory, internal error) resumes on the CPU
   * from the last copy; any other error is a bug in the kernels or this code and is raised, naming `fn`,
   * with the trainer still on the GPU (a fallback would hide the bug behind the CPU's numbers).
   */
  async gpuFailed(fn, error) {
    const { deviceFailure, error: classified } = await this.gpu.failure(fn, error);
    if (!deviceFailure) throw classified;
    this.resumeOnCpu(classified);
  }

  async copyBack() {
    const grads = {};
    await this.gpu.readBack(this.params, this.adam, grads);
    this.grads = this.gpu.step > 0 ? grads : null;
    this.sinceSync = 0;
  }

  /** Frees the engine's buffers and its device (one device per trainer). */
  releaseGpu() {
    if (!this.gpu) return;
    this.gpu.dispose();
    this.gpu.device.destroy();
    this.gpu = null;
  }

  /** The device was lost (or ran out of memory): continue on the CPU from the last copy, which is ≤ syncEvery steps old. */
  resumeOnCpu(error) {
    const lost = this.gpu.step - this.adam.step;
    this.releaseGpu();
    this.backend = 'js';
    this.backendReason = `the WebGPU device failed after ${this.adam.step + lost} steps (${error?.message ?? error}); resumed on the JS engine from the parameters copied back at step ${this.adam.step}, losing ${lost} step${lost === 1 ? '' : 's'}`;
  }

  alive(fn) {
    if (this.disposed) fail(`trainer.${fn}`, 'the trainer was disposed; create or load a new one');
  }

  async step(batch) {
    this.alive('step');
    const { B, T } = checkBatch('trainer.step', batch, this.config);
    if (this.gpu) {
      try {
        const { loss, gradNorm } = await this.gpu.trainStep(batch.inputs.data, batch.targets.data, B, T);
        if (++this.sinceSync >= this.syncEvery) await this.copyBack();
        return { loss, gradNorm };
      } catch (error) {
        await this.gpuFailed('trainer.step', error);
      }
    }
    if (this.native) {
      const result = await this.native.step(batch.inputs.data, batch.targets.data, B, T, this.config.gradClip, this.config.optimizer, this.adam.step + 1);
      this.adam.step += 1;
      this.nativeAhead = true;
      return result;
    }
    const run = runModel(this.config, this.params, batch.inputs.data, batch.targets.data, { B, T, wantGradients: true, linear: this.linear });
    const grads = {};
    for (const [name, g] of Object.entries(run.grads)) grads[name] = Float32Array.from(g);
    const gradNorm = clipGradNorm(grads, this.config.gradClip);
    adamwStep(this.params, grads, this.adam, this.config.optimizer);
    this.grads = grads;
    return { loss: run.loss, gradNorm };
  }

  /** Sets AdamW's learning rate for the steps that follow (a schedule); lr a finite number ≥ 0. */
  setLearningRate(lr) {
    this.alive('setLearningRate');
    if (typeof lr !== 'number' || !Number.isFinite(lr) || lr < 0) fail('trainer.setLearningRate', `lr=${lr}; expected a finite number ≥ 0`);
    this.config.optimizer = { ...this.config.optimizer, lr };
  }

  async evaluate(batch) {
    this.alive('evaluate');
    const { B, T } = checkBatch('trainer.evaluate', batch, this.config);
    const onGpu = await this.onGpu('trainer.evaluate', (gpu) => gpu.evaluate(batch.inputs.data, batch.targets.data, B, T));
    if (onGpu) return { loss: onGpu.value.loss, accuracy: onGpu.value.count ? onGpu.value.correct / onGpu.value.count : 0 };
    // WASM: the resident model evaluates its own current state, no copy back needed
    const run = this.native ? this.native.evaluate(batch.inputs.data, batch.targets.data, B, T)
      : runModel(this.config, this.params, batch.inputs.data, batch.targets.data, { B, T, linear: this.linear });
    return { loss: run.loss, accuracy: run.count ? run.correct / run.count : 0 };
  }

  async attention(inputs) {
    this.alive('attention');
    const { B, T } = checkTokens('trainer.attention', 'inputs', inputs, this.config);
    const shape = [B, this.config.heads, T, T];
    // 'webgpu' and WASM: the resident model's forward, P recomputed from its saved lse; no copy of its state back
    this.gpu?.checkAttention(B, T);
    const onGpu = await this.onGpu('trainer.attention', (gpu) => gpu.attention(inputs.data, B, T));
    if (onGpu) return onGpu.value.map((data) => ({ data, shape: [...shape] }));
    if (this.native) return this.native.attention(inputs.data, B, T, this.config.layers).map((data) => ({ data, shape: [...shape] }));
    const run = runModel(this.config, this.params, inputs.data, null, { B, T, wantLoss: false, linear: this.linear });
    return run.attention.map((w) => ({ data: Float32Array.from(w), shape: [...shape] }));
  }

  /** The logits (B, T, V) for inputs (B, T): the model's next-token scores, no update. */
  async predict(inputs) {
    this.alive('predict');
    const { B, T } = checkTokens('trainer.predict', 'inputs', inputs, this.config);
    const onGpu = await this.onGpu('trainer.predict', (gpu) => gpu.predict(inputs.data, B, T));
    if (onGpu) return { data: onGpu.value, shape: [B, T, this.config.vocabSize] };
    if (this.native) return { data: this.native.predict(inputs.data, B, T), shape: [B, T, this.config.vocabSize] };
    const run = runModel(this.config, this.params, inputs.data, null, { B, T, linear: this.linear });
    return { data: Float32Array.from(run.logits), shape: [B, T, this.config.vocabSize] };
  }

  /**
   * On 'webgpu': {value: await work(engine)}, the forward-only calls on the device's current state. A device
   * failure resumes on the CPU and answers undefined (the caller then runs on the CPU); a kernel bug throws.
   */
  async onGpu(fn, work) {
    if (!this.gpu) return undefined;
    try {
      return { value: await work(this.gpu) };
    } catch (error) {
      await this.gpuFailed(fn, error);
      return undefined;
    }
  }

  /** WASM: copies the heap's parameters, AdamW state and last gradients into this.params/this.adam/this.grads. */
  pullNative() {
    if (!this.native || !this.nativeAhead) return;
    this.grads ??= Object.fromEntries(this.spec.map(([name, shape]) => [name, new Float32Array(shape.reduce((a, b) => a * b, 1))]));
    this.native.pull(this.params, this.adam, this.grads);
    this.nativeAhead = false;
  }

  parameters() {
    this.alive('parameters');
    this.pullNative();
    return copyTensors(this.params);
  }

  setParameters(parameters) {
    this.alive('setParameters');
    checkParameters('trainer.setParameters', this.spec, parameters, 'parameters');
    this.pullNative();
    for (const [name, t] of Object.entries(parameters)) this.params[name].data.set(t.data);
    this.gpu?.writeParameters(this.params, Object.keys(parameters));
    this.native?.writeParameters(this.params, Object.keys(parameters));
  }

  /** The last step's gradients (after clipping, as the optimiser used them), or null before the first step. */
  gradients() {
    this.alive('gradients');
    this.pullNative();
    if (!this.grads) return null;
    return Object.fromEntries(this.spec.map(([name, shape]) => [name, { data: this.grads[name].slice(), shape: [...shape] }]));
  }

  /** safetensors bytes: the parameters under their state_dict names, the AdamW state and the config. */
  save() {
    this.alive('save');
    this.pullNative();
    const tensors = copyTensors(this.params);
    for (const [name, shape] of this.spec) {
      tensors[`optimizer.exp_avg.${name}`] = { data: this.adam.expAvg[name], shape };
      tensors[`optimizer.exp_avg_sq.${name}`] = { data: this.adam.expAvgSq[name], shape };
    }
    const { seed, ...rest } = this.config;
    return encodeSafetensors(tensors, {
      format: 'pt',
      [META_KEY]: JSON.stringify({ version: 1, config: { ...rest, seed } }),
      optimizer_step: String(this.adam.step),
    });
  }

  dispose() {
    this.disposed = true;
    this.releaseGpu();
    this.native?.dispose();
    this.native = null;
    this.linear = null;
    this.params = null;
    this.adam = null;
    this.grads = null;
  }
}

const WASM_BUILDS = { auto: 'auto', wasm: 'auto', 'wasm-simd': 'simd', 'wasm-baseline': 'baseline' };

/**
 * The engine for options.backend: 'js' → JS loops; 'wasm-simd', 'wasm-baseline', 'wasm' → that WASM build (one
 * thread; a load failure throws): its resident model (native.js) for step(), evaluate(), predict() and
 * attention(), and its matmul (wasmLinear) for the JS model's products should runModel run on it; 'auto' → WASM, or JS with a reason when WASM cannot load.
 * 'webgpu' → the device's engine (loadGpuEngine).
 */
async function loadEngine(fn, backend, { config, wasmBinary = null }) {
  if (backend === 'js') return { linear: jsLinear, reason: null };
  if (backend === 'webgpu') return loadGpuEngine(fn, config);
  const { loadWasmBackend, createAttention } = await loadWasmCore();
  try {
    // wasmBinary: the build's bytes where no .wasm file can be fetched (the single-file page from file://).
    const core = await loadWasmBackend({ build: WASM_BUILDS[backend], ...(wasmBinary ? { wasmBinary } : {}) });
    // the resident model (native.js) runs step(), evaluate(), predict() and attention(); wasmLinear the JS model's products
    return { linear: wasmLinear(createAttention(core)), core, reason: null };
  } catch (error) {
    if (backend !== 'auto') throw new Error(`${fn}: backend '${backend}' could not load: ${error.message}`);
    return { linear: jsLinear, reason: `WASM could not load (${error.message}); the JS engine runs` };
  }
}

/** Storage buffers the training kernels bind at once (the attention backward's). */
const GPU_STORAGE_BUFFERS = 8;

/**
 * 'webgpu': a device, and the engine of web/src/gpu/train/engine.js. evaluate() and attention() run on the
 * JS engine from the copied-back parameters. No device is an Error naming why.
 */
async function loadGpuEngine(fn, config) {
  const [{ GpuRuntime, HEAD_DIM_LIMIT }, { GpuTrainingEngine }] = await Promise.all([
    import('../gpu/runtime.js'), import('../gpu/train/engine.js')]);
  const headDim = config.dModel / config.heads;
  if (headDim > HEAD_DIM_LIMIT) {
    throw new Error(`${fn}: backend 'webgpu' could not load: d_head = dModel/heads = ${headDim}; the attention kernels take at most ${HEAD_DIM_LIMIT}`);
  }
  let acquired;
  try {
    acquired = await acquireDevice();
  } catch (error) {
    throw new Error(`${fn}: backend 'webgpu' could not load: ${error.message}`);
  }
  const { device, adapterInfo } = acquired;
  if (device.limits.maxStorageBuffersPerShaderStage < GPU_STORAGE_BUFFERS) {
    device.destroy();
    throw new Error(`${fn}: backend 'webgpu' could not load: the device binds ${device.limits.maxStorageBuffersPerShaderStage} storage buffers per shader; the training kernels need ${GPU_STORAGE_BUFFERS}`);
  }
  // SwiftShader and other CPU-emulated adapters run the direct-load GEMM variant faster (runtime.js)
  const runtime = new GpuRuntime(device, { stagedGemm: !adapterInfo.emulated });
  return { linear: jsLinear, reason: null, gpu: { Engine: GpuTrainingEngine, runtime } };
}

async function startTrainer(normalized, params, adam, engine) {
  const trainer = new Trainer(normalized, params, adam, engine);
  await trainer.startThreads(normalized.threads, { build: engine.core?.build, wasmBinary: normalized.wasmBinary });
  return trainer;
}

/** createTrainer(options) → Promise<Trainer>: a new model, initialised from options.seed or options.parameters. */
export async function createTrainer(options) {
  const fn = 'createTrainer';
  const normalized = normalizeTrainerOptions(fn, options);
  const spec = parameterSpec(normalized.config);
  const params = initParameters(normalized.config, normalized.config.seed);
  if (options.parameters !== undefined) {
    checkParameters(fn, spec, options.parameters, 'options.parameters');
    for (const [name, t] of Object.entries(options.parameters)) params[name].data.set(t.data);
  }
  return startTrainer(normalized, params, undefined, await loadEngine(fn, normalized.backend, normalized));
}

/**
 * loadTrainer(bytes, options) → Promise<Trainer>: the trainer saved by trainer.save(), with its parameters,
 * AdamW state and step count; options may set backend and threads (the rest comes from the file).
 */
export async function loadTrainer(bytes, options = {}) {
  const fn = 'loadTrainer';
  const { tensors, metadata } = decodeSafetensors(bytes);
  if (!metadata[META_KEY]) fail(fn, `the file has no '${META_KEY}' metadata; expected a file written by trainer.save()`);
  const { config } = JSON.parse(metadata[META_KEY]);
  for (const key of Object.keys(options ?? {})) {
    if (!['backend', 'threads', 'wasmBinary', 'syncEvery'].includes(key)) fail(fn, `options.${key} is not an option; expected backend, threads, wasmBinary or syncEvery (the rest is in the file)`);
  }
  const normalized = normalizeTrainerOptions(fn, { ...config, ...options });
  const spec = parameterSpec(normalized.config);
  const params = {};
  const adam = { step: Number(metadata.optimizer_step ?? 0), expAvg: {}, expAvgSq: {} };
  for (const [name, shape] of spec) {
    for (const key of [name, `optimizer.exp_avg.${name}`, `optimizer.exp_avg_sq.${name}`]) {
      if (!tensors[key] || tensors[key].shape.join() !== shape.join()) fail(fn, `the file's tensor '${key}' is ${tensors[key] ? `of shape ${formatShape(tensors[key].shape)}` : 'missing'}; expected ${formatShape(shape)}`);
    }
    params[name] = tensors[name];
    adam.expAvg[name] = tensors[`optimizer.exp_avg.${name}`].data;
    adam.expAvgSq[name] = tensors[`optimizer.exp_avg_sq.${name}`].data;
  }
  return startTrainer(normalized, params, adam, await loadEngine(fn, normalized.backend, normalized));
}
