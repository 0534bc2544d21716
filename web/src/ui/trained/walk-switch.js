// The step view's side of the walk's "trained" switch (model=trained on steps 6–11): which model the walk shows
// (the shipped English model, loaded on first use, or one carried from the Training tab), the state and inputs a
// step computes with, and what the controls show (the model's sizes, locked, and the notes saying why). No DOM.
import { TRAINED_LOCKS, TRAINED_STEPS, trainedControls, trainedNotes, trainedRun } from './walk-inputs.js';

export function createTrainedWalk() {
  let walk = null; // the model the walk shows, once loaded or carried
  let loading = null;

  function load() {
    // the English model's code and weights load only when a step first shows them
    loading ??= import('./walk-model.js').then((module) => module.loadWalkModel());
    loading.catch(() => { loading = null; });
    return loading;
  }

  return {
    /** Whether `stepId` shows the trained model for `state`. */
    applies: (state, stepId) => state.model === 'trained' && TRAINED_STEPS.includes(stepId),

    /** The walk's model, or null before it is loaded. */
    model: () => walk,

    /**
     * The state `stepId` computes with and its inputs (trainedRun), loading the English model the first time.
     * `loaded` is true when this call loaded it (the controls then show its sizes).
     */
    async run(state, stepId) {
      let loaded = false;
      if (!walk) {
        const model = await load();
        if (!walk) { walk = model; loaded = true; }
      }
      return { ...trainedRun(walk, state, stepId), loaded };
    },

    /**
     * A model the learner trained on the Training tab's text task: resolves to {model} once the walk shows it, or {missing}
     * (the sentence's words it never saw). It lasts until the page reloads.
     */
    async carry(bytes, vocabulary, sentence) {
      const { carriedModel } = await import('./carried-model.js');
      const result = carriedModel(bytes, vocabulary, sentence);
      if (result.model) walk = result.model;
      return result;
    },

    /**
     * What the controls of `stepId` show with model=trained: {state (the model's sizes, the sizes it fixes locked),
     * controls (the Layer and Head controls to add), notes [{note, text}]}; null when the switch does not apply.
     * Before the model is loaded (or when the sentence cannot be read) the learner's state is shown, still locked.
     */
    controlsView(state, stepId) {
      if (!this.applies(state, stepId)) return null;
      const lock = [...new Set([...state.lock, ...TRAINED_LOCKS])];
      const controls = trainedControls(stepId);
      if (!walk) return { state: { ...state, lock }, controls, notes: [] };
      try {
        const run = trainedRun(walk, state, stepId);
        const sizes = { modelLayers: walk.model.config.layers, modelHeads: walk.model.config.heads }; // the Layer and Head choices
        return { state: { ...run.state, ...sizes, lock }, controls, notes: trainedNotes(walk, run.state, run.inputs, stepId, state) };
      } catch {
        return { state: { ...state, lock }, controls, notes: [] }; // compute shows the error
      }
    },
  };
}
