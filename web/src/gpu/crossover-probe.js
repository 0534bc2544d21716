// The GPU/WASM crossover measured in the visitor's own browser.
//
// crossover.json holds what the project measured on the adapters it had (SwiftShader, a CPU emulation,
// where WASM wins at every size). A real GPU is different on every machine, so the first time a call
// could go to the GPU, a short probe times our GEMM and fused attention on this adapter against WASM at a
// few sizes and stores the answer in the browser under a key of the adapter and the browser's version
// (a new browser, a new driver string: measured again). The router then decides from that record
// (web/src/core/gpu-crossover.js gpuCrossoverDecision, which also puts it in words).
//
// Nothing here touches the DOM or a device: the timings come from two functions the caller gives
// (the real backends in the browser, fake ones in the tests), and the store is any Storage-like object.

/** Everything the probe may spend, pipeline compiles and warm-up calls included. */
export const PROBE_BUDGET_MS = 300;

/** Prefix of the browser-storage keys; one record per adapter and browser version. */
export const STORAGE_PREFIX = 'attention-playground:crossover:';

/**
 * The workloads, smallest first. A GEMM of (n, n)·(n, n) and a causal fused attention of T = n queries
 * (d = 64, 4 heads): both are n³-ish in work, so one "n" compares them with the router's rule (a call goes
 * to the GPU when it does at least thresholdN³ multiply-adds).
 */
export const PROBE_SIZES = [128, 256, 512, 1024];
export const PROBE_WORKLOADS = ['matmul', 'attention'];

/**
 * The browser part of the key: the engine's major.minor.build from the user agent (Chrome/156.0.8078.73),
 * or the whole user agent when it names no engine we know.
 * @param {string} [userAgent]
 */
export function browserVersion(userAgent = globalThis.navigator?.userAgent ?? '') {
  const match = /(Chrome|Firefox|Version)\/([\d.]+)/.exec(userAgent);
  return match ? `${match[1]}/${match[2]}` : userAgent || 'unknown browser';
}

/**
 * The storage key of an adapter: vendor, architecture, device and description, plus the browser version.
 * @param {{vendor?: string, architecture?: string, device?: string, description?: string}} adapterInfo
 * @param {string} browser e.g. browserVersion()
 */
export function crossoverKey(adapterInfo, browser) {
  const { vendor = '', architecture = '', device = '', description = '' } = adapterInfo ?? {};
  return `${STORAGE_PREFIX}${[vendor, architecture, device, description, browser].join('|')}`;
}

/**
 * Why this adapter is never probed, or null when it may be. SwiftShader and fallback adapters run WebGPU
 * on the CPU: the committed record for them stands, and probing them would only slow the page.
 * @param {{emulated?: boolean}} adapterInfo describeAdapter's result (emulated covers both cases)
 */
export function probeDeclined(adapterInfo) {
  if (adapterInfo?.emulated) return 'a CPU-emulated adapter (SwiftShader or a fallback adapter) is never probed';
  return null;
}

/**
 * A crossover store over a Storage-like object (localStorage by default). Every access is guarded: where
 * storage is refused (a sandboxed embed, a privacy mode) the store holds nothing and says why in `error`.
 * @param {Pick<Storage, 'getItem'|'setItem'|'removeItem'|'key'|'length'>|null} [storage]
 */
export function createCrossoverStore(storage = defaultStorage()) {
  let error = storage ? null : 'this context has no browser storage';
  const guarded = (action, fallback) => {
    if (!storage) return fallback;
    try {
      return action();
    } catch (caught) {
      error = `browser storage refused: ${caught?.message ?? caught}`;
      return fallback;
    }
  };
  return {
    get error() { return error; },
    /** @returns {CrossoverRecord|null} */
    get(key) {
      const text = guarded(() => storage.getItem(key), null);
      if (text === null) return null;
      try {
        const record = JSON.parse(text);
        return isRecord(record) ? record : null;
      } catch {
        return null; // a record from an older version, or edited by hand: measure again
      }
    },
    /** @param {string} key @param {CrossoverRecord} record */
    set(key, record) {
      guarded(() => storage.setItem(key, JSON.stringify(record)), undefined);
    },
    /** True when some adapter's record is stored (measured or set in this browser). */
    hasAny() {
      return guarded(() => Array.from({ length: storage.length }, (_, i) => storage.key(i))
        .some((name) => name?.startsWith(STORAGE_PREFIX)), false);
    },
    /** Removes one adapter's record, or (no key) every crossover record this page stored. */
    clear(key) {
      guarded(() => {
        const keys = key ? [key] : Array.from({ length: storage.length }, (_, i) => storage.key(i))
          .filter((name) => name?.startsWith(STORAGE_PREFIX));
        for (const name of keys) storage.removeItem(name);
      }, undefined);
    },
  };
}

function defaultStorage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // reading localStorage itself throws in an opaque-origin frame
  }
}

/**
 * @typedef {{thresholdN: number|null, rows: ProbeRow[], measuredAt: string, spentMs: number,
 *   complete: boolean, source: 'probe'|'set'}} CrossoverRecord
 * @typedef {{workload: string, n: number, gpuMs: number, wasmMs: number}} ProbeRow
 */
function isRecord(value) {
  return value !== null && typeof value === 'object' && Array.isArray(value.rows) &&
    (value.thresholdN === null || (Number.isInteger(value.thresholdN) && value.thresholdN > 0));
}

/**
 * Times each workload at each size on the GPU and on WASM, smallest first, within the budget; the first
 * GPU call of a workload compiles its pipelines and is not counted as a timing (it is counted against the
 * budget, and a workload starts only while a quarter of the budget is left). A size is measured only while the time already spent plus the last size's cost scaled by 8
 * (n³) fits in the budget, so a slow GPU ends the probe early rather than overrunning it.
 *
 * The crossover is the smallest n from which the GPU is faster at every larger measured n, for every
 * workload; null when it never is (WASM wins at every size the budget reached).
 * @param {{time: (backend: 'gpu'|'wasm', workload: string, n: number) => Promise<number>,
 *   now?: () => number, budgetMs?: number, sizes?: number[], workloads?: string[]}} probe
 *   `time` runs one call and returns its milliseconds (the caller measures it as it likes)
 * @returns {Promise<CrossoverRecord>}
 */
export async function probeCrossover({ time, now = () => performance.now(), budgetMs = PROBE_BUDGET_MS,
  sizes = PROBE_SIZES, workloads = PROBE_WORKLOADS }) {
  const start = now();
  const spent = () => now() - start;
  const rows = [];
  let complete = true;
  for (const workload of workloads) {
    // A workload's first GPU call compiles its pipelines; start one only with a quarter of the budget left.
    if (spent() > budgetMs * 0.75) {
      complete = false;
      break;
    }
    await time('gpu', workload, sizes[0]); // pipeline compile and first upload: not a timing
    let lastCost = 0;
    for (const n of sizes) {
      if (spent() + lastCost * 8 > budgetMs) {
        complete = false;
        break;
      }
      const before = now();
      const gpuMs = await time('gpu', workload, n);
      const wasmMs = await time('wasm', workload, n);
      lastCost = now() - before;
      rows.push({ workload, n, gpuMs, wasmMs });
    }
  }
  return { thresholdN: crossoverOf(rows), rows, measuredAt: new Date().toISOString(), spentMs: spent(), complete, source: 'probe' };
}

/**
 * The smallest n at which the GPU wins every workload at that n and every larger measured n; null when
 * there is none.
 * @param {ProbeRow[]} rows
 */
export function crossoverOf(rows) {
  const sizes = [...new Set(rows.map((row) => row.n))].sort((a, b) => a - b);
  const gpuWinsAt = (n) => rows.filter((row) => row.n === n).every((row) => row.gpuMs < row.wasmMs);
  let threshold = null;
  for (let i = sizes.length - 1; i >= 0 && gpuWinsAt(sizes[i]); i--) threshold = sizes[i];
  return threshold;
}
