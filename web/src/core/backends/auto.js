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
import { ENTRIES, FUNCTION_NAMES } from '../registry.js';
import { plan, planGpuCall, shapesOf } from '../planner.js';
import { anyCrossoverMeasured, loadWebGpuBackend, measuredCrossover, withDeviceLossFallback } from './webgpu.js';

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
 *   with `lastCall` ({fn, backend, path, reason, threads}) saying where the last call went and why
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

  // lastCall: the planner's path on the CPU side (or a threaded cpu's own record), with why the GPU was not used.
  const onCpu = (fn, args, reason) => {
    const result = cpu[fn](...args);
    last = cpu;
    const onCpuSide = cpu.lastCall?.fn === fn && cpu.lastCall.path ? cpu.lastCall : plan(fn, args, { name: cpu.name });
    lastCall = { fn, backend: cpu.name, path: onCpuSide.path, reason, threads: onCpuSide.threads ?? 1 };
    return result;
  };

  const route = (fn, args) => {
    if (!gpuUsable()) return onCpu(fn, args, fallbackReason);
    const decision = planGpuCall(fn, args, thresholdN);
    if (!decision.gpu) return onCpu(fn, args, decision.reason); // malformed arguments: the CPU backend's error says why
    const shapes = shapesOf(fn, args);
    const options = ENTRIES[fn].options ? args[args.length - 1] : {};
    // Above the crossover: a Promise, as every webgpu result is.
    return loadGpuSide().then(async (side) => {
      if (!side || !gpuUsable()) return onCpu(fn, args, fallbackReason);
      const answer = side.gpu.supportsOp(fn, shapes, options);
      if (!answer.supported) return onCpu(fn, args, answer.reason);
      const result = await side.routed[fn](...args);
      last = side.routed.name === side.gpu.name ? side.gpu : cpu; // the wrapper repeats a call that met a loss on cpu
      lastCall = last === cpu
        ? { fn, backend: cpu.name, path: plan(fn, args, { name: cpu.name }).path, reason: fallbackReason, threads: 1 }
        : { fn, backend: last.name, path: 'webgpu', reason: decision.reason, threads: 1 };
      return result;
    });
  };

  const backend = {
    get name() { return last.name; },
    get build() { return last.build ?? null; },
    // The GPU side runs the reference's checks in full (webgpu.js gpuMethod); the CPU side is cpu.
    get scansValues() { return cpu.scansValues ?? false; },
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
