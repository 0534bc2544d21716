// The step's fixed parts: text, formula, code, controls. Rebuilt when the step changes or when the
// state changed from outside the controls (URL, postMessage), so the controls show the new values.
import FORMULAS from 'virtual:formulas';
import CPP_PANELS from 'virtual:cpp-regions';
import { seedChangesEmbeddings } from '../inputs.js';
import { serializeState, STEP_IDS, updateState } from '../state.js';
import { STEP_BY_ID } from '../steps.js';
import { splitExplanation, stepCountText } from '../shell.js';
import { renderControls } from '../controls.js';
import { clearInspected } from '../cell-inspection.js';
import { element } from '../dom-sync.js';
import { STRINGS } from '../strings.js';
import { TRAINED_LOCKS } from '../trained/walk-inputs.js';

// The controls that change something on this step: before the projections (steps 2–5) the seed only
// reaches words without the book's vectors, so it shows only when the sentence has one (or d_in ≠ 3).
const SEED_FOR_EMBEDDINGS_ONLY = ['loop', 'matmul', 'softmax', 'self-attention'];
// With model=trained, the Layer and Head controls join the step's (page.trainedWalk.controlsView).
export function controlsOf(step, current, trainedView = null) {
  const own = (step.controls ?? []).filter((name) => name !== 'model').filter((name) => name !== 'seed' || !SEED_FOR_EMBEDDINGS_ONLY.includes(step.id) || seedChangesEmbeddings(current));
  return [...own, ...(trainedView?.controls ?? [])];
}

// What the controls show of a trained model: its sizes and its notes (layer, head).
export const trainedKey = (view) => (view ? JSON.stringify([view.state.T, view.state.dOut, view.notes]) : '');

const trainedNoteNodes = (view) => (view?.notes ?? []).map(({ note, text }) => element('p', { class: 'trained-note', 'data-note': note }, text));

/**
 * A trained model's sizes or notes changed under a control (another sentence has another count of tokens; another
 * layer or head): the locked controls' values and the notes are written in place, so the control in use keeps focus.
 */
export function refreshTrained(page, view) {
  const { controls } = page.shell;
  for (const name of TRAINED_LOCKS) {
    for (const input of controls.querySelectorAll(`[data-control="${name}"], [data-control-number="${name}"]`)) {
      if (input.value !== String(view.state[name])) input.value = String(view.state[name]);
    }
  }
  page.shell.trainedNotes.replaceChildren(...trainedNoteNodes(view));
  page.modelSwitch.showNotes(view.notes ?? []);
  page.renderedTrained = trainedKey(view);
}

export function renderStep(page) {
  const { shell, state } = page;
  const step = STEP_BY_ID.get(state.step);
  const strings = STRINGS.steps[step.id];
  shell.stepCount.textContent = stepCountText(step.number);
  shell.title.textContent = strings.title;
  const { lead, more } = splitExplanation(strings.text);
  shell.explanationLead.textContent = lead;
  shell.readMoreText.textContent = more;
  shell.readMore.hidden = more === '';
  shell.readMore.open = false;
  shell.formula.innerHTML = FORMULAS[step.id]; // KaTeX's output for our own TeX, typeset at build time
  shell.symbols.textContent = STRINGS.views.symbols[step.id] ?? '';
  shell.cellMath.reset();
  clearInspected();
  shell.cpp.textContent = CPP_PANELS[step.id]; // regions of cpp/attention/*.cpp, cut out at build time
  // With the trained weights, the sizes the model fixes are shown and locked, with notes saying why.
  const trained = page.trainedWalk.controlsView(state, step.id);
  const shown = trained?.state ?? state;
  const notes = trainedNoteNodes(trained);
  page.renderedControls = controlsOf(step, state, trained);
  page.renderedTrained = trainedKey(trained);
  page.modelSwitch.showNotes(trained?.notes ?? []);
  const labels = STRINGS.stepControlLabels[step.id];
  shell.controls.replaceChildren(renderControls(page.renderedControls, shown, (changes) => page.loadState(changes, { fromControl: true }), labels));
  shell.trainedNotes.replaceChildren(...notes);
  shell.tocLinks.forEach((link) => {
    if (link.dataset.step === step.id) link.setAttribute('aria-current', 'step');
    else link.removeAttribute('aria-current');
    link.href = `?${serializeState(updateState(state, { step: link.dataset.step }, { force: true }).state)}`;
  });
  shell.previous.disabled = step.number === 1;
  shell.next.disabled = step.number === STEP_IDS.length;
  page.renderedStep = step.id;
  page.exercises.render(state);
}
