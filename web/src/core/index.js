// The entry point of the attention core: loadAttention resolves its options into a load plan (checked here),
// loads the engine the plan names (load-backend.js), and wraps it in the API of docs/api.md (api.js), one after the
// other. Backends are imported on demand, so a page that only uses the JS reference never loads WebAssembly,
// and a missing WebGPU never breaks a CPU-only browser.
import { createAttention as createApi, FUNCTION_NAMES } from './api.js';
import { MAX_THREADS, resolveThreads } from './backends/thread-plan.js';
import { loadBackend } from './load-backend.js';
import { MEMORY_LIMIT_BYTES } from './registry-checks.js';
import { REGISTRY } from './registry.js';
import { describeValue } from './tensor.js';

export { FUNCTION_NAMES };

/** Every function's capabilities ({paths, gpu, options}), from the registry: the page's capability checks. */
export const CAPABILITIES = Object.freeze(Object.fromEntries(REGISTRY.map(({ name, paths, gpu, options }) =>
  [name, Object.freeze({ paths, gpu, options: Object.keys(options ?? {}) })])));
export { sizeOf, formatShape, makeTensor } from './tensor.js';
// PyTorch's CPU random numbers (docs/api.md "PyTorch's random numbers"): the page's seeded weights.
export { manualSeed, TorchGenerator } from './torch-random.js';
// The two ways a WebGPU call fails (docs/api.md "Backends"), for `instanceof` in a caller's catch; device.js
// touches no WebGPU object when imported.
export { GpuKernelError, GpuUnavailableError } from '../gpu/device.js';

/**
 * Loads the attention core. See index.d.ts for the options and the returned object.
 * 'auto': WASM (SIMD when supported); if it cannot load, the JS reference, with `fallbackReason`. Where
 * navigator.gpu gives an adapter whose measured crossover is not null, calls above it go to WebGPU
 * (backends/auto.js; `gpuCrossover: {thresholdN}` replaces the measured crossover, for tests).
 * 'webgpu': the WebGPU backend; if it cannot load, WASM (then the JS reference), with `fallbackReason`.
 * 'wasm', 'wasm-simd', 'wasm-baseline', 'js': exactly that backend; failing to load it is an Error.
 * threads ('auto' or 1..64): Web Workers for the large fused multi-head calls of the WASM backends
 * (load-backend.js, backends/threads.js); 'js' and 'webgpu' run on one thread whatever it says.
 *
 * One way through: options → plan → engine. The options are checked and resolved once into a load plan
 * (planLoad), the engine it names is loaded from the plan's values (loadBackend), and it is wrapped in the
 * API once, with the reasons its loading gave.
 */
export async function loadAttention(options = {}) {
  const plan = planLoad(options);
  const { backend, reasons } = await loadBackend(plan);
  return createApi(backend, { ...reasons, memoryLimit: plan.memoryLimit });
}

const BACKENDS = ['auto', 'wasm', 'wasm-simd', 'wasm-baseline', 'js', 'webgpu'];
const LOAD_OPTIONS = ['backend', 'threads', 'wasmBinary', 'locateFile', 'gpuCrossover', 'gpuProbe', 'memoryLimit'];

/**
 * The load plan: the options of loadAttention, checked, resolved into what each part of the loader reads
 * (load-backend.js), so no part of it reads the options themselves.
 *   engine       'js', 'wasm', 'webgpu' or 'auto' (the backend option; 'wasm-simd' and 'wasm-baseline' are 'wasm')
 *   wasm         {build, wasmBinary, locateFile, memoryLimit}: the WASM engine's build ('auto': SIMD where it
 *                validates, 'simd' or 'baseline'), where it finds its bytes, and its limit (backends/wasm.js)
 *   threads      {count, reason}: the workers the CPU side starts where it is WASM (thread-plan.js resolveThreads:
 *                the option against this page), or null: none (js, webgpu)
 *   gpu          {crossover, probe}: the gpuCrossover and gpuProbe options, as given
 *   memoryLimit  the bytes every call is checked against, its input copies included (api.js); 2 GiB when absent
 * @param {object} options as the caller passed them
 * @returns {Readonly<object>}
 */
function planLoad(options) {
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
  const { wasmBinary, locateFile, memoryLimit } = options;
  return Object.freeze({
    engine: backend.startsWith('wasm') ? 'wasm' : backend,
    wasm: { build: WASM_BUILDS[backend] ?? null, wasmBinary, locateFile, memoryLimit },
    threads: backend === 'js' || backend === 'webgpu' ? null : resolveThreads(options.threads ?? 'auto', {
      crossOriginIsolated: globalThis.crossOriginIsolated,
      hasWorker: typeof globalThis.Worker === 'function',
      hardwareConcurrency: globalThis.navigator?.hardwareConcurrency,
    }),
    gpu: { crossover: options.gpuCrossover, probe: options.gpuProbe },
    memoryLimit: memoryLimit ?? MEMORY_LIMIT_BYTES,
  });
}

/** The WASM build each backend option asks for ('webgpu' falls back to the one 'auto' takes). */
const WASM_BUILDS = { auto: 'auto', wasm: 'auto', 'wasm-simd': 'simd', 'wasm-baseline': 'baseline', webgpu: 'auto' };

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
