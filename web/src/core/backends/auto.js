// 'auto' where the browser has WebGPU: each call goes to the GPU when the webgpu backend says it can do
// this op at this size (supportsOp) and that the size is above the crossover measured for this adapter
// (prefersGpu, web/src/gpu/crossover.json); every other call goes to the CPU backend (WASM SIMD).
//
// Start-up: the adapter probe is all 'auto' pays at load, and only when some crossover was measured. A crossover of null ("WASM always wins", as
// measured on SwiftShader) returns the CPU backend itself: 'auto' is then exactly what it is without
// WebGPU. Otherwise the device is requested on the first call that routes to it, never before.
//
// A lost device (or a device request that fails) moves every later call to the CPU backend; the call
// that meets the loss is repeated there (withDeviceLossFallback), and `fallbackReason` says why.
import { probeAdapter } from '../../gpu/device.js';
import { FUNCTIONS, FUNCTION_NAMES } from '../api.js';
import { anyCrossoverMeasured, loadWebGpuBackend, measuredCrossover, prefersGpu, shapesOf, withDeviceLossFallback, workOf } from './webgpu.js';

/**
 * The backend 'auto' runs on: `cpu` itself when there is no usable adapter or the crossover is null,
 * otherwise a routing backend over `cpu` and a lazily created webgpu backend.
 * @param {object} cpu the loaded WASM backend (or the JS reference, when WASM could not load)
 * @param {{gpu?: GPU, gpuCrossover?: {thresholdN: number|null}}} [options]
 * @returns {Promise<object>}
 */
export async function loadAutoBackend(cpu, options = {}) {
  // No crossover measured for any adapter kind: the answer is WASM whatever the adapter, so do not ask
  // (where a browser has none, asking makes Chromium log "No available adapters." on every page load).
  if (!options.gpuCrossover && !anyCrossoverMeasured()) return cpu;
  let probe;
  try {
    probe = await probeAdapter(options);
  } catch {
    return cpu; // no navigator.gpu, no adapter, limits too small: the CPU backend, as without WebGPU
  }
  const thresholdN = options.gpuCrossover ? options.gpuCrossover.thresholdN : measuredCrossover(probe.adapterInfo);
  if (thresholdN === null) return cpu;
  return createRoutingBackend(cpu, {
    adapterInfo: probe.adapterInfo,
    thresholdN,
    loadGpu: () => loadWebGpuBackend({ ...options, adapter: probe.adapter, gpuCrossover: { thresholdN } }),
  });
}

/**
 * @param {object} cpu @param {{adapterInfo: object, thresholdN: number, loadGpu: () => Promise<object>}} gpuSide
 * @returns {object} a backend whose `name` and `build` are those of the backend that answered the last call,
 *   with `lastCall` ({fn, backend, reason}) saying where the last call went and why
 */
export function createRoutingBackend(cpu, { adapterInfo, thresholdN, loadGpu }) {
  let last = cpu;
  let lastCall = null;
  let fallbackReason = null;
  let gpuSide = null; // Promise of { gpu, routed }: the webgpu backend and its device-loss wrapper
  const listeners = new Set();

  const giveUpGpu = (reason) => {
    if (fallbackReason) return;
    fallbackReason = reason;
    for (const listener of listeners) listener({ backend: cpu.name, reason });
  };
  const gpuUsable = () => fallbackReason === null;
  const loadGpuSide = () => {
    gpuSide ??= loadGpu().then((gpu) => {
      const routed = withDeviceLossFallback(gpu, async () => cpu);
      routed.onBackendChange(({ reason }) => giveUpGpu(reason));
      return { gpu, routed };
    }, (error) => {
      giveUpGpu(`WebGPU is unavailable: ${error?.message ?? error}; now on ${cpu.name}`);
      return null;
    });
    return gpuSide;
  };

  const onCpu = (fn, args, reason) => {
    const result = cpu[fn](...args);
    last = cpu;
    // A threaded cpu (backends/threads.js) says how many workers took the call.
    lastCall = cpu.lastCall?.fn === fn ? { fn, backend: cpu.name, reason, threads: cpu.lastCall.threads } : { fn, backend: cpu.name, reason };
    return result;
  };

  const route = (fn, args) => {
    if (!gpuUsable()) return onCpu(fn, args, fallbackReason);
    let shapes;
    let options;
    try {
      shapes = shapesOf(fn, args);
      options = FUNCTIONS[fn].options ? args[args.length - 1] : {};
      if (!prefersGpu(fn, shapes, options, adapterInfo, thresholdN)) {
        return onCpu(fn, args, `${fn} does ${workOf(fn, shapes, options)} multiply-adds, below the crossover ${thresholdN}³`);
      }
    } catch {
      return onCpu(fn, args, 'arguments not sized; the CPU backend checks them'); // malformed: its error says why
    }
    // Above the crossover: a Promise, as every webgpu result is.
    return loadGpuSide().then(async (side) => {
      if (!side || !gpuUsable()) return onCpu(fn, args, fallbackReason);
      const answer = side.gpu.supportsOp(fn, shapes, options);
      if (!answer.supported) return onCpu(fn, args, answer.reason);
      const result = await side.routed[fn](...args);
      last = side.routed.name === side.gpu.name ? side.gpu : cpu; // the wrapper repeats a call that met a loss on cpu
      lastCall = { fn, backend: last.name, reason: last === cpu ? fallbackReason : `${fn} does ${workOf(fn, shapes, options)} multiply-adds, at or above the crossover ${thresholdN}³` };
      return result;
    });
  };

  const backend = {
    get name() { return last.name; },
    get build() { return last.build ?? null; },
    get fallbackReason() { return fallbackReason; },
    get lastCall() { return lastCall; },
    get threads() { return cpu.threads ?? 1; },
    get threadsReason() { return cpu.threadsReason ?? null; },
    dispose() { cpu.dispose?.(); },
    /** @param {(change: {backend: string, reason: string}) => void} listener @returns {() => void} unsubscribe */
    onBackendChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  for (const fn of FUNCTION_NAMES) {
    if (typeof cpu[fn] === 'function') backend[fn] = (...args) => route(fn, args);
  }
  return backend;
}
