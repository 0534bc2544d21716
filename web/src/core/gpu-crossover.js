// The GPU crossover of an adapter: the n from which a call doing n³ multiply-adds is faster on WebGPU than on
// WASM, and which measurement says so. The planner routes by the figure (planner.js planGpuCall); this file
// says which figure applies (gpuCrossoverDecision): forced, set, measured in this browser
// (web/src/gpu/crossover-probe.js keeps those records), being measured, or committed
// (web/src/gpu/crossover.json); and it holds, for one adapter on a page, what that is decided from as it
// changes (crossoverState: the API sets or clears it, the probe measures it). Words for `lastCall.reason` and
// the page's badge come with it. No WebGPU here: it runs in Node too.
import crossover from '../gpu/crossover.json' with { type: 'json' };

/**
 * The GPU crossover for an adapter and where it comes from, first found wins: `override` (a crossover
 * forced through loadAttention's gpuCrossover option, source 'forced', or set through
 * attention.setGpuCrossover, source 'set') > `stored` (the record measured in this browser for this
 * adapter and browser version, web/src/gpu/crossover-probe.js; source 'stored', or 'set' when the API set
 * it) > `probing` (that measurement is under way, within `probeBudgetMs`: null meanwhile) > the
 * committed crossover.json record for the adapter's kind ('swiftshader' or 'hardware') when it was
 * measured (source 'committed') > null (source 'none'). `reason` names the measurement that decided
 * (describeRecord).
 * @param {{emulated: boolean, label?: string}} adapter
 * @param {{override?: {thresholdN: number|null, source: 'forced'|'set'}|null, stored?: object|null, probing?: boolean, probeBudgetMs?: number|null}} [known]
 * @returns {{thresholdN: number|null, source: 'forced'|'set'|'stored'|'committed'|'probing'|'none', reason: string}}
 */
export function gpuCrossoverDecision(adapter, { override = null, stored = null, probing = false, probeBudgetMs = null } = {}) {
  const label = adapter?.label || 'this adapter';
  if (override?.source === 'forced') {
    return { thresholdN: override.thresholdN, source: 'forced', reason: `the crossover forced through loadAttention's gpuCrossover option (thresholdN ${override.thresholdN ?? 'null'})` };
  }
  if (override) return { thresholdN: override.thresholdN, source: 'set', reason: describeRecord({ ...override, source: 'set' }, label) };
  if (stored) return { thresholdN: stored.thresholdN, source: stored.source === 'set' ? 'set' : 'stored', reason: describeRecord(stored, label) };
  if (probing) {
    const probe = probeBudgetMs === null ? 'a probe' : `a probe of at most ${probeBudgetMs} ms`;
    return { thresholdN: null, source: 'probing', reason: `the GPU crossover for ${label} is being measured (${probe} in idle time); WASM meanwhile` };
  }
  const kind = adapter?.emulated ? 'swiftshader' : 'hardware';
  const committed = crossover[kind];
  if (committed?.rows?.length) {
    const when = committed.provenance?.measuredAt?.slice(0, 10) ?? 'an unknown date';
    const verdict = committed.thresholdN === null ? 'WASM was faster at every size measured' : `the GPU was faster from n=${committed.thresholdN}`;
    return { thresholdN: committed.thresholdN, source: 'committed', reason: `the crossover committed for ${kind === 'swiftshader' ? 'SwiftShader (CPU-emulated) adapters' : 'hardware adapters'} in crossover.json, measured on ${when}: ${verdict}` };
  }
  return { thresholdN: null, source: 'none', reason: `no GPU crossover measured for ${label}` };
}

/**
 * Words for `lastCall.reason` and the page's badge: which measurement decided (a record of
 * web/src/gpu/crossover-probe.js: measured there, or set through the API).
 * @param {{thresholdN: number|null, measuredAt?: string, source: 'probe'|'set'}} record @param {string} adapterLabel
 */
export function describeRecord(record, adapterLabel) {
  const when = record.measuredAt?.slice(0, 10) ?? 'an unknown date';
  if (record.source === 'set') return `the crossover set for ${adapterLabel} (thresholdN ${record.thresholdN ?? 'null'})`;
  const verdict = record.thresholdN === null
    ? 'WASM was faster at every size measured'
    : `the GPU was faster from n=${record.thresholdN}`;
  return `measured in this browser on ${adapterLabel} on ${when}: ${verdict}`;
}

/**
 * The crossover n for an adapter: a call doing at least n³ multiply-adds is faster on the GPU; null:
 * never measured, or WASM won at every size. See gpuCrossoverDecision for the order it is looked up in;
 * without `known`, the committed figure for the adapter's kind (web/src/gpu/crossover.json).
 * @param {{emulated: boolean}} adapter @param {Parameters<typeof gpuCrossoverDecision>[1]} [known] @returns {number|null}
 */
export function gpuCrossover(adapter, known) {
  return gpuCrossoverDecision(adapter, known).thresholdN;
}

/** True when some adapter kind has a measured crossover, i.e. when knowing the adapter could route a call to it. */
export function anyGpuCrossoverMeasured() {
  return Object.values(crossover).some((record) => record?.thresholdN != null);
}

/**
 * The crossover of one adapter that 'auto' routes by on this page (backends/auto.js), and what changes it:
 * `decision()` is gpuCrossoverDecision over what is known now (forced > set or measured > being measured >
 * committed); `set` and `clear` are attention.setGpuCrossover and clearGpuCrossover; `startProbe` runs the
 * in-browser probe once and stores its record.
 * @param {{emulated: boolean, label?: string}} adapterInfo device.js describeAdapter's result
 * @param {{forced: {thresholdN: number|null}|null, probeAllowed: boolean, store: object, key: string, budgetMs: number}} known
 *   forced: loadAttention's gpuCrossover; probeAllowed: whether this adapter may be probed on this page;
 *   store: the records (crossover-probe.js createCrossoverStore), this adapter's under `key`
 *   (crossover-probe.js crossoverKey); budgetMs: the probe's budget, for the words while it runs
 */
export function crossoverState(adapterInfo, { forced, probeAllowed, store, key, budgetMs }) {
  let override = forced ? { thresholdN: forced.thresholdN, source: 'forced' } : null;
  let record = store.get(key); // this adapter's stored record, kept here too for when storage refuses it
  let probing = null; // Promise of the probe while it runs
  let probeFailed = null; // why the probe of this page failed (not tried again until cleared)
  return {
    get probing() { return probing; },
    decision() {
      const decision = gpuCrossoverDecision(adapterInfo, { override, stored: record, probing: probing !== null, probeBudgetMs: budgetMs });
      // A probe that failed (no device, or a kernel bug it met) says so, rather than "nothing measured".
      return probeFailed && decision.source === 'none' ? { ...decision, reason: `${probeFailed}; every call runs on WASM` } : decision;
    },
    mayProbe() {
      return probeAllowed && probeFailed === null && probing === null && override === null && record === null;
    },
    /** Runs `measure` when `schedule` says, and stores the record it returns; a failure is kept as the reason. */
    startProbe(measure, schedule) {
      const run = async () => {
        record = await measure();
        store.set(key, record);
        return record;
      };
      probing = new Promise((done) => schedule(() => run().then(done, (error) => {
        probeFailed = `the GPU crossover probe failed: ${error?.message ?? error}`;
        done(null);
      })));
      probing.then(() => { probing = null; });
    },
    set(value) {
      if (value !== null && !(Number.isInteger(value) && value > 0)) {
        throw new Error(`setGpuCrossover: thresholdN=${typeof value === 'string' ? `'${value}'` : String(value)}; expected a positive integer or null`);
      }
      override = null;
      record = { thresholdN: value, rows: [], measuredAt: new Date().toISOString(), spentMs: 0, complete: true, source: 'set' };
      store.set(key, record);
    },
    clear() {
      override = null;
      record = null;
      probeFailed = null;
      store.clear(key);
    },
  };
}
