// The walk's "trained" weights (steps 6–11, `model=trained`): one layer of the shipped English model
// (docs/model.md), loaded once when a step first asks for it (walk-inputs.js builds the step's inputs from it).
import { loadEnglishModel } from '../../model/english.js';
import { englishWalkModel } from './walk-inputs.js';

export { ALL_HEADS_STEP, pickedLayerHead, trainedRun, TRAINED_LOCKS, TRAINED_STEPS } from './walk-inputs.js';

let loading = null;
/** Loads the shipped English model once, as the walk reads it (walk-inputs.js englishWalkModel). */
export function loadWalkModel() {
  loading ??= loadEnglishModel().then(englishWalkModel);
  loading.catch(() => { loading = null; });
  return loading;
}
