// The walk's "trained" weights (steps 6–8 and 10, `model=trained`): a one-layer attention-only model trained on
// the walk's sentence by scripts/train-walk-model.mjs (the project's trainer, seed 1), shipped as a small
// safetensors file. x becomes the model's token + position embeddings of the sentence; W_query, W_key, W_value
// its layer's q/k/v projections, transposed from nn.Linear's (out, in) to the walk's (d_in, d_out).
import modelUrl from './walk-model.safetensors?url';
import { walkModelFromBytes } from './walk-inputs.js';

export { carriedModel, trainedInputs, trainedState, TRAINED_LOCKS, TRAINED_STEPS } from './walk-inputs.js';

let loading = null;
/** Loads the shipped model once: {sentence, vocabulary, T, dModel, heads, tensors}. */
export function loadWalkModel() {
  loading ??= fetch(modelUrl).then((response) => response.arrayBuffer()).then((buffer) => walkModelFromBytes(new Uint8Array(buffer)));
  loading.catch(() => { loading = null; });
  return loading;
}
