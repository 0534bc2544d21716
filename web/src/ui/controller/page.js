// The step view's controller: the page's one state and what is on screen, with its verbs — loadState (check a
// change, write the URL, repaint), renderStep (the step's fixed parts), repaint (compute then draw). Each verb
// is a function of this object in its own module; the object holds no logic of its own.
import { sortEdits } from '../state.js';
import { createShell } from '../shell.js';
import { createModelSwitch } from '../model-switch.js';
import { createCrossoverControls } from '../crossover-controls.js';
import { createExerciseSlot } from '../../exercises/ui/slot.js';
import { STRINGS } from '../strings.js';
import { createBackends } from './backends.js';
import { createUrlWriter } from './url.js';
import { showError, showNotices } from './notices.js';
import { loadState } from './load-state.js';
import { renderStep } from './render-step.js';
import { repaint } from './repaint.js';
import { createSideViews } from './side-views.js';
import { createTrainedWalk } from '../trained/walk-switch.js';

/**
 * @param {HTMLElement} root
 * @param {{state: object, fixture: object, loadOptions: Function, benchmarkUrl: string|null}} options
 */
export function createPage(root, { state, fixture, loadOptions, benchmarkUrl }) {
  const shell = createShell(root, { benchmarkUrl });
  const page = {
    root,
    shell,
    fixture,
    loadOptions,
    state,
    backends: createBackends(loadOptions),
    trainedWalk: createTrainedWalk(), // model=trained: one layer of the English model (or a carried model)
    generation: 0, // counts repaints: a result from an older one is dropped
    lastRun: null, // the last repaint on the page, complete (its tables written): what lastRun() and onRender give
    latestRun: null, // the last computation, set as soon as its figures are built (for the repaints it triggers)
    renderedStep: null,
    renderedControls: [],
    renderedTrained: '', // what the controls show of the trained model (render-step.js trainedKey)
    renderedSnippetStep: null,
    snippetTimer: null,
    availableWidth: 800, // the results column's content width (view-tools.js watchWidth)
    listeners: new Set(),
    frameListeners: new Set(), // told in the frame that shows a repaint's visible tensors (for measuring)
  };
  page.loadState = (changes, options) => loadState(page, changes, options);
  page.renderStep = () => renderStep(page);
  page.repaint = () => repaint(page);
  page.showNotices = (messages) => showNotices(shell, messages);
  page.showError = (error) => showError(shell, error);
  page.notify = () => { for (const listener of page.listeners) listener(page.lastRun); };
  // A cell typed into one of the editable matrices (x or a projection weight): one edits list for all.
  page.editCell = (matrix, row, col, value) => {
    const edits = page.state.edits.filter((e) => !(e.matrix === matrix && e.row === row && e.col === col));
    page.loadState({ edits: sortEdits([...edits, { matrix, row, col, value }]) }, { fromControl: true });
  };
  page.url = createUrlWriter(() => page.state);
  page.sideViews = createSideViews(page);
  page.exercises = createExerciseSlot(shell.exercises, {
    openExercise: (id) => page.loadState({ exercise: id }, { force: true, push: id !== '' }),
    showStep: (step) => page.loadState({ step }, { force: true }),
  });
  // The GPU crossover in the settings panel ('Automatic' only). A change recomputes the step with it.
  page.crossoverControls = createCrossoverControls(shell.settingsBody, {
    loadAuto: (extra) => page.backends.load('auto', extra),
    reloadAuto: () => page.backends.forget('auto'),
    changed: () => { if (page.state.backend === 'auto') page.repaint(); },
  });
  page.crossoverControls.show(null, false);
  page.modelSwitch = createModelSwitch((changes) => page.loadState(changes, { fromControl: true }));
  page.resetEditsButton = document.createElement('button');
  page.resetEditsButton.type = 'button';
  page.resetEditsButton.className = 'reset-edits';
  page.resetEditsButton.textContent = STRINGS.resetEdits;
  page.resetEditsButton.addEventListener('click', () => page.loadState({ edits: [] }));
  return page;
}
