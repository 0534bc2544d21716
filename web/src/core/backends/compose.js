// One composition of backends: a backend made of another (or of several, one answering at a time). The layers
// that decorate an engine — the threads (threads.js: the main thread's WASM and a worker pool), 'auto'
// (auto.js: WASM and WebGPU, routed per call) and the WebGPU device-loss fallback (device-loss.js: WebGPU, then
// WASM) — each say only what they do differently; what a backend shows the API (api.js createAttention) is
// forwarded here, in one place:
//   name, build, fallbackReason, lastCall, threads, threadsReason              read from the inner backend
//   memory, memoryRoom(), compact(), dispose()                                 forwarded to it
//   one method per registry function the inner backend has                      through `route(fn, args)`
//   the inner backend's other methods (heapStats, fastPathInfo, matmulVariant)  with `extras: true`
// `overrides` (an object whose getters and methods replace the forwarded ones) come last.
import { ENTRIES } from '../registry.js';

/** What `memory` reads where the inner backend has no WASM module (js, webgpu). */
const NO_MODULE_MEMORY = Object.freeze({ bytes: 0, peak: 0 });

/**
 * A layer: a function of the backend below it that says what the layer does differently, as the parts of
 * composeBackend.
 * @typedef {(below: object) => LayerParts} Layer
 * @typedef {{inner: () => object, route: (fn: string, args: any[]) => any, functions?: object, extras?: boolean,
 *   overrides?: object}} LayerParts
 *   inner: the backend answering now (read on every access: it may change); route: runs a registry function;
 *   functions: the backend whose registry functions are offered [inner() at composition]; extras: also forward
 *   that backend's non-registry methods, unrouted
 */

/**
 * The backend an engine and its layers make, innermost layer first: what load-backend.js builds, in the
 * order its load plan gives.
 * @param {object} engine @param {Layer[]} layers
 * @returns {object}
 */
export function stackBackend(engine, layers) {
  return layers.reduce((below, layer) => composeBackend(layer(below)), engine);
}

/**
 * @param {LayerParts} parts
 * @returns {object} the composed backend
 */
function composeBackend({ inner, route, functions = inner(), extras = false, overrides = {} }) {
  const backend = {
    get name() { return inner().name; },
    get build() { return inner().build ?? null; },
    get fallbackReason() { return inner().fallbackReason ?? null; },
    get lastCall() { return inner().lastCall ?? null; },
    get threads() { return inner().threads ?? 1; },
    get threadsReason() { return inner().threadsReason ?? null; },
    /** {bytes, peak[, workers]} of the answering backend's module; {bytes: 0, peak: 0} without one. */
    get memory() { return inner().memory ?? NO_MODULE_MEMORY; },
    /** Bytes the answering backend's module can still take, or null where it has none. */
    memoryRoom() { return inner().memoryRoom?.() ?? null; },
    /** Gives the answering backend's grown memory back (a Promise). */
    compact() { return Promise.resolve(inner().compact?.()); },
    dispose() { inner().dispose?.(); },
  };
  for (const [key, value] of Object.entries(functions)) {
    if (typeof value !== 'function' || key in backend) continue;
    if (ENTRIES[key]) backend[key] = (...args) => route(key, args);
    else if (extras) backend[key] = (...args) => inner()[key](...args);
  }
  Object.defineProperties(backend, Object.getOwnPropertyDescriptors(overrides));
  return backend;
}
