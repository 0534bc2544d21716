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
import { STRINGS, format } from '../strings.js';
import { trainedState, TRAINED_LOCKS, TRAINED_STEPS } from '../trained/walk-model.js';

// The controls that change something on this step: before the projections (steps 2–5) the seed only
// reaches words without the book's vectors, so it shows only when the sentence has one (or d_in ≠ 3).
const SEED_FOR_EMBEDDINGS_ONLY = ['loop', 'matmul', 'softmax', 'self-attention'];
export function controlsOf(step, current) {
  return (step.controls ?? []).filter((name) => name !== 'model').filter((name) => name !== 'seed' || !SEED_FOR_EMBEDDINGS_ONLY.includes(step.id) || seedChangesEmbeddings(current));
}

export function renderStep(page) {
  const { shell, state, walkModel } = page;
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
  // With the trained weights, the sizes the model fixes are shown and locked, with a note saying why.
  const trained = state.model === 'trained';
  const fixed = trained && TRAINED_STEPS.includes(step.id);
  const shown = fixed && walkModel ? { ...trainedState(state, walkModel), lock: [...new Set([...state.lock, ...TRAINED_LOCKS])] } : state;
  const notes = [];
  if (fixed) {
    const text = walkModel?.carried
      ? format(STRINGS.carriedNote, { dModel: walkModel.dModel, heads: walkModel.heads, sentence: walkModel.sentence })
      : format(STRINGS.trainedNote, { sentence: walkModel?.sentence ?? '' });
    notes.push(element('p', { class: 'trained-note', 'data-note': walkModel?.carried ? 'carried' : 'trained' }, text));
  }
  if (trained && step.id === 'cross') notes.push(element('p', { class: 'trained-note', 'data-note': 'trained-cross' }, STRINGS.trainedCrossNote));
  page.renderedControls = controlsOf(step, state);
  const labels = STRINGS.stepControlLabels[step.id];
  shell.controls.replaceChildren(renderControls(page.renderedControls, shown, (changes) => page.loadState(changes, { fromControl: true }), labels), ...notes);
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
