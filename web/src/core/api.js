// The layer between callers and a backend, derived from the registry (registry.js). For every function it
// checks what only JS can see (tensor objects, option names and types), adds the batch axis to unbatched
// (T, C) input, fills every default, runs the function's one check (reference/checks.js: shapes, sizes,
// values, memory on the planned path) before any backend sees the call, asks the planner which path runs
// it, calls the backend with the normalised arguments as a checked call (api-checked.js), records
// `lastCall` and removes the batch axis from the results again. A backend (WASM, WebGPU, the JS reference) then
// only computes: the WASM binding runs no check of its own on such a call.
import { CHECKS } from './reference/checks.js';
import { checkKnownKeys } from './reference/check-helpers.js';
import { outsideApiCall, whileApiChecked } from './api-checked.js';
import { ENTRIES, FUNCTION_NAMES, REGISTRY } from './registry.js';
import { checkOption, MEMORY_LIMIT_BYTES, withMemoryBudget } from './registry-checks.js';
import { ApiError, fail } from './registry-errors.js';
import { checkResults } from './registry-results.js';
import { defaultIntermediates, INTERMEDIATES_LIMIT, plan } from './planner.js';
import { addBatchAxis, checkTensorStructure, dropBatchAxis, snapshotTensor } from './tensor.js';

export { FUNCTION_NAMES, INTERMEDIATES_LIMIT };

/**
 * Per function: its arguments as [name, kind, keys], its options ({name: spec}) and the results that carry
 * the batch axis — a view of the registry for the callers that read it this way.
 */
export const FUNCTIONS = Object.fromEntries(REGISTRY.map((entry) => [entry.name, {
  args: entry.args.map(({ name, kind, keys }) => (keys ? [name, kind, keys] : [name, kind])),
  options: entry.options ?? undefined,
  batched: Object.entries(entry.results).filter(([, result]) => result.batched).map(([name]) => name),
}]));

const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value);

/**
 * Checks a weights object's keys and the structure of each tensor in it; returns a copy without the
 * absent (undefined or null) entries, so no backend has to tell "absent" from "null".
 */
function normalizeWeights(fn, name, weights, keys) {
  if (!isPlainObject(weights)) {
    const required = keys.filter((key) => !key.endsWith('Bias') && !key.startsWith('out'));
    fail(fn, 'type', name, weights, `an object {${required.join(', ')}, …}`);
  }
  checkKnownKeys(fn, name, weights, keys);
  const present = {};
  for (const [key, given] of Object.entries(weights)) {
    if (given === undefined || given === null) continue;
    const value = key === 'heads' ? given : snapshotTensor(given);
    if (key === 'heads') {
      if (!Array.isArray(value) || value.length === 0) {
        fail(fn, 'type', `${name}.heads`, value, 'an array of H ≥ 1 heads {query, key, value, …}');
      }
      present.heads = value.map((head, h) => normalizeWeights(fn, `${name}.heads[${h}]`, head, HEAD_KEYS));
    } else {
      checkTensorStructure(fn, `${name}.${key}`, value);
      present[key] = value;
    }
  }
  return present;
}

const HEAD_KEYS = ENTRIES.multiheadAttentionSplit.args[1].keys.filter((key) => !key.startsWith('out'));

/** Every option name known, every value checked as the caller passed it, every default filled. */
function normalizeOptions(fn, options, declared, weights, args) {
  if (options === undefined || options === null) options = {};
  if (!isPlainObject(options)) fail(fn, 'type', 'options', options, 'an object');
  checkKnownKeys(fn, 'options', options, Object.keys(declared));
  const complete = {};
  for (const [name, spec] of Object.entries(declared)) {
    let value = spec.type === 'mask' || spec.type === 'tensor' ? snapshotTensor(options[name]) : options[name];
    if (value === undefined) {
      // H given by weights.heads; `intermediates` by the planner, from the sizes and the heads before it.
      if (spec.defaultFrom === 'heads') value = weights?.heads?.length ?? spec.default;
      else if (spec.defaultFrom === 'planner') value = defaultIntermediates(args, complete.heads, fn);
      else value = spec.default;
    }
    checkOption(fn, name, spec, value);
    complete[name] = value;
  }
  return complete;
}

/** A sequence argument: rank 3 passes, rank 2 gets B = 1; reports whether it was unbatched. */
function normalizeSequence(fn, { name, axes }, value, dtype) {
  checkTensorStructure(fn, name, value, dtype);
  const rank = value.shape.length;
  const batchedRank = axes.length;
  if (rank !== batchedRank && rank !== batchedRank - 1) {
    fail(fn, 'shape', name, value.shape,
      `rank ${batchedRank} (${axes.join(', ')}) or rank ${batchedRank - 1} (${axes.slice(1).join(', ')})`);
  }
  const unbatched = rank === batchedRank - 1;
  // A size of 0 is reported in the caller's own shape, not the one with B added.
  const zero = value.shape.indexOf(0);
  if (zero >= 0) fail(fn, 'shape', name, value.shape, `every size ≥ 1 (${axes[zero + (unbatched ? 1 : 0)]}=0)`);
  return unbatched ? { tensor: addBatchAxis(value), unbatched: true } : { tensor: value, unbatched: false };
}

/**
 * The check's Error about an unbatched sequence, in the caller's own shape: the check saw it with B = 1 added
 * ("tokens has shape [1]", not "[1, 1]"). Any other error is returned as it is. `args` are the normalised ones.
 */
function inCallersShape(fn, args, error) {
  if (!(error instanceof ApiError) || error.kind !== 'shape') return error;
  const index = ENTRIES[fn].args.findIndex(({ name, kind }) => name === error.argument && (kind === 'sequence' || kind === 'tokens'));
  return index < 0 ? error : new ApiError({ ...error, value: args[index].shape.slice(1) });
}

/**
 * Normalises the arguments of `fn` as declared in FUNCTIONS.
 * Returns { args: [...] for the backend, unbatched: whether the caller's sequences lacked B }.
 */
export function normalizeArguments(fn, callArgs) {
  const spec = ENTRIES[fn];
  const args = [];
  let unbatched = null;
  let weights;
  spec.args.forEach((arg, index) => {
    const { name, kind, keys } = arg;
    // Every tensor as a snapshot (snapshotTensor): what is checked here is what the backend runs on.
    const value = kind === 'weights' ? callArgs[index] : snapshotTensor(callArgs[index]);
    if (kind === 'sequence' || kind === 'tokens') {
      const sequence = normalizeSequence(fn, arg, value, kind === 'tokens' ? 'int32' : 'float32');
      if (unbatched !== null && unbatched !== sequence.unbatched) {
        fail(fn, 'shape', name, value.shape, `it batched like ${spec.args[0].name} (both (B, T, C) or both (T, C))`);
      }
      unbatched = sequence.unbatched;
      args.push(sequence.tensor);
    } else if (kind === 'tensor') {
      checkTensorStructure(fn, name, value);
      args.push(value);
    } else {
      weights = normalizeWeights(fn, name, value, keys);
      args.push(weights);
    }
  });
  if (spec.options) {
    const options = normalizeOptions(fn, callArgs[spec.args.length], spec.options, weights, args);
    // Options that carry B (keyPaddingMask (Tk), xValue (Tk, d_xv)) get it with the sequences.
    if (unbatched) {
      for (const [name, optionSpec] of Object.entries(spec.options)) {
        if (optionSpec.batchAxis && options[name] !== null) options[name] = addBatchAxis(options[name]);
      }
    }
    args.push(options);
  }
  else if (callArgs.length > spec.args.length && callArgs[spec.args.length] !== undefined) {
    const names = spec.args.map((arg) => arg.name);
    fail(fn, 'arity', 'options', callArgs.length,
      `${names.length} argument${names.length > 1 ? 's' : ''} (${names.join(', ')}) and no options`);
  }
  return { args, unbatched: unbatched === true };
}

/** Removes the batch axis that normalizeArguments added, from the results that carry one. */
function finishResults(fn, results, unbatched) {
  if (!unbatched) return results;
  const finished = { ...results };
  for (const name of FUNCTIONS[fn].batched) {
    if (finished[name]) finished[name] = dropBatchAxis(finished[name]);
  }
  return finished;
}

/**
 * The bytes a WASM backend copies into its heap for these arguments: every tensor's values as 4-byte
 * numbers (a Uint8Array mask crosses as float32), in the tensors, the weights objects and the options.
 */
export function inputBytesOf(values, depth = 0) {
  let bytes = 0;
  for (const value of values) {
    if (value === null || typeof value !== 'object' || depth > 3) continue;
    if (ArrayBuffer.isView(value.data)) bytes += 4 * value.data.length;
    else bytes += inputBytesOf(Array.isArray(value) ? value : Object.values(value), depth + 1);
  }
  return bytes;
}

/**
 * The arguments with the planned path in their options (`options.path`, 'fused' or 'teaching'), for a function
 * that has both: the WASM binding and the JS reference run that path (their rule only asserts it).
 */
function withPlannedPath(fn, args, path) {
  if (!ENTRIES[fn].paths.includes('fused') || (path !== 'fused' && path !== 'teaching')) return args;
  return [...args.slice(0, -1), { ...args[args.length - 1], path }];
}

/** What `attention.memory` reports for a backend without a WASM module of its own (js, webgpu). */
const NO_MODULE_MEMORY = Object.freeze({ bytes: 0, peak: 0 });

/**
 * Wraps a backend ({ name, build?, <fn>(...normalisedArgs) }) into the Attention object of index.d.ts:
 * one method per API function, plus `backend`, `build`, `fallbackReason`, `lastCall`, `threads`,
 * `threadsReason` and `dispose()`. These are read from the backend on every access, so a backend that
 * switches under the API (WebGPU falling back to WASM when its device is lost: backends/device-loss.js
 * withDeviceLossFallback; 'auto' routing each call: backends/auto.js) is reported as it is now; its
 * `onBackendChange(listener)` is passed through.
 *
 * `lastCall` is {fn, backend, path, reason, threads} after every call: the planner's answer (planner.js)
 * for the backend that ran it. A backend that routes calls itself (workers, 'auto' over WebGPU) reports
 * its own decision as `backend.lastCall`, taken from the same planner.
 */
export function createAttention(backend, {
  fallbackReason = null, threadsReason = null, noGpuReason = null, memoryLimit = MEMORY_LIMIT_BYTES,
} = {}) {
  let lastCall = null;
  const attention = {
    /**
     * {bytes, peak} of the calling thread's WASM module (peak: the most it ever held, across compact()),
     * and `workers: [{bytes, peak}]` where a pool runs; {bytes: 0, peak: 0} for the js and webgpu backends.
     */
    get memory() {
      return backend.memory ?? NO_MODULE_MEMORY;
    },
    /** Re-instantiates the WASM modules (this thread's and the workers') to give their memory back. */
    compact() {
      return Promise.resolve(backend.compact?.()).then(() => undefined);
    },
    /** The memory limit every call is checked against, inputs' copies included (loadAttention's memoryLimit). */
    get memoryLimit() {
      return memoryLimit;
    },
    /** Workers in use (backends/threads.js), or 1: every call on the calling thread. */
    get threads() {
      return backend.threads ?? 1;
    },
    get threadsReason() {
      return backend.threadsReason ?? threadsReason;
    },
    /** Terminates the workers, if any; later calls run on the calling thread. */
    dispose() {
      backend.dispose?.();
    },
    get backend() {
      return backend.name;
    },
    get build() {
      return backend.build ?? null;
    },
    get fallbackReason() {
      return backend.fallbackReason ?? fallbackReason;
    },
    get lastCall() {
      return lastCall;
    },
  };
  if (typeof backend.onBackendChange === 'function') attention.onBackendChange = (listener) => backend.onBackendChange(listener);
  // 'auto': the GPU crossover it routes by (backends/auto.js), or, without a usable adapter, why there is none.
  if (typeof backend.setGpuCrossover === 'function') {
    Object.defineProperty(attention, 'gpuCrossover', { get: () => backend.gpuCrossover, enumerable: true });
    attention.setGpuCrossover = (thresholdN) => backend.setGpuCrossover(thresholdN);
    attention.clearGpuCrossover = () => backend.clearGpuCrossover();
  } else if (noGpuReason) {
    attention.gpuCrossover = Object.freeze({ thresholdN: null, source: 'none', reason: noGpuReason });
    attention.setGpuCrossover = (thresholdN) => {
      if (thresholdN !== null && !(Number.isInteger(thresholdN) && thresholdN > 0)) {
        throw new Error(`setGpuCrossover: thresholdN=${typeof thresholdN === 'string' ? `'${thresholdN}'` : String(thresholdN)}; expected a positive integer or null`);
      }
    };
    attention.clearGpuCrossover = () => {};
  }
  /**
   * What the backend reports for this call (one that routes calls itself: workers, 'auto'), or the plan the
   * call was run with.
   */
  const record = (fn, planned) => {
    const routed = backend.lastCall;
    if (routed && routed.fn === fn && routed.path) return { threads: 1, ...routed };
    return { fn, backend: backend.name, path: planned.path, reason: planned.reason, threads: 1 };
  };
  for (const fn of FUNCTION_NAMES) {
    const check = CHECKS[fn];
    attention[fn] = (...callArgs) => {
      const { args, unbatched } = normalizeArguments(fn, callArgs);
      // The memory check counts the copies a WASM backend makes of the inputs (memoryRoom: it has a module)
      // and the room its module has left, so a call that would not fit is refused before anything is allocated.
      // The estimate follows the path of the backend that runs this call: 'auto' says which it routes it to
      // (backendFor), which need not be the one that answered the last call (`name`).
      const room = backend.memoryRoom;
      let target = null; // asked once, where the check needs it or once it has passed (the arguments are sound)
      const runsOn = () => (target ??= backend.backendFor?.(fn, args) ?? backend.name);
      const budget = room
        ? { limit: memoryLimit, inputBytes: inputBytesOf(args), room: () => backend.memoryRoom() ?? Infinity, backend: runsOn }
        : { limit: memoryLimit, inputBytes: 0, backend: runsOn };
      // The one check of the call, every value included (in full even where this call is made from inside
      // another's): the backend it was budgeted for then runs it unchecked (api-checked.js).
      let sizes;
      try {
        sizes = outsideApiCall(() => withMemoryBudget(budget, () => check(...args)));
      } catch (error) {
        throw unbatched ? inCallersShape(fn, args, error) : error;
      }
      if (typeof backend[fn] !== 'function') throw new Error(`${fn}: the ${backend.name} backend does not provide ${fn}`);
      // Plan first, then run: the backend is handed the path (a backend that routes calls itself plans again,
      // with its workers or its GPU, and reports its own lastCall).
      const planned = plan(fn, args, { name: backend.name });
      const results = whileApiChecked(() => backend[fn](...withPlannedPath(fn, args, planned.path)), { fn, sizes, backend: runsOn() });
      lastCall = record(fn, planned);
      // No result is silently NaN or ±∞ (registry-results.js); finding the stage may run the backend again, on
      // the path planned for the diagnosis's own arguments.
      const run = (name, again) => backend[name](...withPlannedPath(name, again, plan(name, again, { name: backend.name }).path));
      // WebGPU and the workers answer with a Promise; the normalised result then comes as a Promise too,
      // and lastCall is read again once it settles ('auto' decides on the GPU side only then).
      if (results && typeof results.then === 'function') {
        return results.then((value) => {
          lastCall = record(fn, planned);
          const call = lastCall;
          const restore = () => { lastCall = call; }; // the diagnosis's own run is not the caller's call
          let checked;
          try {
            checked = checkResults(fn, args, value, run);
          } catch (error) {
            restore();
            throw error;
          }
          return Promise.resolve(checked).then((done) => finishResults(fn, done, unbatched)).finally(restore);
        });
      }
      const call = lastCall;
      try {
        const checked = checkResults(fn, args, results, run);
        return checked && typeof checked.then === 'function' ? checked.then((value) => finishResults(fn, value, unbatched)) : finishResults(fn, checked, unbatched);
      } finally {
        lastCall = call;
      }
    };
  }
  return Object.freeze(attention);
}
