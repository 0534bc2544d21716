// The entry point of the attention core: read the options (load-options.js), load the backend they name
// (load-backend.js), and wrap it in the API of docs/api.md (api.js), one after the other. Backends are
// imported on demand, so a page that only uses the JS reference never loads WebAssembly, and a missing
// WebGPU never breaks a CPU-only browser.
import { createAttention as createApi, FUNCTION_NAMES } from './api.js';
import { loadBackend } from './load-backend.js';
import { resolveLoadOptions } from './load-options.js';
import { MEMORY_LIMIT_BYTES } from './registry-checks.js';
import { REGISTRY } from './registry.js';

export { FUNCTION_NAMES };

/** Every function's capabilities ({paths, gpu, options}), from the registry: the page's capability checks. */
export const CAPABILITIES = Object.freeze(Object.fromEntries(REGISTRY.map(({ name, paths, gpu, options }) =>
  [name, Object.freeze({ paths, gpu, options: Object.keys(options ?? {}) })])));
export { sizeOf, formatShape, makeTensor } from './tensor.js';
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
 * One way through: the options are checked and completed (resolveLoadOptions), one backend is loaded
 * (loadBackend), and it is wrapped in the API once, with the reasons its loading gave.
 */
export async function loadAttention(options = {}) {
  const settings = resolveLoadOptions(options);
  const { backend, reasons } = await loadBackend(settings);
  // Every call is checked against memoryLimit, the copies of its inputs included (api.js); 2 GiB when absent.
  return createApi(backend, { ...reasons, memoryLimit: settings.memoryLimit ?? MEMORY_LIMIT_BYTES });
}
