// The GPU crossover of an adapter: the n from which a call doing n³ multiply-adds is faster on WebGPU than on
// WASM, and which measurement says so. The planner routes by the figure (planner.js planGpuCall); this file
// says which figure applies: forced, set, measured in this browser (web/src/gpu/crossover-probe.js keeps
// those records), being measured, or committed (web/src/gpu/crossover.json). Words for `lastCall.reason` and
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
