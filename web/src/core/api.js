// The layer between callers and a backend. For every function of docs/api.md it checks what only JS can
// see (tensor objects, option names and types), adds the batch axis to unbatched (T, C) input, fills
// every default, calls the backend with the normalised arguments and removes the batch axis from the
// results again. The backends (WASM, WebGPU, the JS reference) then do the semantic checks and the math.
import {
  LAYOUTS, MASK_MODES, NORMALIZATIONS, checkBoolean, checkChoice, checkDropout, checkHeads, checkKnownKeys,
  checkSeed, checkSoftmaxScale, checkTemperature, checkTolerance,
} from './reference/checks.js';
import { addBatchAxis, checkTensorStructure, describeValue, dropBatchAxis, formatShape } from './tensor.js';

// ---- Options: name → [default, check(fn, value)] --------------------------------------------------

const normalization = ['stable', (fn, v) => checkChoice(fn, 'normalization', v, NORMALIZATIONS)];
const dropout = [0, checkDropout];
const seed = [0, checkSeed];
const heads = [1, checkHeads];
/**
 * Up to this many values in each (B, H, Tq, Tk) stage (256 KB), `intermediates` defaults to true: every
 * teaching size (the page's largest is 8·32·32) keeps its stages for the views. Above it, a caller who did
 * not ask for them gets { output } from the fused kernel: O(T·d) memory instead of five (B, H, T, T) stages.
 */
export const INTERMEDIATES_LIMIT = 65_536;
const intermediates = [
  (weights, { args, options }) => stageValues(args, options.heads) <= INTERMEDIATES_LIMIT,
  (fn, v) => checkBoolean(fn, 'intermediates', v),
];

/** B·H·Tq·Tk for normalised (rank-3) arguments: x (B, Tq, ·), and for crossAttention xContext (B, Tk, ·). */
function stageValues(args, heads) {
  const [batch, rows] = args[0].shape;
  const cols = args[1]?.shape?.length === 3 ? args[1].shape[1] : rows;
  return batch * heads * rows * cols;
}

/** multiheadAttentionStacked reads H from its weights; options.heads may only repeat it. */
function checkStackedHeads(fn, value, weights) {
  checkHeads(fn, value);
  const given = weights?.heads?.length;
  if (given !== undefined && value !== given) fail(fn, `options.heads=${value}; expected ${given}, the length of weights.heads`);
}
const attentionOptions = {
  scale: [true, (fn, v) => checkBoolean(fn, 'scale', v)],
  temperature: [1, checkTemperature],
  causal: [false, (fn, v) => checkBoolean(fn, 'causal', v)],
  mask: ['neg_inf', (fn, v) => checkChoice(fn, 'mask', v, MASK_MODES)],
  dropout,
  seed,
};

// ---- The functions: their arguments, options and which results carry the batch axis -------------
// Argument kinds: 'sequence' is (B, T, C), or (T, C) unbatched; 'tokens' is Int32 (B, L), or (L);
// 'tensor' is any float32 tensor, passed as it is; 'weights' is an object of tensors with the given keys.

const PROJECTION_KEYS = ['query', 'key', 'value', 'queryBias', 'keyBias', 'valueBias'];
const OUT_KEYS = ['outWeight', 'outBias'];
const MULTIHEAD_RESULTS = ['query', 'key', 'value', 'scores', 'scaled', 'masked', 'weights', 'dropped', 'context', 'output'];
const SELF_ATTENTION_RESULTS = ['query', 'key', 'value', 'scores', 'scaled', 'masked', 'weights', 'dropped', 'output'];

export const FUNCTIONS = {
  nextTokenPairs: { args: [['tokens', 'tokens']], batched: ['contexts', 'targets'] },
  causalAverageLoop: { args: [['x', 'sequence']], batched: ['output'] },
  causalAverageMatmul: { args: [['x', 'sequence']], batched: ['output'] },
  causalAverageSoftmax: { args: [['x', 'sequence']], batched: ['output'] },
  softmax: {
    args: [['x', 'tensor']],
    options: { normalization, scale: [1, checkSoftmaxScale] },
  },
  attentionWithoutWeights: {
    args: [['x', 'sequence']], options: { normalization }, batched: ['scores', 'weights', 'output'],
  },
  selfAttention: {
    args: [['x', 'sequence'], ['weights', 'weights', PROJECTION_KEYS]],
    options: { layout: ['matrix', (fn, v) => checkChoice(fn, 'layout', v, LAYOUTS)], ...attentionOptions },
    batched: SELF_ATTENTION_RESULTS,
  },
  attentionDropout: { args: [['weights', 'tensor']], options: { dropout, seed } },
  compare: {
    args: [['actual', 'tensor'], ['expected', 'tensor']],
    options: { atol: [1e-5, (fn, v) => checkTolerance(fn, 'atol', v)], rtol: [1e-5, (fn, v) => checkTolerance(fn, 'rtol', v)] },
  },
  multiheadAttentionStacked: {
    args: [['x', 'sequence'], ['weights', 'weights', ['heads', ...OUT_KEYS]]],
    // H is the number of heads given; options.heads may repeat it (the backend checks it agrees).
    options: { ...attentionOptions, heads: [(weights) => weights?.heads?.length ?? 1, checkStackedHeads], intermediates },
    batched: MULTIHEAD_RESULTS,
  },
  multiheadAttentionSplit: {
    args: [['x', 'sequence'], ['weights', 'weights', [...PROJECTION_KEYS, ...OUT_KEYS]]],
    options: { ...attentionOptions, heads, intermediates },
    batched: MULTIHEAD_RESULTS,
  },
  multiheadAttentionFused: {
    args: [['x', 'sequence'], ['weights', 'weights', ['inProjection', 'inBias', ...OUT_KEYS]]],
    options: { ...attentionOptions, heads, intermediates },
    batched: MULTIHEAD_RESULTS,
  },
  crossAttention: {
    args: [['xQuery', 'sequence'], ['xContext', 'sequence'], ['weights', 'weights', [...PROJECTION_KEYS, ...OUT_KEYS]]],
    options: { ...attentionOptions, heads, intermediates },
    batched: MULTIHEAD_RESULTS,
  },
  matmul: {
    args: [['a', 'sequence'], ['b', 'tensor']],
    options: { transposeB: [false, (fn, v) => checkBoolean(fn, 'transposeB', v)] },
    batched: ['output'],
  },
};

/** The names of every API function, in curriculum order. */
export const FUNCTION_NAMES = Object.keys(FUNCTIONS);

function fail(fn, message) {
  throw new Error(`${fn}: ${message}`);
}

const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value);

/**
 * Checks a weights object's keys and the structure of each tensor in it; returns a copy without the
 * absent (undefined or null) entries, so no backend has to tell "absent" from "null".
 */
function normalizeWeights(fn, name, weights, keys) {
  if (!isPlainObject(weights)) {
    const required = keys.filter((key) => !key.endsWith('Bias') && !key.startsWith('out'));
    fail(fn, `${name} is ${describeValue(weights)}; expected an object {${required.join(', ')}, …}`);
  }
  checkKnownKeys(fn, name, weights, keys);
  const present = {};
  for (const [key, value] of Object.entries(weights)) {
    if (value === undefined || value === null) continue;
    if (key === 'heads') {
      if (!Array.isArray(value) || value.length === 0) {
        fail(fn, `${name}.heads is ${describeValue(value)}; expected an array of H ≥ 1 heads {query, key, value, …}`);
      }
      present.heads = value.map((head, h) => normalizeWeights(fn, `${name}.heads[${h}]`, head, PROJECTION_KEYS));
    } else {
      checkTensorStructure(fn, `${name}.${key}`, value);
      present[key] = value;
    }
  }
  return present;
}

/** Every option name known, every value of the right type and range, every default filled. */
function normalizeOptions(fn, options, declared, weights, args) {
  if (!declared) return undefined;
  if (options === undefined || options === null) options = {};
  if (!isPlainObject(options)) fail(fn, `options is ${describeValue(options)}; expected an object`);
  checkKnownKeys(fn, 'options', options, Object.keys(declared));
  const complete = {};
  for (const [name, [fallback, check]] of Object.entries(declared)) {
    // A default may depend on the weights and on the options before it (intermediates reads heads).
    const defaultValue = typeof fallback === 'function' ? fallback(weights, { args, options: complete }) : fallback;
    const value = options[name] === undefined ? defaultValue : options[name];
    check(fn, value, weights);
    complete[name] = value;
  }
  return complete;
}

/** How the batched and unbatched forms of a sequence argument are written in messages. */
const SEQUENCE_AXES = { nextTokenPairs: ['(B, L)', '(L)'], matmul: ['(B, M, K)', '(M, K)'] };

/** A sequence argument: rank 3 passes, rank 2 gets B = 1; reports whether it was unbatched. */
function normalizeSequence(fn, name, value, dtype) {
  checkTensorStructure(fn, name, value, dtype);
  const rank = value.shape.length;
  const batchedRank = dtype === 'int32' ? 2 : 3;
  const [batchedAxes, unbatchedAxes] = SEQUENCE_AXES[fn] ?? ['(B, T, C)', '(T, C)'];
  if (rank !== batchedRank && rank !== batchedRank - 1) {
    fail(fn, `${name} has shape ${formatShape(value.shape)}; ` +
      `expected rank ${batchedRank} ${batchedAxes} or rank ${batchedRank - 1} ${unbatchedAxes}`);
  }
  return rank === batchedRank ? { tensor: value, unbatched: false } : { tensor: addBatchAxis(value), unbatched: true };
}

/**
 * Normalises the arguments of `fn` as declared in FUNCTIONS.
 * Returns { args: [...] for the backend, unbatched: whether the caller's sequences lacked B }.
 */
export function normalizeArguments(fn, callArgs) {
  const spec = FUNCTIONS[fn];
  const args = [];
  let unbatched = null;
  let weights;
  spec.args.forEach(([name, kind, keys], index) => {
    const value = callArgs[index];
    if (kind === 'sequence' || kind === 'tokens') {
      const sequence = normalizeSequence(fn, name, value, kind === 'tokens' ? 'int32' : 'float32');
      if (unbatched !== null && unbatched !== sequence.unbatched) {
        fail(fn, `${name} has shape ${formatShape(value.shape)}; ` +
          `expected it batched like ${spec.args[0][0]} (both (B, T, C) or both (T, C))`);
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
  if (spec.options) args.push(normalizeOptions(fn, callArgs[spec.args.length], spec.options, weights, args));
  else if (callArgs.length > spec.args.length && callArgs[spec.args.length] !== undefined) {
    const names = spec.args.map(([name]) => name);
    fail(fn, `takes ${names.length} argument${names.length > 1 ? 's' : ''} (${names.join(', ')}) and no options; ` +
      `got ${callArgs.length}`);
  }
  return { args, unbatched: unbatched === true };
}

/** Removes the batch axis that normalizeArguments added, from the results that carry one. */
function finishResults(fn, results, unbatched) {
  if (!unbatched) return results;
  const finished = { ...results };
  for (const name of FUNCTIONS[fn].batched ?? []) {
    if (finished[name]) finished[name] = dropBatchAxis(finished[name]);
  }
  return finished;
}

/**
 * Wraps a backend ({ name, build?, <fn>(...normalisedArgs) }) into the Attention object of index.d.ts:
 * one method per API function, plus `backend`, `build`, `fallbackReason`, `lastCall`, `threads`,
 * `threadsReason` and `dispose()`. These are read
 * from the backend on every access, so a backend that switches under the API (WebGPU falling back to WASM
 * when its device is lost: backends/webgpu.js withDeviceLossFallback; 'auto' routing each call:
 * backends/auto.js) is reported as it is now; its `onBackendChange(listener)` is passed through.
 */
export function createAttention(backend, { fallbackReason = null, threadsReason = null } = {}) {
  const attention = {
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
      return backend.lastCall ?? null;
    },
  };
  if (typeof backend.onBackendChange === 'function') attention.onBackendChange = (listener) => backend.onBackendChange(listener);
  for (const fn of FUNCTION_NAMES) {
    attention[fn] = (...callArgs) => {
      const { args, unbatched } = normalizeArguments(fn, callArgs);
      if (typeof backend[fn] !== 'function') fail(fn, `the ${backend.name} backend does not provide ${fn}`);
      const results = backend[fn](...args);
      // WebGPU answers with a Promise; the normalised result then comes as a Promise too.
      if (results && typeof results.then === 'function') return results.then((value) => finishResults(fn, value, unbatched));
      return finishResults(fn, results, unbatched);
    };
  }
  return Object.freeze(attention);
}
