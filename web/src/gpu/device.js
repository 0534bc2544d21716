// WebGPU device acquisition. Each way it can fail has its own `reason` and message, so the page can say
// why it runs on WASM instead of a generic "WebGPU unavailable". Nothing here asserts: a CPU-only browser
// gets a GpuUnavailableError, which the API turns into a fallback.
//
// Two kinds of failure, and only the first falls back to the CPU:
// - the device is unusable: no adapter or device, the device lost (GPUDevice.lost), out of memory
//   (popErrorScope('out-of-memory')), an internal error (popErrorScope('internal')): a GpuUnavailableError;
// - our own code is wrong: a WGSL or binding validation error (popErrorScope('validation')), a JS exception
//   in the passes: a GpuKernelError naming the function, which reaches the caller (a fallback would hide it).

/** The limits the kernels need (the WebGPU defaults, which every conformant adapter offers). */
export const REQUIRED_LIMITS = {
  maxComputeWorkgroupStorageSize: 16384,
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupSizeX: 256,
  maxComputeWorkgroupSizeY: 16,
  maxStorageBuffersPerShaderStage: 4,
};

export class GpuUnavailableError extends Error {
  /**
   * @param {'no-navigator-gpu'|'no-adapter'|'adapter-request-failed'|'device-request-failed'|'limits-too-small'|'device-lost'|'out-of-memory'|'internal-error'} reason
   * @param {string} message
   */
  constructor(reason, message) {
    super(message);
    this.name = 'GpuUnavailableError';
    this.reason = reason;
  }
}

/** A bug in this project's WebGPU code (validation error, JS exception): never a reason to fall back. */
export class GpuKernelError extends Error {
  /**
   * @param {string} fn the function whose kernels failed (e.g. 'matmul', 'trainer.step')
   * @param {string} message what failed
   * @param {unknown} [cause] the original error
   */
  constructor(fn, message, cause) {
    super(`${fn}: ${message}`, cause === undefined ? undefined : { cause });
    this.name = 'GpuKernelError';
    this.fn = fn;
  }
}

/**
 * True when `error` means the device cannot go on (lost, out of memory, internal error, gone before a
 * call): the one kind of failure that moves work to the CPU.
 * @param {unknown} error
 */
export function isDeviceFailure(error) {
  return error instanceof GpuUnavailableError;
}

/**
 * The error a failed GPU call should raise, given whether its device is lost by now (`lostError`, or null):
 * the loss; a device failure as it is; anything else as a GpuKernelError naming `fn`.
 * @param {string} fn @param {unknown} error @param {GpuUnavailableError|null} lostError
 * @returns {Error}
 */
export function classifyGpuFailure(fn, error, lostError) {
  if (lostError) return lostError;
  if (isDeviceFailure(error) || (error instanceof GpuKernelError && error.fn === fn)) return /** @type {Error} */ (error);
  return new GpuKernelError(fn, `the WebGPU kernels failed (a bug, not a device failure): ${error?.message ?? error}`, error);
}

/**
 * Describes an adapter for the backend badge and the benchmark labels.
 * @param {GPUAdapter} adapter
 * @returns {{vendor: string, architecture: string, device: string, description: string, emulated: boolean, label: string}}
 */
export function describeAdapter(adapter) {
  const info = adapter.info ?? {};
  const vendor = info.vendor ?? '';
  const architecture = info.architecture ?? '';
  const device = info.device ?? '';
  const description = info.description ?? '';
  // SwiftShader is Chromium's CPU implementation of Vulkan: real WebGPU, CPU speed. A fallback adapter (any
  // software one) says so in GPUAdapterInfo.isFallbackAdapter (Chromium 156); older browsers had the attribute
  // on the adapter itself.
  const swiftshader = /swiftshader/i.test(`${vendor} ${architecture} ${description}`);
  const fallback = info.isFallbackAdapter === true || adapter.isFallbackAdapter === true;
  const emulated = swiftshader || fallback;
  const name = [vendor, architecture, description].filter(Boolean).join(' ') || 'unknown adapter';
  const kind = swiftshader ? 'SwiftShader (CPU-emulated)' : 'fallback adapter (CPU-emulated)';
  return { vendor, architecture, device, description, emulated, label: emulated ? `${name} — ${kind}` : name };
}

/**
 * Requests an adapter and checks its limits, without creating a device (cheap: 'auto' probes this at load
 * and asks for a device only when a call is routed to the GPU; backends/auto.js).
 * @param {{gpu?: GPU, powerPreference?: GPUPowerPreference}} [options] `gpu` replaces navigator.gpu (tests)
 * @returns {Promise<{adapter: GPUAdapter, adapterInfo: ReturnType<typeof describeAdapter>}>}
 * @throws {GpuUnavailableError}
 */
export async function probeAdapter(options = {}) {
  const gpu = options.gpu ?? globalThis.navigator?.gpu;
  if (!gpu) {
    throw new GpuUnavailableError('no-navigator-gpu',
      'WebGPU: navigator.gpu is undefined; this browser or context has no WebGPU (Chromium needs a secure context such as https or http://127.0.0.1)');
  }
  let adapter;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: options.powerPreference ?? 'high-performance' });
  } catch (error) {
    throw new GpuUnavailableError('adapter-request-failed', `WebGPU: navigator.gpu.requestAdapter() threw: ${error?.message ?? error}`);
  }
  if (!adapter) {
    throw new GpuUnavailableError('no-adapter',
      'WebGPU: navigator.gpu.requestAdapter() returned null; no GPU adapter is available (blocklisted driver, or GPU disabled)');
  }
  for (const [name, needed] of Object.entries(REQUIRED_LIMITS)) {
    const offered = adapter.limits[name];
    if (!(offered >= needed)) {
      throw new GpuUnavailableError('limits-too-small',
        `WebGPU: adapter limit ${name}=${offered} is below the ${needed} the attention kernels need`);
    }
  }
  return { adapter, adapterInfo: describeAdapter(adapter) };
}

/**
 * Requests an adapter (or takes the one `options.adapter` gives, from probeAdapter) and a device with the
 * limits the kernels need.
 * @param {{gpu?: GPU, powerPreference?: GPUPowerPreference, adapter?: GPUAdapter}} [options] `gpu` replaces navigator.gpu (tests)
 * @returns {Promise<{adapter: GPUAdapter, device: GPUDevice, adapterInfo: ReturnType<typeof describeAdapter>}>}
 * @throws {GpuUnavailableError}
 */
export async function acquireDevice(options = {}) {
  const adapter = options.adapter ?? (await probeAdapter(options)).adapter;
  // Ask for the adapter's full buffer limits: the default 128 MiB binding caps T·T·heads early.
  const requiredLimits = {
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
  };
  let device;
  try {
    device = await adapter.requestDevice({ label: 'attention-playground', requiredLimits });
  } catch (error) {
    throw new GpuUnavailableError('device-request-failed', `WebGPU: adapter.requestDevice() failed: ${error?.message ?? error}`);
  }
  if (!device) {
    throw new GpuUnavailableError('device-request-failed', 'WebGPU: adapter.requestDevice() returned no device');
  }
  return { adapter, device, adapterInfo: describeAdapter(adapter) };
}
