// 'auto' where the browser has WebGPU: each call goes to the GPU when the webgpu backend says it can do
// this op at this size (supportsOp) and that the size is above the crossover for this adapter; every other
// call goes to the CPU backend (WASM SIMD).
//
// The crossover (gpu-crossover.js gpuCrossoverDecision): one forced through loadAttention's gpuCrossover option
// or set through attention.setGpuCrossover > the one measured in this browser for this adapter and browser
// version (web/src/gpu/crossover-probe.js, kept in browser storage) > the committed crossover.json record for
// the adapter's kind > none. On a real (not emulated) adapter with no record, the first call that could go
// to the GPU schedules the probe in idle time (requestIdleCallback, else a timeout) and itself runs on WASM;
// the probe times our GEMM and fused attention on both backends within PROBE_BUDGET_MS (device request and
// pipeline compiles included), stores the record, and later calls are routed by it. SwiftShader and
// fallback adapters are never probed; `gpuProbe: false` turns probing off.
//
// Start-up: the adapter request is all 'auto' pays at load. The device is requested on the first call
// routed to it (or by the probe), never before. Where the crossover is null and nothing is to be measured,
// every call is exactly the CPU backend's (synchronous, its own lastCall).
//
// A lost device (or a device request that fails, or one out of memory) moves every later call to the CPU
// backend; the call that meets the loss is repeated there (withDeviceLossFallback), and `fallbackReason`
// says why. A kernel bug (GpuKernelError, device.js) is raised to the caller and moves nothing.
//
// This file loads 'auto' (loadAutoBackend); the routing backend itself is auto-routing.js.
import { probeAdapter } from '../../gpu/device.js';
import { createCrossoverStore } from '../../gpu/crossover-probe.js';
import { anyGpuCrossoverMeasured } from '../gpu-crossover.js';
import { createRoutingBackend } from './auto-routing.js';
import { loadWebGpuOverCpu } from './webgpu.js';

export { createRoutingBackend, scheduleIdle } from './auto-routing.js';

/**
 * The backend 'auto' runs on: `cpu` itself when there is no usable adapter (or, with gpuProbe false,
 * nothing was ever measured), otherwise a routing backend over `cpu` and a lazily created webgpu backend.
 * @param {object} cpu the loaded WASM backend (or the JS reference, when WASM could not load)
 * @param {{gpu?: GPU, gpuCrossover?: {thresholdN: number|null}, gpuProbe?: boolean, crossoverStore?: object}} [options]
 * @returns {Promise<object>}
 */
export async function loadAutoBackend(cpu, options = {}) {
  const probing = options.gpuProbe !== false;
  const store = options.crossoverStore ?? createCrossoverStore();
  // Nothing measured (committed or stored in this browser), nothing forced, no probing: the answer is WASM
  // whatever the adapter, so do not ask (where a browser has none, asking makes Chromium log "No available
  // adapters." on every page load).
  if (!probing && !options.gpuCrossover && !anyGpuCrossoverMeasured() && !store.hasAny()) return cpu;
  let probe;
  try {
    probe = await probeAdapter(options);
  } catch {
    return cpu; // no navigator.gpu, no adapter, limits too small: the CPU backend, as without WebGPU
  }
  return createRoutingBackend(cpu, {
    adapterInfo: probe.adapterInfo,
    forced: options.gpuCrossover ?? null,
    probe: probing,
    store,
    loadGpu: (thresholdN) => loadWebGpuOverCpu({ ...options, adapter: probe.adapter, gpuCrossover: { thresholdN } }, async () => cpu),
  });
}
