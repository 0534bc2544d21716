// loadState: every change, from a control, the URL, the keyboard or the postMessage API, is checked against the
// state table, written to the URL and repainted.
import { parseState, STEP_IDS, updateState } from '../state.js';
import { STEP_BY_ID } from '../steps.js';
import { refreshChoices } from '../controls.js';
import { STRINGS } from '../strings.js';
import { applyChrome } from './chrome.js';
import { controlsOf, refreshTrained, trainedKey } from './render-step.js';

/**
 * Applies a partial state (validated against the table) and repaints.
 * @returns {string[]} the notices the page shows for it: rejected values, and values moved to fit (heads)
 */
export function loadState(page, changes, { fromControl = false, force = false, push = false } = {}) {
  const { shell } = page;
  const before = page.state;
  const { state, notices, adjusted } = updateState(before, changes, { force });
  page.state = state;
  if (notices.length && !fromControl) page.showNotices(notices);
  page.showNotices(adjusted); // heads moved to a divisor of d_out: said even when a control moved d_out
  if (state.backend !== before.backend) {
    delete shell.badge.dataset.fallbackShown;
    shell.badge.textContent = STRINGS.loading;
  }
  const stepChanged = state.step !== before.step;
  if (push || stepChanged) page.url.write(true);
  else page.url.schedule();
  applyChrome(page);
  const trained = page.trainedWalk.controlsView(state, state.step);
  const controlsChanged = controlsOf(STEP_BY_ID.get(state.step), state, trained).join() !== page.renderedControls.join();
  if (stepChanged || !fromControl || adjusted.length || state.layout !== before.layout || controlsChanged) page.renderStep();
  else {
    if (trained && trainedKey(trained) !== page.renderedTrained) refreshTrained(page, trained);
    refreshChoices(shell.controls, trained?.state ?? state);
  }
  page.sideViews.syncTraining({ fromControl });
  page.sideViews.syncModel();
  if (stepChanged) {
    // A new step starts at its top, with keyboard focus on it (the pager sits at the bottom).
    shell.main.focus({ preventScroll: true });
    if (!state.embed) window.scrollTo(0, 0);
  }
  page.repaint();
  return [...notices, ...adjusted]; // what the frame shows, both kinds
}

/** Loads the state in the address bar (the back and forward buttons). */
export function loadStateFromUrl(page) {
  const { state, notices } = parseState(location.search);
  page.state = state;
  page.showNotices(notices);
  showState(page);
}

/** Puts the whole state on the page: chrome, step, side views, picture. */
export function showState(page) {
  applyChrome(page);
  page.renderStep();
  page.sideViews.syncTraining();
  page.sideViews.syncModel();
  page.repaint();
}

/** Moves `delta` steps through the walk, if there is a step there. */
export function go(page, delta) {
  const index = STEP_IDS.indexOf(page.state.step) + delta;
  if (index >= 0 && index < STEP_IDS.length) page.loadState({ step: STEP_IDS[index] }, { force: true });
}
