// Grading, without running anything untrusted: build an exercise's seeded cases, compute the expected
// results with the core, and judge what a submission returned. The page (sandbox.js) and the Node grader
// (grade-node.js) both run the submission elsewhere and hand its results to `judge`.
import { EXERCISE_BY_ID, DEFAULT_TOLERANCE } from './bank/index.js';
import { normalStream } from './tensors.js';
import { referenceCore } from './core.js';
import { formatShape } from '../core/tensor.js';

/** The most values one returned tensor may hold (4 MB of float32). */
export const MAX_OUTPUT_VALUES = 1_000_000;

/** The exercise named `id`, or an Error naming the function and the id. */
export function exerciseById(fn, id) {
  const exercise = EXERCISE_BY_ID.get(id);
  if (!exercise) throw new Error(`${fn}: id=${JSON.stringify(String(id)).slice(0, 80)} is not an exercise; expected one of the ids in docs/exercises.md`);
  return exercise;
}

/**
 * The exercise's cases: its label, the arguments the learner's function receives (the entry's `params`,
 * in order, then the options when the case has any), and the core's expected result.
 */
export function prepareCases(exercise, core = referenceCore()) {
  return exercise.cases.map((testCase) => {
    const { inputs, options } = testCase.make(normalStream(testCase.seed), core);
    return {
      input: testCase.input,
      args: exercise.entry.params.map((name) => inputs[name]),
      options,
      inputs,
      expected: exercise.reference(core, inputs, options ?? {}),
    };
  });
}

/** The (i, j, …) position of flat index `index` in `shape`. */
export function positionOf(index, shape) {
  const position = [];
  let rest = index;
  for (let axis = shape.length - 1; axis >= 0; axis--) {
    position.unshift(rest % shape[axis]);
    rest = Math.floor(rest / shape[axis]);
  }
  return position;
}

/**
 * Compares one result with the expected tensor at atol + rtol (the core's compare). A wrong shape fails
 * at index 0; a NaN or ±∞ (which the core's compare refuses) fails at its own index.
 */
export function compareResult(actual, expected, tolerance, core = referenceCore()) {
  if (formatShape(actual.shape) !== formatShape(expected.shape)) {
    return { pass: false, maxAbsError: null, shapeError: `returned shape ${formatShape(actual.shape)}; expected ${formatShape(expected.shape)}`, firstMismatch: null };
  }
  const nonFinite = actual.data.findIndex((v) => !Number.isFinite(v));
  const result = nonFinite >= 0 ? null : core.compare(actual, expected, tolerance);
  const index = nonFinite >= 0 ? nonFinite : result.firstMismatch;
  const mismatch = index < 0 ? null : { index, position: positionOf(index, expected.shape), actual: actual.data[index], expected: expected.data[index] };
  return { pass: index < 0, maxAbsError: nonFinite >= 0 ? Infinity : result.maxAbsError, firstMismatch: mismatch };
}

/**
 * The verdict on what a submission returned for each prepared case.
 * `results[i]` is {output} or {error}; `error` (a string) is a failure of the whole run (a time-out, a
 * module that exports no function). Outcome: 'pass' when every case is close, 'error' when the run or any
 * case threw, 'fail' otherwise (a value or a shape that differs).
 * @returns {{id, outcome, cases: {input, maxAbsError, pass, error?, firstMismatch?}[], firstMismatch, error?}}
 */
export function judge(exercise, prepared, { results = [], error = null } = {}) {
  const tolerance = exercise.tolerance ?? DEFAULT_TOLERANCE;
  if (error) return { id: exercise.id, outcome: 'error', error, cases: prepared.map((c) => ({ input: c.input, maxAbsError: null, pass: false })), firstMismatch: null };
  let firstMismatch = null;
  let threw = false;
  const cases = prepared.map((c, i) => {
    const result = results[i];
    if (!result || result.error) {
      threw = true;
      return { input: c.input, maxAbsError: null, pass: false, error: result?.error ?? 'no result' };
    }
    const { pass, maxAbsError, firstMismatch: mismatch, shapeError } = compareResult(result.output, c.expected, tolerance);
    const entry = { input: c.input, maxAbsError: maxAbsError === Infinity ? 'Infinity' : maxAbsError, pass };
    if (shapeError) entry.error = shapeError;
    if (mismatch) entry.firstMismatch = { ...mismatch, actual: jsonNumber(mismatch.actual) };
    if (!pass && !firstMismatch) firstMismatch = { case: i, index: mismatch ? mismatch.index : 0, position: mismatch?.position ?? [] };
    return entry;
  });
  const outcome = threw ? 'error' : cases.every((c) => c.pass) ? 'pass' : 'fail';
  return { id: exercise.id, outcome, cases, firstMismatch };
}

function jsonNumber(value) {
  return Number.isFinite(value) ? value : String(value);
}
