// The WebGPU device-loss fallback: a backend over the webgpu backend whose calls move to another (WASM) when
// the device is lost or fails (out of memory, internal error), the call that met the failure included. What
// backend 'webgpu' answers with (webgpu.js loadWebGpuOverCpu), and what 'auto' routes its GPU calls through
// (auto.js).
import { isDeviceFailure } from '../../gpu/device.js';
import { composeBackend } from './compose.js';

/**
 * Wraps the webgpu backend so that a lost device does not lose the call or the page's state: the call that
 * meets the loss (or a device failure: out of memory, internal error; device.js isDeviceFailure), and every
 * later one, runs on the backend `loadFallback()` gives (WASM, loaded once, on first need). Any other error
 * (bad arguments, a GpuKernelError: a bug in the kernels) reaches the caller and switches nothing. `name`, `build` and `fallbackReason` are live, so the API object (and the page's backend badge)
 * say which backend answered and why; `onBackendChange(listener)` tells when it switches.
 * @param {object} gpu the backend of loadWebGpuBackend
 * @param {() => Promise<object>} loadFallback loads the backend to switch to
 */
export function withDeviceLossFallback(gpu, loadFallback) {
  let current = gpu;
  let fallbackReason = null;
  let switching = null;
  const listeners = new Set();

  const switchOver = (error) => {
    switching ??= loadFallback().then((fallback) => {
      current = fallback;
      fallbackReason = `${error.message}; now on ${fallback.name}`;
      for (const listener of listeners) listener({ backend: fallback.name, reason: fallbackReason });
      return fallback;
    });
    return switching;
  };
  gpu.onLost((error) => { switchOver(error).catch(() => {}); });

  const route = async (fn, args) => {
    if (current === gpu) {
      try {
        return await gpu[fn](...args);
      } catch (error) {
        if (!isDeviceFailure(error)) throw error;
        await switchOver(error);
      }
    } else if (switching) {
      await switching;
    }
    return current[fn](...args);
  };
  // Forwarded to the backend answering now (compose.js): name, build, memory (none on the GPU; the WASM
  // module's once switched), compact(); every registry function through `route`.
  const wrapper = composeBackend(() => current, {
    route,
    functions: gpu,
    overrides: {
      get fallbackReason() { return fallbackReason; },
      get lastCall() { return null; },
      get threads() { return 1; },
      get threadsReason() { return null; },
      get gpu() { return gpu; },
      /** @param {(change: {backend: string, reason: string}) => void} listener @returns {() => void} unsubscribe */
      onBackendChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  });
  return wrapper;
}
