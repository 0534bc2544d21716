// The rule that no result is silently non-finite (docs/api.md "Errors"), for every function on every backend:
// api.js hands it whatever the backend returned. Every float tensor result is scanned once (cheap beside
// computing it); the first stage in the registry's result order holding NaN or ±∞ (−∞ is a mask in `masked`)
// is an ApiError of kind 'overflow' naming the function, the option or argument that drove the values there and
// the expression that overflowed: "selfAttention: the scaled scores overflow float32 (temperature=1e-45 makes
// q·k/τ reach Infinity)". Where the call returned no intermediates (the fused path) or was a backward, the
// stage is found by running the forward again with its intermediates, only then. The naive softmax's overflow
// is step 5's lesson: its results are returned, carrying the same fields as `results.overflow`.
import { ENTRIES } from './registry.js';
import { ApiError } from './registry-errors.js';
import { stageValues } from './planner.js';

/** The words for each stage, and whether they take a plural verb. */
const STAGES = {
  query: ['queries', true], key: ['keys', true], value: ['values', true], scores: ['scores', true],
  scaled: ['scaled scores', true], masked: ['masked scores', true], weights: ['weights', true],
  dropped: ['dropped weights', true], context: ['context', false], output: ['output', false],
};
/** The expression each stage computes, for the attention functions (the step functions have their own). */
const ATTENTION_EXPRESSIONS = {
  query: 'x·W_q', key: 'x·W_k', value: 'x·W_v', scores: 'q·k', scaled: 'q·k/τ', masked: 'q·k/τ',
  weights: 'softmax(q·k/τ)', dropped: 'w/(1−p)', context: 'weights·v', output: 'weights·v',
};
const STEP_EXPRESSIONS = {
  causalAverageLoop: { output: 'Σ x' }, causalAverageMatmul: { output: 'tril·x' }, causalAverageSoftmax: { output: 'weights·x' },
  softmax: { output: 'exp(scale·x)' }, attentionWithoutWeights: { scores: 'x·xᵀ', weights: 'exp(x·xᵀ)', output: 'weights·x' },
  attentionDropout: { output: 'x/(1−p)' }, matmul: { output: 'a·b' },
  scaledDotProductAttention: { scores: 'q·k', scaled: 'q·k·scale', masked: 'q·k·scale', weights: 'softmax(q·k·scale)', dropped: 'w/(1−p)', output: 'weights·v' },
};
/** Stages above which the diagnosis does not run the forward again for its intermediates (the error then names the output). */
const DIAGNOSIS_STAGE_LIMIT = 1 << 22;

/** The index of the first NaN or ±∞ of float32 data from `start`, or −1: the one pass every result gets. */
function indexOfNonFinite(data, start) {
  for (let i = start; i < data.length; i++) {
    const v = data[i];
    if (v - v !== 0) return i; // v − v is 0 for every finite v, NaN for NaN and ±∞
  }
  return -1;
}

/** The first NaN or ±∞ of a float tensor (−∞ passed over where it is a mask), as {index, value}, or null. */
function firstNonFinite(tensor, allowNegativeInfinity) {
  const data = tensor?.data;
  if (!(data instanceof Float32Array)) return null;
  let index = indexOfNonFinite(data, 0);
  while (allowNegativeInfinity && index >= 0 && data[index] === -Infinity) index = indexOfNonFinite(data, index + 1);
  return index < 0 ? null : { index, value: data[index] };
}

/** The results' float tensors in the registry's order, nested ones (a backward's heads) by their path. */
function* tensorsOf(fn, results) {
  const names = [...Object.keys(ENTRIES[fn].results), ...Object.keys(results).filter((name) => !(name in ENTRIES[fn].results))];
  for (const name of names) {
    const value = results[name];
    if (Array.isArray(value)) {
      for (let h = 0; h < value.length; h++) for (const [key, t] of Object.entries(value[h] ?? {})) yield [`${name}[${h}].${key}`, t];
    } else if (value && typeof value === 'object') yield [name, value];
  }
}

/** The first stage holding a non-finite value: {stage, reached}, or null. */
function nonFiniteStage(fn, results) {
  for (const [stage, tensor] of tensorsOf(fn, results)) {
    const found = firstNonFinite(tensor, stage === 'masked');
    if (found) return { stage, reached: String(found.value) };
  }
  return null;
}

const largest = (tensor) => {
  let max = 0;
  for (const v of tensor.data) if (Math.abs(v) > max) max = Math.abs(v);
  return max;
};
/** The input tensor (a sequence or tensor argument, or a weights object taken whole) of the largest |value|. */
function largestInput(fn, args) {
  let best = { argument: ENTRIES[fn].args[0].name, value: 0 };
  ENTRIES[fn].args.forEach(({ name, kind }, index) => {
    const value = args[index];
    const tensors = kind === 'weights'
      ? Object.values(value).flatMap((t) => (Array.isArray(t) ? t.flatMap((head) => Object.values(head)) : [t]))
      : [value];
    const max = Math.max(...tensors.map(largest));
    if (max > best.value) best = { argument: name, value: max };
  });
  return best;
}

/** What drove a forward stage to overflow: an option whose value amplifies it, else the largest input. */
function causeOf(fn, stage, args, options) {
  const expression = STEP_EXPRESSIONS[fn]?.[stage] ?? ATTENTION_EXPRESSIONS[stage] ?? stage;
  const option = (argument) => ({ argument, value: options[argument], option: true, expression });
  const dropout = options.dropout ?? options.dropoutP;
  if ((stage === 'dropped' || fn === 'attentionDropout') && dropout > 0) return option(options.dropout !== undefined ? 'dropout' : 'dropoutP');
  if (options.normalization === 'sum' && (stage === 'weights' || fn === 'softmax')) return { ...option('normalization'), expression: 's/Σ s' };
  // softmax's scale·x is checked finite before it runs (checkSoftmax), so its scale is never the cause
  if (['scaled', 'masked', 'weights'].includes(stage)) {
    if (typeof options.temperature === 'number' && options.temperature < 1) return option('temperature');
    if (typeof options.scale === 'number' && Math.abs(options.scale) > 1) return option('scale');
  }
  return { ...largestInput(fn, args), option: false, expression };
}

function overflowError(fn, stage, reached, cause, [words, plural] = STAGES[stage]) {
  return new ApiError({ fn, kind: 'overflow', expected: 'finite results', stage: words, plural, reached, ...cause });
}

/** Runs `then` on a value or, when it is a Promise, on what it resolves to. */
const settle = (value, then) => (value && typeof value.then === 'function' ? value.then(then) : then(value));

/** The backend run again for a diagnosis: its results, a Promise of them, or null where it fails (either way). */
function runAgain(run, fn, args) {
  try {
    const again = run(fn, args);
    return again && typeof again.then === 'function' ? again.catch(() => null) : again;
  } catch {
    return null;
  }
}

/**
 * The stage of a forward call that overflows, with the intermediates that call returned or, where it returned
 * none, from the backend run again with them (`run(fn, args)`); null when every stage is finite.
 */
function forwardOverflow(fn, args, results, run) {
  const found = nonFiniteStage(fn, results);
  const options = args[args.length - 1];
  const rerun = found && (found.stage === 'output' || found.stage === 'context')
    && ENTRIES[fn].options?.intermediates && options.intermediates === false
    && stageValues(args, options.heads ?? 1, fn) <= DIAGNOSIS_STAGE_LIMIT;
  if (!rerun) return found;
  const again = runAgain(run, fn, [...args.slice(0, -1), { ...options, intermediates: true }]);
  return settle(again, (full) => (full ? nonFiniteStage(fn, full) ?? found : found));
}

/**
 * Checks a call's results: returns them (the naive softmax's overflow flagged as `results.overflow`), or throws
 * the ApiError of kind 'overflow'; a Promise of either when finding the stage needs an asynchronous backend.
 * `run(fn, args)` calls the backend again (normalised arguments), for the diagnosis only.
 */
export function checkResults(fn, args, results, run) {
  if (!results || typeof results !== 'object') return results;
  const entry = ENTRIES[fn];
  if (!nonFiniteStage(fn, results)) return results;
  if (entry.forward) return checkBackward(fn, args, results, run);
  return settle(forwardOverflow(fn, args, results, run), (found) => {
    const options = entry.options ? args[args.length - 1] : {};
    const { stage, reached } = found ?? nonFiniteStage(fn, results);
    const cause = causeOf(fn, stage, args, options);
    const error = overflowError(fn, stage, reached, cause);
    // 'naive' is exp(s)/Σ exp(s): past s ≈ 88 it overflows where the stable form does not; that is its lesson.
    if (options.normalization === 'naive' && !cause.option && (stage === 'weights' || fn === 'softmax')) {
      const flag = { fn, kind: 'overflow', argument: 'normalization', value: 'naive', expected: 'finite results', stage: error.stage, plural: error.plural, reached, option: true, expression: 'exp(s)/Σ exp(s)' };
      Object.defineProperty(results, 'overflow', { value: { ...flag, message: new ApiError(flag).message }, enumerable: false });
      return results;
    }
    throw error;
  });
}

/** A backward: the forward's overflow if it has one (the same stage, named for the backward), else the gradient's. */
function checkBackward(fn, args, results, run) {
  const { forward } = ENTRIES[fn];
  const forwardCount = ENTRIES[forward].args.length;
  const options = args[args.length - 1];
  const optional = Boolean(ENTRIES[forward].options.intermediates);
  const forwardArgs = [...args.slice(0, forwardCount), optional ? { ...options, intermediates: true } : options];
  // a forward whose intermediates are optional is run with them up to the limit; selfAttention always has them,
  // as the backward's own teaching path does
  const fits = !optional || stageValues(forwardArgs, options.heads ?? 1, forward) <= DIAGNOSIS_STAGE_LIMIT;
  const again = fits ? runAgain(run, forward, forwardArgs) : null;
  return settle(again, (full) => {
    const found = full && nonFiniteStage(forward, full);
    if (found) throw overflowError(fn, found.stage, found.reached, causeOf(forward, found.stage, forwardArgs, options));
    // a gradient: of an input (x, xQuery, xContext: batched results) or of a weight (weights.query, weights.heads[0].key)
    const { stage, reached } = nonFiniteStage(fn, results);
    const name = ENTRIES[fn].results[stage]?.batched ? stage : `weights.${stage}`;
    const cause = { argument: 'gradOutput', value: largest(args[forwardCount]), option: false, expression: `∂loss/∂${name}` };
    throw overflowError(fn, stage, reached, cause, [`gradient of ${name}`, false]);
  });
}
