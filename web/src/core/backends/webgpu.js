// The WebGPU backend: the API functions of docs/api.md with all matrix work (projections, Q·Kᵀ, softmax,
// weights·V, output projection, matmul) in WGSL compute shaders (web/src/gpu/). The functions registered
// gpu: 'reference' are the JS reference's own: the steps without matrix work (nextTokenPairs,
// causalAverageLoop, compare, attentionDropout), and the backwards and scaledDotProductAttention, whose
// matrix work no pass here takes (their registry `gpuReason` says so).
// Arguments are validated with the reference's checks, so the error messages are the same words.
//
// Every method is async (GPU results come back through mapAsync). Calls run one at a time: a pass owns
// the device's error scopes from its first kernel to its read-back.
//
// A lost device (driver reset, device.destroy()) makes `lost` resolve and the onLost listeners run; every
// later call rejects with a GpuUnavailableError whose reason is 'device-lost', so the API can switch to
// WASM and repeat the call with the same arguments: no state lives here. Out of memory and internal errors
// are GpuUnavailableErrors too ('out-of-memory', 'internal-error'). Any other failure inside a pass (a WGSL
// validation error, a JS exception) is a bug: it rejects with a GpuKernelError naming the function, and
// nothing falls back (device.js).
import { acquireDevice, classifyGpuFailure, GpuKernelError, GpuUnavailableError, isDeviceFailure } from '../../gpu/device.js';
import { GpuRuntime, HEAD_DIM_LIMIT } from '../../gpu/runtime.js';
import * as passes from '../../gpu/attention-passes.js';
import * as checks from '../reference/checks.js';
import { createReferenceBackend } from '../reference/index.js';
import { gpuCrossover } from '../gpu-crossover.js';
import { gpuFootprint, gpuReferenceReason, prefersGpu, shapesOf, whyReferenceOnGpu } from '../planner.js';
import { ENTRIES, REGISTRY } from '../registry.js';
import { withDeviceLossFallback } from './device-loss.js';
import { checkedOnce } from '../api-checked.js';

export { GpuKernelError, GpuUnavailableError, isDeviceFailure, withDeviceLossFallback };

const FLOAT_BYTES = 4;

/** The functions that run on the GPU (registry.js gpu: 'kernels'); the others are the reference's. */
export const GPU_FUNCTIONS = REGISTRY.filter((entry) => entry.gpu === 'kernels').map((entry) => entry.name);

/**
 * Acquires a device and returns the backend. Rejects with a GpuUnavailableError (reason 'no-navigator-gpu',
 * 'no-adapter', 'adapter-request-failed', 'device-request-failed' or 'limits-too-small') when there is none.
 * `adapter`: one probeAdapter already gave; `gpuCrossover: {thresholdN}` replaces the measured crossover
 * in `prefersGpu` (tests; planner.js prefersGpu).
 * @param {{gpu?: GPU, powerPreference?: GPUPowerPreference, adapter?: GPUAdapter, gpuCrossover?: {thresholdN: number|null}}} [options]
 */
export async function loadWebGpuBackend(options = {}) {
  // The device request reads only where the adapter comes from; the crossover is this backend's own.
  const { device, adapterInfo } = await acquireDevice({ gpu: options.gpu, powerPreference: options.powerPreference, adapter: options.adapter });
  const thresholdN = options.gpuCrossover ? options.gpuCrossover.thresholdN : gpuCrossover(adapterInfo);
  // SwiftShader runs the GEMM without workgroup-memory staging (3× faster there; see gemm.wgsl.js).
  const runtime = new GpuRuntime(device, { stagedGemm: !adapterInfo.emulated });
  // The teaching steps' pipelines compile while the page starts; a failure here shows up on first use.
  runtime.warmUp(runtime.teachingSpecs()).catch(() => {});
  const reference = createReferenceBackend();
  const listeners = new Set();
  let lostError = null;

  const lost = device.lost.then((info) => {
    lostError = new GpuUnavailableError('device-lost',
      `WebGPU: the device was lost (${info.reason ?? 'unknown'}${info.message ? `: ${info.message}` : ''}); switch to a WASM backend`);
    for (const listener of listeners) listener(lostError);
    return lostError;
  });

  // One call at a time; a failure does not block the calls queued after it.
  let queue = Promise.resolve();
  const serialized = (work) => {
    const result = queue.then(work);
    queue = result.catch(() => {});
    return result;
  };

  /** Runs a GPU pass; if the device went away under it, the error says so; a bug is a GpuKernelError naming fn. */
  const onGpu = (fn, work) => serialized(async () => {
    if (lostError) throw lostError;
    try {
      return await work();
    } catch (error) {
      // device.lost resolves a moment after the failure it causes.
      await Promise.race([lost, new Promise((done) => setTimeout(done, 50))]);
      throw classifyGpuFailure(fn, error, lostError);
    }
  });

  function supportsOp(fn, shapes, callOptions = {}) {
    if (lostError) return { supported: false, reason: lostError.message };
    if (!GPU_FUNCTIONS.includes(fn)) {
      return reference[fn] ? { supported: true, reason: gpuReferenceReason(fn) }
        : { supported: false, reason: `webgpu: unknown function ${fn}` };
    }
    // attnMask, keyPaddingMask, xValue, torch's dropout: the JS reference computes the call (gpuMethod), as the CPU would
    const onReference = whyReferenceOnGpu(callOptions);
    if (onReference) return { supported: true, reason: `${onReference}; the JS reference computes it` };
    const { largest, matrices, headDim } = gpuFootprint(fn, shapes, callOptions);
    if (largest * FLOAT_BYTES > runtime.maxBindingBytes) {
      return { supported: false, reason: `webgpu: ${fn} needs a ${largest * FLOAT_BYTES}-byte buffer; this device binds at most ${runtime.maxBindingBytes} bytes` };
    }
    if (matrices > runtime.maxGroups) {
      return { supported: false, reason: `webgpu: ${fn} batches ${matrices} matrices; this device dispatches at most ${runtime.maxGroups}` };
    }
    if (callOptions.intermediates === false && headDim > HEAD_DIM_LIMIT) {
      return { supported: true, reason: `d_head=${headDim} exceeds the fused kernel's ${HEAD_DIM_LIMIT}; the unfused kernels run instead` };
    }
    return { supported: true };
  }

  /** Refuses, before any GPU work, a call the device cannot hold (the reference's checks already ran). */
  const ensureSupported = (fn, args, callOptions) => {
    const answer = supportsOp(fn, shapesOf(fn, args), callOptions);
    if (!answer.supported) throw new Error(answer.reason);
  };

  const gpuMethod = (fn, check, run) => async (...args) => {
    const sizes = checkedOnce(fn, () => check(...args));
    const callOptions = ENTRIES[fn].options ? args[args.length - 1] : {};
    if (whyReferenceOnGpu(callOptions)) return reference[fn](...args);
    ensureSupported(fn, args, callOptions);
    return onGpu(fn, () => run(runtime, ...args, sizes));
  };
  // The reference's own steps; after a loss they still work (no GPU), but the API should switch anyway.
  const referenceMethod = (fn) => async (...args) => reference[fn](...args);

  return {
    name: 'webgpu',
    adapter: adapterInfo,
    device,
    /** Resolves with a GpuUnavailableError('device-lost') when the device is lost. */
    lost,
    isLost: () => lostError !== null,
    /** @param {(error: GpuUnavailableError) => void} listener @returns {() => void} unsubscribe */
    onLost(listener) {
      listeners.add(listener);
      if (lostError) queueMicrotask(() => listener(lostError));
      return () => listeners.delete(listener);
    },
    supportsOp,
    /** @param {string} fn @param {number[][]} shapes @param {object} [callOptions] */
    prefersGpu: (fn, shapes, callOptions = {}) => prefersGpu(fn, shapes, callOptions, thresholdN),
    destroy: () => device.destroy(),

    // One method per registry function: its GPU passes (gpu: 'kernels') or the reference's own step.
    ...Object.fromEntries(REGISTRY.map(({ name, gpu }) => [name,
      gpu === 'kernels' ? gpuMethod(name, checks.CHECKS[name], passes[name]) : referenceMethod(name)])),
  };
}

/**
 * The webgpu backend over a CPU side: loadWebGpuBackend(options), wrapped so that a lost device moves its
 * calls to the backend `loadFallback()` gives (device-loss.js withDeviceLossFallback): what backend 'webgpu'
 * is (load-backend.js puts the same layer over it), for a page that loads the two itself.
 */
export async function loadWebGpuOverCpu(options, loadFallback) {
  const gpu = await loadWebGpuBackend(options);
  return withDeviceLossFallback(gpu, loadFallback);
}
