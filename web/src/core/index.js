// The entry point of the attention core: pick a backend, load it, and wrap it in the API of
// docs/api.md. Backends are imported on demand, so a page that only uses the JS reference never
// loads WebAssembly, and a missing WebGPU never breaks a CPU-only browser.
import { createAttention as createApi, FUNCTION_NAMES } from './api.js';
import { MEMORY_LIMIT_BYTES } from './registry-checks.js';
import { REGISTRY } from './registry.js';
import { describeValue } from './tensor.js';
import { MAX_THREADS, resolveThreads } from './backends/thread-plan.js';

export { FUNCTION_NAMES };

/** Every function's capabilities ({paths, gpu, options}), from the registry: the page's capability checks. */
export const CAPABILITIES = Object.freeze(Object.fromEntries(REGISTRY.map(({ name, paths, gpu, options }) =>
  [name, Object.freeze({ paths, gpu, options: Object.keys(options ?? {}) })])));
export { sizeOf, formatShape, makeTensor } from './tensor.js';
// The trainer (docs/api.md "Training") is part of the library too; also importable alone as
// 'attention-playground/train'.
export { createTrainer, loadTrainer, makeBatch, inductionScore, TASKS } from '../train/index.js';
// The two ways a WebGPU call fails (docs/api.md "Backends"), for `instanceof` in a caller's catch; device.js
// touches no WebGPU object when imported.
export { GpuKernelError, GpuUnavailableError } from '../gpu/device.js';

const BACKENDS = ['auto', 'wasm', 'wasm-simd', 'wasm-baseline', 'js', 'webgpu'];
const LOAD_OPTIONS = ['backend', 'threads', 'wasmBinary', 'locateFile', 'gpuCrossover', 'gpuProbe', 'memoryLimit'];

/** The WASM build each backend name asks for. */
const WASM_BUILDS = { auto: 'auto', wasm: 'auto', 'wasm-simd': 'simd', 'wasm-baseline': 'baseline' };

async function loadWasm(backend, { wasmBinary, locateFile, memoryLimit }) {
  const { loadWasmBackend } = await import('./backends/wasm.js');
  return loadWasmBackend({ build: WASM_BUILDS[backend], wasmBinary, locateFile, memoryLimit });
}

async function loadReference() {
  const { createReferenceBackend } = await import('./reference/index.js');
  return createReferenceBackend();
}

const reasonOf = (error) => (error instanceof Error ? error.message : String(error));

/**
 * The WASM backend `cpu` with the worker pool that options.threads asks for (backends/threads.js), or
 * `cpu` itself with the reason it runs on one thread: threads 1, 'auto' on a page that is not
 * cross-origin isolated, no Worker (Node), workers that cannot start (file://, CSP, a module that fails
 * to load). The fallback is silent: the caller reads `threads` and `threadsReason`.
 */
async function withThreads(cpu, options) {
  if (!cpu.build) return { backend: cpu, threadsReason: `the ${cpu.name} backend runs on the main thread` };
  const { count, reason } = resolveThreads(options.threads ?? 'auto', {
    crossOriginIsolated: globalThis.crossOriginIsolated,
    hasWorker: typeof globalThis.Worker === 'function',
    hardwareConcurrency: globalThis.navigator?.hardwareConcurrency,
  });
  if (count < 2) return { backend: cpu, threadsReason: reason };
  try {
    const { createThreadedBackend, startWorkerPool } = await import('./backends/threads.js');
    const glueDirectory = new URL(/* @vite-ignore */ './wasm/', import.meta.url).href;
    const { pool } = await startWorkerPool(count, {
      build: cpu.build,
      binaryUrl: options.locateFile?.(`attention-${cpu.build}.wasm`, glueDirectory),
      wasmBinary: options.wasmBinary,
      memoryLimit: options.memoryLimit,
    });
    return { backend: createThreadedBackend(cpu, pool), threadsReason: null };
  } catch (error) {
    return { backend: cpu, threadsReason: `the workers could not start (${reasonOf(error)}); one thread` };
  }
}

/**
 * Loads the attention core. See index.d.ts for the options and the returned object.
 * 'auto': WASM (SIMD when supported); if it cannot load, the JS reference, with `fallbackReason`. Where
 * navigator.gpu gives an adapter whose measured crossover is not null, calls above it go to WebGPU
 * (backends/auto.js; `gpuCrossover: {thresholdN}` replaces the measured crossover, for tests).
 * 'webgpu': the WebGPU backend; if it cannot load, WASM (then the JS reference), with `fallbackReason`.
 * 'wasm', 'wasm-simd', 'wasm-baseline', 'js': exactly that backend; failing to load it is an Error.
 * threads ('auto' or 1..64): Web Workers for the large fused multi-head calls of the WASM backends
 * (withThreads, backends/threads.js); 'js' and 'webgpu' run on one thread whatever it says.
 *
 * One way through: the options are checked here, one backend is loaded (loadBackend), and it is wrapped
 * in the API once, with the reasons its loading gave.
 */
export async function loadAttention(options = {}) {
  checkLoadOptions(options);
  const { backend, reasons } = await loadBackend(options.backend ?? 'auto', options);
  // Every call is checked against memoryLimit, the copies of its inputs included (api.js); 2 GiB when absent.
  return createApi(backend, { ...reasons, memoryLimit: options.memoryLimit ?? MEMORY_LIMIT_BYTES });
}

/** Each option of loadAttention, as the caller gave it, or an Error naming it. */
function checkLoadOptions(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new Error(`loadAttention: options is ${describeValue(options)}; expected an object`);
  }
  for (const key of Object.keys(options)) {
    if (!LOAD_OPTIONS.includes(key)) {
      throw new Error(`loadAttention: unknown option '${key}'; expected one of ${LOAD_OPTIONS.join(', ')}`);
    }
  }
  const { backend = 'auto' } = options;
  if (!BACKENDS.includes(backend)) {
    throw new Error(`loadAttention: options.backend=${describeValue(backend)}; expected one of ${BACKENDS.map((b) => `'${b}'`).join(', ')}`);
  }
  checkGpuCrossover(options.gpuCrossover);
  if (options.gpuProbe !== undefined && typeof options.gpuProbe !== 'boolean') {
    throw new Error(`loadAttention: options.gpuProbe=${describeValue(options.gpuProbe)}; expected true or false`);
  }
  checkThreads(options.threads);
  checkMemoryLimit(options.memoryLimit);
}

/**
 * The backend `name` asks for, and the reasons for the API's getters ({fallbackReason, threadsReason,
 * noGpuReason}): why another backend answers, why one thread, why no GPU.
 */
async function loadBackend(name, options) {
  if (name === 'js') return { backend: await loadReference(), reasons: { threadsReason: 'the js backend runs on the main thread' } };
  if (name === 'webgpu') return loadWebGpuOrCpu(options);

  // 'auto' takes WASM, else the JS reference; 'wasm*' takes exactly that build. Both may add workers.
  const cpu = name === 'auto' ? await loadCpu(options, []) : { backend: await loadWasm(name, options), fallbackReason: null };
  const threaded = await withThreads(cpu.backend, options);
  const reasons = { fallbackReason: cpu.fallbackReason, threadsReason: threaded.threadsReason };
  if (name !== 'auto') return { backend: threaded.backend, reasons };
  // The adapter probe (and the WebGPU modules) only where there is a navigator.gpu to ask.
  if (!globalThis.navigator?.gpu) {
    return { backend: threaded.backend, reasons: { ...reasons, noGpuReason: 'this environment has no WebGPU (navigator.gpu is undefined): every call runs on WASM' } };
  }
  const { loadAutoBackend } = await import('./backends/auto.js');
  return {
    backend: await loadAutoBackend(threaded.backend, options),
    reasons: {
      ...reasons,
      noGpuReason: options.gpuProbe === false && !options.gpuCrossover
        ? 'gpuProbe is false and no GPU crossover was measured for any adapter kind: every call runs on WASM'
        : 'no usable WebGPU adapter (none offered, or its limits are too small): every call runs on WASM',
    },
  };
}

/** 'webgpu': the GPU backend with its device-loss fallback, else (no adapter or device) WASM or the reference. */
async function loadWebGpuOrCpu(options) {
  const reasons = [];
  let webgpu = null;
  try {
    webgpu = await import('./backends/webgpu.js');
  } catch (error) {
    reasons.push(`WebGPU is unavailable: its module could not load: ${reasonOf(error)}`);
  }
  if (webgpu) {
    const { loadWebGpuBackend, withDeviceLossFallback, isDeviceFailure } = webgpu;
    try {
      // A device lost later (driver reset, device.destroy()) moves the calls to WASM; see webgpu.js.
      const gpu = await loadWebGpuBackend(options);
      const backend = withDeviceLossFallback(gpu, () => loadWasm('auto', options).catch(() => loadReference()));
      return { backend, reasons: { threadsReason: WEBGPU_THREADS_REASON } };
    } catch (error) {
      // No adapter or device falls back; any other error is a bug in loading the backend, and is raised.
      if (!isDeviceFailure(error)) throw new Error(`loadAttention: backend 'webgpu' failed to load (a bug, not a missing GPU): ${error?.message ?? error}`, { cause: error });
      reasons.push(`WebGPU is unavailable: ${reasonOf(error)}`);
    }
  }
  const cpu = await loadCpu(options, reasons);
  return { backend: cpu.backend, reasons: { fallbackReason: cpu.fallbackReason, threadsReason: WEBGPU_THREADS_REASON } };
}

/** WASM, else the JS reference; `reasons` are why the backend asked for was not used. */
async function loadCpu(options, reasons) {
  let backend;
  try {
    backend = await loadWasm('auto', options);
  } catch (error) {
    reasons.push(`WebAssembly could not load: ${reasonOf(error)}`);
    backend = await loadReference();
  }
  return { backend, fallbackReason: reasons.length ? reasons.join('; ') : null };
}

/** 'webgpu' ignores `threads`, also when it falls back to WASM: one backend, one thread. */
const WEBGPU_THREADS_REASON = "backend 'webgpu' does not use workers";

/** threads: 'auto', or a positive integer up to MAX_THREADS, or absent. */
function checkThreads(value) {
  if (value === undefined || value === 'auto' || (Number.isInteger(value) && value >= 1 && value <= MAX_THREADS)) return;
  throw new Error(`loadAttention: options.threads=${describeValue(value)}; expected 'auto' or an integer from 1 to ${MAX_THREADS}`);
}

/** memoryLimit: an integer number of bytes from 1 MiB to 2 GiB (the WASM module's maximum), or absent. */
function checkMemoryLimit(value) {
  if (value === undefined || (Number.isInteger(value) && value >= 2 ** 20 && value <= MEMORY_LIMIT_BYTES)) return;
  throw new Error(`loadAttention: options.memoryLimit=${describeValue(value)}; expected an integer number of bytes from 1048576 (1 MiB) to ${MEMORY_LIMIT_BYTES} (2 GiB)`);
}

/** gpuCrossover: {thresholdN: a positive integer, or null for "never"}, or absent. */
function checkGpuCrossover(value) {
  if (value === undefined) return;
  const thresholdN = value?.thresholdN;
  const valid = value !== null && typeof value === 'object' && Object.keys(value).join() === 'thresholdN' &&
    (thresholdN === null || (Number.isInteger(thresholdN) && thresholdN > 0));
  if (!valid) {
    throw new Error(`loadAttention: options.gpuCrossover is ${describeValue(value)}; expected {thresholdN: a positive integer or null}`);
  }
}
