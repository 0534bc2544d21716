// The backends every cross-backend spec runs against, each loaded once per suite through the public
// entry point, loadAttention. In Node the WASM backend reads its own .wasm bytes (backends/wasm.js).
// AP_BACKENDS=js,wasm-simd narrows the list while developing; the default is all of them.
import { loadAttention } from '../../web/src/core/index.js';

export const ALL_BACKENDS = ['js', 'wasm-simd', 'wasm-baseline'];

export const BACKENDS = process.env.AP_BACKENDS ? process.env.AP_BACKENDS.split(',') : ALL_BACKENDS;

/**
 * Per-backend tolerance |actual − expected| ≤ atol + rtol·|expected| for the fixtures (a case may
 * widen it itself). All of them are float32 CPU backends, so all hold the contract's 1e-5.
 */
export const TOLERANCE = {
  js: { atol: 1e-5, rtol: 1e-5 },
  'wasm-simd': { atol: 1e-5, rtol: 1e-5 },
  'wasm-baseline': { atol: 1e-5, rtol: 1e-5 },
};

const loaded = new Map();

/** The Attention object for a backend name, loaded on first use and shared afterwards. */
export function attentionFor(name) {
  if (!loaded.has(name)) loaded.set(name, loadAttention({ backend: name }));
  return loaded.get(name);
}
