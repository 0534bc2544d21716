// Loads the engine loadAttention's plan (index.js planLoad) names, from the plan's values, and says why it
// is not another. Backends are imported on demand, so a page that only uses the JS reference never loads
// WebAssembly, and a missing WebGPU never breaks a CPU-only browser.
//   'js'                                  the JS reference, on the main thread
//   'wasm', 'wasm-simd', 'wasm-baseline'  exactly that WASM build (failing to load it is an Error), with the
//                                         workers `threads` asks for
//   'auto'                                WASM, else the JS reference (fallbackReason), with its workers; where
//                                         navigator.gpu is, routed per call over it and WebGPU (backends/auto.js)
//   'webgpu'                              WebGPU, moving to WASM (else the reference) when its device is lost; with
//                                         no adapter or device, WASM (else the reference), with fallbackReason
// The CPU side is loaded first and the GPU side over it; for 'webgpu' the CPU side is loaded only when needed.
import { GLUE_DIRECTORY } from './backends/wasm-builds.js';
import { startWorkerPool } from './backends/worker-pool.js';

/** 'webgpu' ignores `threads`, also when it falls back to WASM: one backend, one thread. */
const WEBGPU_THREADS_REASON = "backend 'webgpu' does not use workers";

const reasonOf = (error) => (error instanceof Error ? error.message : String(error));

/**
 * The backend `plan.engine` names, and the reasons for the API's getters ({fallbackReason, threadsReason,
 * noGpuReason}): why another backend answers, why one thread, why no GPU.
 * @param {Readonly<object>} plan planLoad's answer
 * @returns {Promise<{backend: object, reasons: object}>}
 */
export async function loadBackend(plan) {
  if (plan.engine === 'js') return { backend: await loadReference(), reasons: { threadsReason: 'the js backend runs on the main thread' } };
  // Why the backend asked for does not answer ('auto' and 'webgpu' fall back; 'wasm' raises instead).
  const reasons = plan.engine === 'auto' || plan.engine === 'webgpu' ? [] : null;

  // 1. 'webgpu': the GPU backend, over a CPU side loaded when its device is lost. No adapter or device: on.
  const gpu = plan.engine === 'webgpu' ? await loadWebGpu(plan, reasons) : null;
  if (gpu) return { backend: gpu, reasons: { threadsReason: WEBGPU_THREADS_REASON } };

  // 2. The CPU side: WASM ('webgpu': the build 'auto' takes, on one thread), else the JS reference where
  // `reasons` allows; 'auto' and 'wasm' may add workers.
  const cpu = await loadCpuBackend(plan.wasm, { build: plan.build, reasons, threads: plan.threads });
  if (plan.engine === 'webgpu') return { backend: cpu.backend, reasons: { fallbackReason: cpu.fallbackReason, threadsReason: WEBGPU_THREADS_REASON } };
  const cpuReasons = { fallbackReason: cpu.fallbackReason, threadsReason: cpu.threadsReason };
  if (plan.engine !== 'auto') return { backend: cpu.backend, reasons: cpuReasons };

  // 3. 'auto': routed per call over the CPU side and WebGPU; the adapter probe (and the WebGPU modules) only
  // where there is a navigator.gpu to ask.
  if (!globalThis.navigator?.gpu) {
    return { backend: cpu.backend, reasons: { ...cpuReasons, noGpuReason: 'this environment has no WebGPU (navigator.gpu is undefined): every call runs on WASM' } };
  }
  const { loadAutoBackend } = await import('./backends/auto.js');
  return {
    backend: await loadAutoBackend(cpu.backend, { gpuCrossover: plan.gpu.crossover, gpuProbe: plan.gpu.probe }),
    reasons: {
      ...cpuReasons,
      noGpuReason: plan.gpu.probe === false && !plan.gpu.crossover
        ? 'gpuProbe is false and no GPU crossover was measured for any adapter kind: every call runs on WASM'
        : 'no usable WebGPU adapter (none offered, or its limits are too small): every call runs on WASM',
    },
  };
}

async function loadReference() {
  const { createReferenceBackend } = await import('./reference/index.js');
  return createReferenceBackend();
}

/**
 * 'webgpu': the GPU backend with its device-loss fallback (webgpu.js loadWebGpuOverCpu: WASM, else the
 * reference, on one thread, loaded when needed), or null with the reason pushed onto `reasons`: its module
 * could not load, or no adapter or device. Any other error is a bug in loading the backend, and is raised.
 */
async function loadWebGpu(plan, reasons) {
  let webgpu;
  try {
    webgpu = await import('./backends/webgpu.js');
  } catch (error) {
    reasons.push(`WebGPU is unavailable: its module could not load: ${reasonOf(error)}`);
    return null;
  }
  try {
    // A device lost later (driver reset, device.destroy()) moves the calls to WASM; see device-loss.js.
    return await webgpu.loadWebGpuOverCpu({ gpuCrossover: plan.gpu.crossover }, async () => (await loadCpuBackend(plan.wasm, { build: 'auto', reasons: [], threads: null })).backend);
  } catch (error) {
    if (!webgpu.isDeviceFailure(error)) throw new Error(`loadAttention: backend 'webgpu' failed to load (a bug, not a missing GPU): ${error?.message ?? error}`, { cause: error });
    reasons.push(`WebGPU is unavailable: ${reasonOf(error)}`);
    return null;
  }
}

/**
 * The CPU side: the WASM build `build` (found through `wasm`: {wasmBinary, locateFile, memoryLimit}), else
 * (where `reasons` is an array: why the backend asked for was not used) the JS reference. With `threads`
 * (the plan's {count, reason}; null: none), a pool of `count` workers (backends/threads.js), or one thread
 * with the reason: threads 1, 'auto' on a page that is not cross-origin isolated, no Worker
 * (Node), workers that cannot start (file://, CSP, a module that fails to load). The fallback to one thread
 * is silent: the caller reads `threads` and `threadsReason`.
 * @returns {Promise<{backend: object, fallbackReason: string|null, threadsReason: string|null}>}
 */
async function loadCpuBackend(wasm, { build, reasons, threads }) {
  let cpu;
  try {
    const { loadWasmBackend } = await import('./backends/wasm.js');
    cpu = await loadWasmBackend({ build, ...wasm });
  } catch (error) {
    if (!reasons) throw error;
    reasons.push(`WebAssembly could not load: ${reasonOf(error)}`);
    const { createReferenceBackend } = await import('./reference/index.js');
    cpu = createReferenceBackend();
  }
  const fallbackReason = reasons?.length ? reasons.join('; ') : null;
  if (threads === null) return { backend: cpu, fallbackReason, threadsReason: null };
  if (!cpu.build) return { backend: cpu, fallbackReason, threadsReason: `the ${cpu.name} backend runs on the main thread` };
  const { count, reason } = threads;
  if (count < 2) return { backend: cpu, fallbackReason, threadsReason: reason };
  try {
    const { createThreadedBackend } = await import('./backends/threads.js');
    const { pool } = await startWorkerPool(count, {
      build: cpu.build,
      binaryUrl: wasm.locateFile?.(`attention-${cpu.build}.wasm`, GLUE_DIRECTORY),
      wasmBinary: wasm.wasmBinary,
      memoryLimit: wasm.memoryLimit,
    });
    return { backend: createThreadedBackend(cpu, pool), fallbackReason, threadsReason: null };
  } catch (error) {
    return { backend: cpu, fallbackReason, threadsReason: `the workers could not start (${reasonOf(error)}); one thread` };
  }
}
