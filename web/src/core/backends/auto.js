// 'auto' where the browser has WebGPU: each call goes to the GPU when the webgpu backend says it can do
// this op at this size (supportsOp) and that the size is above the crossover for this adapter; every other
// call goes to the CPU backend (WASM SIMD).
//
// The crossover (gpu-crossover.js: crossoverState holds it for this adapter, gpuCrossoverDecision says which
// applies): one forced through loadAttention's gpuCrossover option or set through attention.setGpuCrossover >
// the one measured in this browser for this adapter and browser version (web/src/gpu/crossover-probe.js, kept
// in browser storage) > the committed crossover.json record for the adapter's kind > none. On a real (not
// emulated) adapter with no record, the first call that could go to the GPU schedules the probe in idle time
// (auto-probe.js: requestIdleCallback, else a timeout) and itself runs on WASM; the probe times our GEMM and
// fused attention on both backends within PROBE_BUDGET_MS (device request and pipeline compiles included),
// stores the record, and later calls are routed by it. SwiftShader and fallback adapters are never probed;
// `gpuProbe: false` turns probing off.
//
// Start-up: the adapter request is all 'auto' pays at load. The device is requested on the first call
// routed to it (or by the probe), never before. Where the crossover is null and nothing is to be measured,
// every call is exactly the CPU backend's (synchronous, its own lastCall).
//
// A lost device (or a device request that fails, or one out of memory) moves every later call to the CPU
// backend; the call that meets the loss is repeated there (withDeviceLossFallback), and `fallbackReason`
// says why. A kernel bug (GpuKernelError, device.js) is raised to the caller and moves nothing.
//
// This file is the routing layer 'auto' runs on (routingLayer): where each call goes, and when the probe
// starts; and it decides whether 'auto' routes at all (autoRouting: load-backend.js puts the layer it gives
// over the CPU side); loadAutoBackend does both over a CPU backend it is given. The crossover's state and the
// probe's measurement are not here (gpu-crossover.js crossoverState, auto-probe.js measureCrossover).
import { classifyGpuFailure, isDeviceFailure, probeAdapter } from '../../gpu/device.js';
import { PROBE_BUDGET_MS, browserVersion, createCrossoverStore, crossoverKey, probeDeclined } from '../../gpu/crossover-probe.js';
import { apiChecked, captureApiCall } from '../api-checked.js';
import { ENTRIES } from '../registry.js';
import { anyGpuCrossoverMeasured, crossoverState } from '../gpu-crossover.js';
import { plan, planGpuCall, shapesOf } from '../planner.js';
import { measureCrossover, scheduleIdle } from './auto-probe.js';
import { stackBackend } from './compose.js';
import { withDeviceLossFallback } from './device-loss.js';
import { loadWebGpuBackend } from './webgpu.js';

/**
 * The backend 'auto' runs on: `cpu` itself when there is no usable adapter (or, with gpuProbe false,
 * nothing was ever measured), otherwise a routing backend over `cpu` and a lazily created webgpu backend.
 * @param {object} cpu the loaded WASM backend (or the JS reference, when WASM could not load)
 * @param {{gpu?: GPU, powerPreference?: GPUPowerPreference, gpuCrossover?: {thresholdN: number|null}, gpuProbe?: boolean,
 *   crossoverStore?: object}} [options]
 * @returns {Promise<object>}
 */
export async function loadAutoBackend(cpu, options = {}) {
  // Where the adapter comes from ([navigator.gpu], its power preference): all the device side reads.
  const request = { gpu: options.gpu, powerPreference: options.powerPreference };
  const routing = await autoRouting({
    crossover: options.gpuCrossover,
    probe: options.gpuProbe,
    store: options.crossoverStore,
    findAdapter: () => probeAdapter(request),
    loadGpuBackend: (adapter, thresholdN) => loadWebGpuBackend({ ...request, adapter, gpuCrossover: { thresholdN } }),
  });
  return routing ? stackBackend(cpu, [routing]) : cpu;
}

/**
 * The routing layer 'auto' puts over its CPU side, or null where no call could go to the GPU: nothing
 * measured (committed or stored in this browser), nothing forced and no probing (then no adapter is asked
 * for: where a browser has none, asking makes Chromium log "No available adapters." on every page load), or
 * no usable adapter (no navigator.gpu, no adapter, limits too small: the CPU side, as without WebGPU).
 * @param {{crossover?: {thresholdN: number|null}, probe?: boolean, store?: object,
 *   findAdapter: () => Promise<{adapter: GPUAdapter, adapterInfo: object}>,
 *   loadGpuBackend: (adapter: GPUAdapter, thresholdN: number|null) => Promise<object>}} gpu
 *   crossover, probe: loadAttention's gpuCrossover and gpuProbe; findAdapter: the adapter probe (device.js
 *   probeAdapter), asked once; loadGpuBackend: the webgpu backend on that adapter (webgpu.js loadWebGpuBackend)
 * @returns {Promise<import('./compose.js').Layer|null>}
 */
export async function autoRouting({ crossover, probe = true, store = createCrossoverStore(), findAdapter, loadGpuBackend }) {
  const probing = probe !== false;
  if (!probing && !crossover && !anyGpuCrossoverMeasured() && !store.hasAny()) return null;
  const found = await findAdapter().catch(() => null);
  if (!found) return null;
  return routingLayer({
    adapterInfo: found.adapterInfo,
    forced: crossover ?? null,
    probe: probing,
    store,
    loadGpuBackend: (thresholdN) => loadGpuBackend(found.adapter, thresholdN),
  });
}

// ---- The routing backend: each call to the CPU backend or to the GPU side ----------------------------

/** The webgpu backend's name (webgpu.js): what a call routed to the GPU side runs on until it is loaded. */
const GPU_BACKEND_NAME = 'webgpu';

/** Where the crossover is null from the committed record (or none) and nothing is measured: plain CPU calls. */
const plainCpu = (decision) => decision.thresholdN === null && (decision.source === 'committed' || decision.source === 'none');

/**
 * The GPU side: the webgpu backend over its device-loss wrapper, loaded on first need. Once it cannot go
 * on (no device, or a loss the wrapper reports), fallbackReason says why and every call stays on the CPU.
 */
function gpuSideOf(cpu, loadGpu) {
  let pending = null; // Promise of { gpu, routed }: the webgpu backend and its device-loss wrapper
  const side = {
    loaded: null, // what `pending` resolved to, once it has
    fallbackReason: null,
    listeners: new Set(),
    usable: () => side.fallbackReason === null,
    giveUp(reason) {
      if (side.fallbackReason) return;
      side.fallbackReason = reason;
      for (const listener of side.listeners) listener({ backend: cpu.name, reason });
    },
    load(thresholdN) {
      pending ??= loadGpu(thresholdN).then((routed) => {
        routed.onBackendChange(({ reason }) => side.giveUp(reason));
        side.loaded = { gpu: routed.gpu, routed };
        return side.loaded;
      }, (error) => {
        // No device (or none usable): the CPU from now on. Anything else is a bug in loading the backend: raised.
        if (!isDeviceFailure(error)) throw error;
        side.giveUp(`WebGPU is unavailable: ${error?.message ?? error}; now on ${cpu.name}`);
        return null;
      });
      return pending;
    },
  };
  return side;
}

/** The backend `cpu` under the routing layer (routingLayer) of `gpuSide`. */
export function createRoutingBackend(cpu, gpuSide) {
  return stackBackend(cpu, [routingLayer(gpuSide)]);
}

/**
 * The routing layer over `cpu` (the CPU side: WASM, threaded or not, or the JS reference).
 * @param {{adapterInfo: object, loadGpu?: (thresholdN: number|null) => Promise<object>,
 *   loadGpuBackend?: (thresholdN: number|null) => Promise<object>, thresholdN?: number|null,
 *   forced?: {thresholdN: number|null}|null, probe?: boolean, store?: object, browser?: string,
 *   schedule?: (task: () => void) => void, now?: () => number, budgetMs?: number}} gpuSide
 *   `loadGpuBackend`: the webgpu backend, which the layer puts under its device-loss fallback to `cpu`
 *   (device-loss.js), or `loadGpu`: the two together; `thresholdN` (or `forced`) forces the crossover; `probe`
 *   [true] allows the in-browser probe; `store` [createCrossoverStore()] keeps the records; `schedule`
 *   [scheduleIdle] and `now` [performance.now] run and time it; `budgetMs` [PROBE_BUDGET_MS] bounds it (tests on
 *   a loaded machine give more)
 * @returns {import('./compose.js').Layer} a layer whose backend's `name` and `build` are those of the backend
 *   that answered the last call, with `lastCall` ({fn, backend, path, reason, threads}) saying where the last
 *   call went and why, and `gpuCrossover`, `setGpuCrossover(n|null)`, `clearGpuCrossover()`, `probing` (a
 *   Promise while measuring)
 */
export function routingLayer({
  adapterInfo, loadGpu, loadGpuBackend, thresholdN, forced = thresholdN !== undefined ? { thresholdN } : null, probe = true,
  store = createCrossoverStore(), browser = browserVersion(), schedule = scheduleIdle, now = () => performance.now(),
  budgetMs = PROBE_BUDGET_MS,
}) {
  return (cpu) => {
    const gpuSide = gpuSideOf(cpu, loadGpu ?? (async (n) => withDeviceLossFallback(await loadGpuBackend(n), async () => cpu)));
    // The probe times the webgpu backend itself, not its device-loss wrapper: without a usable device it fails.
    const probeGpu = async () => {
      const side = await gpuSide.load(null);
      if (!side || !gpuSide.usable()) throw new Error(gpuSide.fallbackReason ?? 'WebGPU is unavailable');
      return side.gpu;
    };
    const measure = () => measureCrossover(cpu, probeGpu, { now, budgetMs });
    const key = crossoverKey(adapterInfo, browser); // where this adapter's record is stored in this browser
    const probeAllowed = probe && probeDeclined(adapterInfo) === null; // an emulated adapter is never probed
    const crossover = crossoverState(adapterInfo, { forced, probeAllowed, store, key, budgetMs });
    const plainAtLoad = plainCpu(crossover.decision()) && !probeAllowed;
    let last = cpu;
    let lastCall = null;

    /**
     * Where a call goes now, with no side effect: {to: 'cpu', reason}, {to: 'plain'} (exactly the CPU backend),
     * {to: 'gpu', reason, thresholdN} (above the crossover: the GPU side, whose supportsOp has the last word),
     * or {startsProbe: true}: the call would schedule the probe first (and then run on the CPU side).
     */
    const decide = (fn, args) => {
      if (!gpuSide.usable()) return { to: 'cpu', reason: gpuSide.fallbackReason };
      if (ENTRIES[fn].paths.includes('webgpu') && crossover.mayProbe()) return { startsProbe: true };
      const current = crossover.decision();
      if (current.source === 'probing') return { to: 'cpu', reason: current.reason };
      if (plainCpu(current)) return { to: 'plain' };
      const decision = planGpuCall(fn, args, current.thresholdN);
      // A forced crossover is no measurement: the planner's words alone; otherwise the record that decided first.
      const reason = current.source === 'forced' ? decision.reason
        : current.thresholdN === null ? current.reason : `${current.reason}; ${decision.reason}`;
      // !decision.gpu includes malformed arguments: the CPU backend's error says why
      return decision.gpu ? { to: 'gpu', reason, thresholdN: current.thresholdN } : { to: 'cpu', reason };
    };

    /**
     * The name of the backend this call would run on now (decide, and the GPU side's supportsOp once it is
     * loaded): the API checks the call's memory on that backend's path (api.js), not on the last call's.
     */
    const backendFor = (fn, args) => {
      const where = decide(fn, args);
      if (where.to !== 'gpu') return cpu.name;
      if (!gpuSide.loaded) return GPU_BACKEND_NAME;
      try {
        const options = ENTRIES[fn].options ? args[args.length - 1] : {};
        return gpuSide.loaded.gpu.supportsOp(fn, shapesOf(fn, args), options).supported ? gpuSide.loaded.gpu.name : cpu.name;
      } catch {
        return cpu.name; // arguments the check refuses anyway
      }
    };

    // lastCall: the planner's path on the CPU side (or a threaded cpu's own record), with why the GPU was not used.
    const onCpu = (fn, args, reason) => {
      const result = cpu[fn](...args);
      last = cpu;
      const onCpuSide = cpu.lastCall?.fn === fn && cpu.lastCall.path ? cpu.lastCall : plan(fn, args, { name: cpu.name });
      lastCall = { fn, backend: cpu.name, path: onCpuSide.path, reason, threads: onCpuSide.threads ?? 1 };
      return result;
    };
    /** Exactly the CPU backend: its own lastCall (or none, for the API's planner record). */
    const plain = (fn, args) => {
      const result = cpu[fn](...args);
      last = cpu;
      lastCall = cpu.lastCall ?? null;
      return result;
    };
    /** Above the crossover: a Promise, as every webgpu result is; the GPU side's supportsOp has the last word. */
    const onGpu = (fn, args, { reason, thresholdN }) => {
      const shapes = shapesOf(fn, args);
      const options = ENTRIES[fn].options ? args[args.length - 1] : {};
      // A GPU side that failed to load for a bug (not a missing device) rejects the call, naming it.
      const loading = gpuSide.load(thresholdN).catch((error) => { throw classifyGpuFailure(fn, error, null); });
      // The GPU call, once the side has loaded, is still the call the API checked; a call sent back to the CPU side
      // here is too where the API budgeted it for the CPU (the side was loaded and refused it: backendFor), else
      // it is checked there.
      const resume = captureApiCall();
      const budgetedOnCpu = apiChecked(fn, cpu.name);
      return loading.then(async (side) => {
        if (!side || !gpuSide.usable()) return onCpu(fn, args, gpuSide.fallbackReason);
        const answer = side.gpu.supportsOp(fn, shapes, options);
        if (!answer.supported) return budgetedOnCpu ? resume(() => onCpu(fn, args, answer.reason)) : onCpu(fn, args, answer.reason);
        const result = await resume(() => side.routed[fn](...args));
        last = side.routed.name === side.gpu.name ? side.gpu : cpu; // the wrapper repeats a call that met a loss on cpu
        lastCall = last === cpu
          ? { fn, backend: cpu.name, path: plan(fn, args, { name: cpu.name }).path, reason: gpuSide.fallbackReason, threads: 1 }
          : { fn, backend: last.name, path: 'webgpu', reason, threads: 1 };
        return result;
      });
    };
    const route = (fn, args) => {
      let where = decide(fn, args);
      if (where.startsProbe) {
        crossover.startProbe(measure, schedule);
        where = decide(fn, args); // the crossover is being measured: this call runs on the CPU side
      }
      if (where.to === 'cpu') return onCpu(fn, args, where.reason);
      if (where.to === 'plain') return plain(fn, args);
      return onGpu(fn, args, where);
    };

    // Where nothing can go to the GPU at load, 'auto' is exactly the CPU backend, which has no backend changes.
    const changes = plainAtLoad ? {} : {
      /** @param {(change: {backend: string, reason: string}) => void} listener @returns {() => void} unsubscribe */
      onBackendChange(listener) {
        gpuSide.listeners.add(listener);
        return () => gpuSide.listeners.delete(listener);
      },
    };
    // Forwarded to cpu (compose.js): threads, threadsReason, memory and compact() (the WASM module's; the GPU side
    // holds no WASM memory), dispose().
    return {
      inner: () => cpu,
      route,
      overrides: {
        get name() { return last.name; },
        get build() { return last.build ?? null; },
        get fallbackReason() { return gpuSide.fallbackReason; },
        get lastCall() { return lastCall; },
        backendFor,
        /** {thresholdN, source, reason}: the crossover routing uses now (gpuCrossoverDecision). */
        get gpuCrossover() { return crossover.decision(); },
        /** A Promise of the probe's record while it runs (null when it failed), else null. */
        get probing() { return crossover.probing; },
        setGpuCrossover: (value) => crossover.set(value),
        clearGpuCrossover: () => crossover.clear(),
        ...changes,
      },
    };
  };
}
