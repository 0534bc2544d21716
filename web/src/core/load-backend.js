// Builds the backend loadAttention's plan (index.js planLoad) names, from the plan's values, in one pass down:
// the engine (backends/wasm.js, backends/webgpu.js or the JS reference), then the layers over it, in order (the
// threads, 'auto''s routing, or WebGPU's device-loss fallback), stacked in one place (backends/compose.js); and
// says why it is not another. Engines and layers are imported on demand, so a page that only uses the JS
// reference never loads WebAssembly, and a missing WebGPU never breaks a CPU-only browser.
//   'js'                                  the JS reference, on the main thread
//   'wasm', 'wasm-simd', 'wasm-baseline'  exactly that WASM build (failing to load it is an Error), with the
//                                         workers `threads` asks for
//   'auto'                                WASM, else the JS reference (fallbackReason), with its workers; where
//                                         navigator.gpu gives an adapter, routed per call over it and WebGPU
//   'webgpu'                              WebGPU, moving to WASM (else the reference) when its device is lost; with
//                                         no adapter or device, WASM (else the reference), with fallbackReason
// The adapter is probed once (gpu/device.js probeAdapter), here, and handed to the engine or layer that uses it.
import { isDeviceFailure, probeAdapter } from '../gpu/device.js';
import { stackBackend } from './backends/compose.js';
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
  // Why the engine asked for does not answer ('auto' and 'webgpu' fall back; 'wasm' raises instead).
  const reasons = [];
  /** The CPU engine: the plan's WASM build, else (but for 'wasm') the JS reference, with the reason pushed onto `why`. */
  const loadCpu = async (why) => {
    try {
      const { loadWasmBackend } = await import('./backends/wasm.js');
      return await loadWasmBackend(plan.wasm);
    } catch (error) {
      if (plan.engine === 'wasm') throw error;
      why.push(`WebAssembly could not load: ${reasonOf(error)}`);
      return loadReference();
    }
  };
  let engine = null;
  const layers = [];

  // 1. 'webgpu': the WebGPU engine on the adapter, under its device-loss layer, whose CPU side (one thread) is
  // loaded when the device is lost. Its module failing to load, or no adapter or device: the CPU engine, with
  // the reason; any other error is a bug in loading the backend, and is raised.
  if (plan.engine === 'webgpu') {
    let webgpu = null;
    try {
      webgpu = await import('./backends/webgpu.js');
    } catch (error) {
      reasons.push(`WebGPU is unavailable: its module could not load: ${reasonOf(error)}`);
    }
    try {
      if (webgpu) {
        const { adapter } = await probeAdapter();
        engine = await webgpu.loadWebGpuBackend({ adapter, gpuCrossover: plan.gpu.crossover });
      }
    } catch (error) {
      if (!isDeviceFailure(error)) throw new Error(`loadAttention: backend 'webgpu' failed to load (a bug, not a missing GPU): ${error?.message ?? error}`, { cause: error });
      reasons.push(`WebGPU is unavailable: ${reasonOf(error)}`);
    }
    if (engine) {
      // A device lost later (driver reset, device.destroy()) moves the calls to WASM; see device-loss.js.
      const { deviceLossLayer } = await import('./backends/device-loss.js');
      layers.push(deviceLossLayer(() => loadCpu([])));
    }
  }

  // 2. The CPU engine, where no GPU engine answers.
  engine ??= await loadCpu(reasons);
  const fallbackReason = plan.engine === 'wasm' || !reasons.length ? null : reasons.join('; ');

  // 3. The threads layer, where the plan asks for workers (not 'webgpu') and the engine is WASM: a pool of
  // `count` workers (backends/threads.js), or one thread with the reason: threads 1, 'auto' on a page that is
  // not cross-origin isolated, no Worker (Node), workers that cannot start (file://, CSP, a module that fails
  // to load). The fallback to one thread is silent: the caller reads `threads` and `threadsReason`.
  let threadsReason = plan.engine === 'webgpu' ? WEBGPU_THREADS_REASON : null;
  if (plan.threads) {
    const { count, reason } = plan.threads;
    if (!engine.build) {
      threadsReason = `the ${engine.name} backend runs on the main thread`;
    } else if (count < 2) {
      threadsReason = reason;
    } else {
      try {
        const { threadsLayer } = await import('./backends/threads.js');
        const { pool } = await startWorkerPool(count, {
          build: engine.build,
          binaryUrl: plan.wasm.locateFile?.(`attention-${engine.build}.wasm`, GLUE_DIRECTORY),
          wasmBinary: plan.wasm.wasmBinary,
          memoryLimit: plan.wasm.memoryLimit,
        });
        layers.push(threadsLayer(pool));
      } catch (error) {
        threadsReason = `the workers could not start (${reasonOf(error)}); one thread`;
      }
    }
  }

  // 4. 'auto': the routing layer over the CPU side and WebGPU (backends/auto.js), on the adapter probed here;
  // the adapter probe (and the WebGPU modules) only where there is a navigator.gpu to ask.
  let noGpuReason;
  if (plan.engine === 'auto' && !globalThis.navigator?.gpu) {
    noGpuReason = 'this environment has no WebGPU (navigator.gpu is undefined): every call runs on WASM';
  } else if (plan.engine === 'auto') {
    const [{ autoRouting }, { loadWebGpuBackend }] = await Promise.all([import('./backends/auto.js'), import('./backends/webgpu.js')]);
    const routing = await autoRouting({
      crossover: plan.gpu.crossover,
      probe: plan.gpu.probe,
      findAdapter: () => probeAdapter(),
      loadGpuBackend: (adapter, thresholdN) => loadWebGpuBackend({ adapter, gpuCrossover: { thresholdN } }),
    });
    if (routing) layers.push(routing);
    noGpuReason = plan.gpu.probe === false && !plan.gpu.crossover
      ? 'gpuProbe is false and no GPU crossover was measured for any adapter kind: every call runs on WASM'
      : 'no usable WebGPU adapter (none offered, or its limits are too small): every call runs on WASM';
  }

  return { backend: stackBackend(engine, layers), reasons: { fallbackReason, threadsReason, noGpuReason } };
}

async function loadReference() {
  const { createReferenceBackend } = await import('./reference/index.js');
  return createReferenceBackend();
}
