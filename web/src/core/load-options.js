// loadAttention's options, read once: each checked as the caller gave it (an Error naming it otherwise), and
// the defaults filled in. What this returns is all the loader (load-backend.js) and the API read of them.
import { MEMORY_LIMIT_BYTES } from './registry-checks.js';
import { describeValue } from './tensor.js';
import { MAX_THREADS } from './backends/thread-plan.js';

const BACKENDS = ['auto', 'wasm', 'wasm-simd', 'wasm-baseline', 'js', 'webgpu'];
const LOAD_OPTIONS = ['backend', 'threads', 'wasmBinary', 'locateFile', 'gpuCrossover', 'gpuProbe', 'memoryLimit'];

/**
 * The options of loadAttention, checked, with `backend` and `threads` defaulting to 'auto' (the other
 * options stay as given: absent ones absent).
 * @param {object} options as the caller passed them
 * @returns {Readonly<object>} the settings the loader reads
 */
export function resolveLoadOptions(options) {
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
  return Object.freeze({ ...options, backend, threads: options.threads ?? 'auto' });
}

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
