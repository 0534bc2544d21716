// The entry point of the attention core: pick a backend, load it, and wrap it in the API of
// docs/api.md. Backends are imported on demand, so a page that only uses the JS reference never
// loads WebAssembly, and a missing WebGPU never breaks a CPU-only browser.
import { createAttention, FUNCTION_NAMES } from './api.js';
import { describeValue } from './tensor.js';

export { FUNCTION_NAMES };
export { sizeOf, formatShape, makeTensor } from './tensor.js';

const BACKENDS = ['auto', 'wasm', 'wasm-simd', 'wasm-baseline', 'js', 'webgpu'];
const LOAD_OPTIONS = ['backend', 'wasmBinary', 'locateFile', 'gpuCrossover'];

/** The WASM build each backend name asks for. */
const WASM_BUILDS = { auto: 'auto', wasm: 'auto', 'wasm-simd': 'simd', 'wasm-baseline': 'baseline' };

async function loadWasm(backend, { wasmBinary, locateFile }) {
  const { loadWasmBackend } = await import('./backends/wasm.js');
  return loadWasmBackend({ build: WASM_BUILDS[backend], wasmBinary, locateFile });
}

async function loadReference() {
  const { createReferenceBackend } = await import('./reference/index.js');
  return createReferenceBackend();
}

const reasonOf = (error) => (error instanceof Error ? error.message : String(error));

/**
 * Loads the attention core. See index.d.ts for the options and the returned object.
 * 'auto': WASM (SIMD when supported); if it cannot load, the JS reference, with `fallbackReason`. Where
 * navigator.gpu gives an adapter whose measured crossover is not null, calls above it go to WebGPU
 * (backends/auto.js; `gpuCrossover: {thresholdN}` replaces the measured crossover, for tests).
 * 'webgpu': the WebGPU backend; if it cannot load, WASM (then the JS reference), with `fallbackReason`.
 * 'wasm', 'wasm-simd', 'wasm-baseline', 'js': exactly that backend; failing to load it is an Error.
 */
export async function loadAttention(options = {}) {
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

  if (backend === 'js') return createAttention(await loadReference());
  if (backend !== 'auto' && backend !== 'webgpu') return createAttention(await loadWasm(backend, options));

  if (backend === 'auto') {
    const cpu = await loadCpu([]);
    // The adapter probe (and the WebGPU modules) only where there is a navigator.gpu to ask.
    if (!globalThis.navigator?.gpu) return cpu.attention;
    const { loadAutoBackend } = await import('./backends/auto.js');
    const routed = await loadAutoBackend(cpu.backend, options);
    return routed === cpu.backend ? cpu.attention : createAttention(routed, { fallbackReason: cpu.fallbackReason });
  }

  const reasons = [];
  if (backend === 'webgpu') {
    try {
      const { loadWebGpuBackend, withDeviceLossFallback } = await import('./backends/webgpu.js');
      // A device lost later (driver reset, device.destroy()) moves the calls to WASM; see webgpu.js.
      const gpu = await loadWebGpuBackend(options);
      return createAttention(withDeviceLossFallback(gpu, () => loadWasm('auto', options).catch(() => loadReference())));
    } catch (error) {
      reasons.push(`WebGPU is unavailable: ${reasonOf(error)}`);
    }
  }
  return (await loadCpu(reasons)).attention;

  /** WASM, else the JS reference; `reasons` are why the backend asked for was not used. */
  async function loadCpu(reasons) {
    let cpuBackend;
    try {
      cpuBackend = await loadWasm('auto', options);
    } catch (error) {
      reasons.push(`WebAssembly could not load: ${reasonOf(error)}`);
      cpuBackend = await loadReference();
    }
    const fallbackReason = reasons.length ? reasons.join('; ') : null;
    return { backend: cpuBackend, fallbackReason, attention: createAttention(cpuBackend, { fallbackReason }) };
  }
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
