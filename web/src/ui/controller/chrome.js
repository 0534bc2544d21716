// The page around the step: which view is shown, the tabs' current marks, the embed's hidden parts, the backend.
import { HIDEABLE } from '../state.js';

// Runs on every change: writes only what differs, since even an attribute set to its own value is a
// mutation the browser checks its style against in the next frame.
function setCurrent(link, current) {
  if (current && link.getAttribute('aria-current') !== 'page') link.setAttribute('aria-current', 'page');
  else if (!current && link.hasAttribute('aria-current')) link.removeAttribute('aria-current');
}

export function applyChrome({ root, shell, state }) {
  const train = state.view === 'train';
  const model = state.view === 'model';
  root.classList.toggle('view-train', train);
  root.classList.toggle('view-model', model);
  if (shell.trainingRoot.hidden !== !train) shell.trainingRoot.hidden = !train;
  if (shell.modelRoot.hidden !== !model) shell.modelRoot.hidden = !model;
  setCurrent(shell.playgroundTab, !train && !model);
  setCurrent(shell.trainingTab, train);
  setCurrent(shell.modelTab, model);
  root.classList.toggle('embed', state.embed);
  root.classList.toggle('exercise-only', state.embed && state.exercise !== '');
  for (const part of HIDEABLE) {
    root.classList.toggle(`hide-${part}`, state.hide.includes(part));
  }
  if (shell.backendSelect.value !== state.backend) shell.backendSelect.value = state.backend;
  const locked = state.lock.includes('backend');
  if (shell.backendSelect.disabled !== locked) shell.backendSelect.disabled = locked;
}
