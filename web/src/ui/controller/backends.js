// The page's backends: one Promise of a loaded Attention object per backend name, loaded when first asked for.
import { loadAttention } from '../../core/index.js';
import { probeSetting } from '../crossover-controls.js';

/** loadOptions(backend): extra loadAttention options (the single-file build passes the inlined wasm bytes). */
export function createBackends(loadOptions) {
  const loaded = new Map(); // backend name → Promise of a loaded Attention object
  return {
    load(name, extra = {}) {
      if (!loaded.has(name)) {
        // One thread and no GPU probe unless the learner turned it on (crossover-controls.js): the page's sizes
        // (T ≤ 32, d ≤ 64) are far below the workers' and any GPU's crossover, so workers would cost every visit
        // two more WASM instances, and asking for an adapter only to measure one would make a browser without a
        // GPU log "No available adapters." on every visit.
        const gpuProbe = name === 'auto' && probeSetting();
        loaded.set(name, loadOptions(name).then((options) => loadAttention({ backend: name, threads: 1, gpuProbe, ...extra, ...options })));
        loaded.get(name).catch(() => loaded.delete(name)); // a failed load may succeed later
      }
      return loaded.get(name);
    },
    /** Drops a loaded backend: the next load builds it again (a changed crossover). */
    forget(name) { loaded.delete(name); },
    /** Whether `name` is loaded or loading. */
    has(name) { return Boolean(loaded.get(name)); },
  };
}
