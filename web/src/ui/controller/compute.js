// compute: runs the current step on the core with the current state (or the trained model's sizes).
import { buildInputs } from '../inputs.js';
import { STEP_BY_ID } from '../steps.js';
import { STRINGS, format } from '../strings.js';

// A backend that switches under the page (a lost device moving 'auto' or 'webgpu' to WASM) repaints the
// badge and says why; subscribed once per loaded Attention object.
const watched = new WeakSet();
function watchBackend(page, api) {
  if (watched.has(api) || typeof api.onBackendChange !== 'function') return;
  watched.add(api);
  api.onBackendChange(() => {
    delete page.shell.badge.dataset.fallbackShown;
    if (page.backends.has(page.state.backend) && page.latestRun) page.repaint();
  });
}

/**
 * The run `{step, api, run: {state, inputs, result, error, backend, ms}}`, or null when `stale()` says a newer
 * change came first or the backend or the model could not load (the error is on the page).
 */
export async function compute(page, stale) {
  const { state, fixture } = page;
  const step = STEP_BY_ID.get(state.step);
  let api;
  try {
    api = await page.backends.load(state.backend);
  } catch (error) {
    if (stale()) return null;
    page.shell.badge.textContent = format(STRINGS.notAvailable, { reason: error.message });
    page.showError(error);
    return null;
  }
  if (stale()) return null;
  watchBackend(page, api);
  // The state the step computes with: the learner's, or the trained model's sentence and sizes.
  let runState = state;
  let inputs;
  if (page.trainedWalk.applies(state, step.id)) {
    try {
      const run = await page.trainedWalk.run(state, step.id);
      if (stale()) return null;
      if (run.loaded) page.renderStep(); // the controls show the model's sizes
      ({ state: runState, inputs } = run);
    } catch (error) {
      if (stale()) return null;
      page.showError(error);
      return null;
    }
  } else {
    inputs = buildInputs(state);
  }
  const started = performance.now();
  try {
    const result = await step.run({ api, inputs, state: runState, fixture, loadBackend: page.backends.load });
    // A step that loads other backends (9) reports its own computation's time, not the loading's.
    return { step, api, run: { state: runState, inputs, result, error: null, backend: api.backend, ms: result.computeMs ?? performance.now() - started } };
  } catch (error) {
    if (stale()) return null;
    page.showError(error);
    page.lastRun = { state: runState, inputs, result: null, error: error.message };
    page.latestRun = page.lastRun;
    page.notify();
    return null;
  }
}
