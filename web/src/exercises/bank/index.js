// The exercise bank: every exercise is one data entry (docs/exercise-authoring.md), in curriculum order.
// Ids are `STEP-ID/slug` and stable: progress, URLs (`?exercise=`), course pages and graded folders name
// exercises by them.
import { AVERAGE_EXERCISES } from './averages.js';
import { ATTENTION_EXERCISES } from './attention.js';
import { DROPOUT_CHECK_EXERCISES } from './dropout-check.js';
import { HEAD_EXERCISES } from './heads.js';
import { SEED_003_EXERCISES } from './seed-003.js';

const STEP_ORDER = ['framing', 'loop', 'matmul', 'softmax', 'self-attention', 'weights', 'causal', 'dropout', 'check', 'multihead', 'cross'];

export const EXERCISES = [
  ...AVERAGE_EXERCISES, ...ATTENTION_EXERCISES, ...DROPOUT_CHECK_EXERCISES, ...HEAD_EXERCISES, ...SEED_003_EXERCISES,
].sort((a, b) => STEP_ORDER.indexOf(a.step) - STEP_ORDER.indexOf(b.step));

export const EXERCISE_IDS = EXERCISES.map((e) => e.id);
export const EXERCISE_BY_ID = new Map(EXERCISES.map((e) => [e.id, e]));

/** The exercises of one step, in bank order. */
export function exercisesOfStep(step) {
  return EXERCISES.filter((e) => e.step === step);
}

/** The default tolerance: the project's float32 budget, |a − e| ≤ atol + rtol·|e|. */
export const DEFAULT_TOLERANCE = { atol: 1e-5, rtol: 1e-5 };
