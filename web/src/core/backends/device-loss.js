// The WebGPU device-loss fallback: a layer over the webgpu backend whose calls move to another (WASM) when
// the device is lost or fails (out of memory, internal error), the call that met the failure included. What
// backend 'webgpu' answers with (load-backend.js), and what 'auto' routes its GPU calls through (auto.js).
import { isDeviceFailure } from '../../gpu/device.js';
import { stackBackend } from './compose.js';

/** The webgpu backend `gpu` under its device-loss layer (deviceLossLayer). */
export function withDeviceLossFallback(gpu, loadFallback) {
  return stackBackend(gpu, [deviceLossLayer(loadFallback)]);
}

/**
 * The layer over the webgpu backend by which a lost device loses neither the call nor the page's state: the
 * call that meets the loss (or a device failure: out of memory, internal error; device.js isDeviceFailure), and
 * every later one, runs on the backend `loadFallback()` gives (WASM, loaded once, on first need). Any other
 * error (bad arguments, a GpuKernelError: a bug in the kernels) reaches the caller and switches nothing.
 * `name`, `build` and `fallbackReason` are live, so the API object (and the page's backend badge) say which
 * backend answered and why; `onBackendChange(listener)` tells when it switches.
 * @param {() => Promise<object>} loadFallback loads the backend to switch to
 * @returns {import('./compose.js').Layer} a layer over the backend of loadWebGpuBackend
 */
export function deviceLossLayer(loadFallback) {
  return (gpu) => {
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

    // Once switched, a call runs on the fallback at once, as the call the API checked and budgeted for it; the call
    // that met the failure, or one made while the fallback loads, runs on it after an await (checked there).
    const route = async (fn, args) => {
      if (current === gpu) {
        if (switching) {
          await switching;
          return current[fn](...args);
        }
        try {
          return await gpu[fn](...args);
        } catch (error) {
          if (!isDeviceFailure(error)) throw error;
          await switchOver(error);
        }
      }
      return current[fn](...args);
    };
    // Every registry function of the webgpu backend through `route`; forwarded to the backend answering now
    // (compose.js): name, build, memory (none on the GPU; the WASM module's once switched), compact().
    return {
      functions: gpu,
      route,
      inner: () => current,
      overrides: {
        get fallbackReason() { return fallbackReason; },
        // One thread, and no record of its own: the API plans each call (api.js) on the backend answering now.
        lastCall: null,
        threads: 1,
        threadsReason: null,
        gpu,
        /** @param {(change: {backend: string, reason: string}) => void} listener @returns {() => void} unsubscribe */
        onBackendChange(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
    };
  };
}
