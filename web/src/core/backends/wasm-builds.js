// The two Emscripten builds of the core, for the main thread (wasm.js) and the workers (worker-module.js).
// Both are named with static strings so a bundler (Vite) sees and ships the glue modules and their .wasm
// files as assets. No bare imports here: a module worker has no import map.

export const GLUE_MODULES = {
  simd: () => import('../wasm/attention-simd.mjs'),
  baseline: () => import('../wasm/attention-baseline.mjs'),
};

export const BINARY_URLS = {
  simd: new URL('../wasm/attention-simd.wasm', import.meta.url),
  baseline: new URL('../wasm/attention-baseline.wasm', import.meta.url),
};

/** The builds' folder: the prefix a caller's locateFile(path, prefix) is given for a worker's .wasm file. */
export const GLUE_DIRECTORY = new URL(/* @vite-ignore */ '../wasm/', import.meta.url).href;
