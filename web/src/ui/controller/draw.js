// draw: puts a computed run on the page: the badge, the step's picture and checks, then the frame's listeners.
import { renderResults } from '../results-view.js';
import { drawDeferred } from '../tensor-view.js';
import { setText, syncChildren } from '../dom-sync.js';
import { STRINGS, format } from '../strings.js';

function showBadge(page, api, ms) {
  const { shell, state } = page;
  const name = STRINGS.backendNames[api.backend] ?? api.backend;
  setText(shell.badge, format(STRINGS.badge, { backend: name, ms: ms.toFixed(2) }));
  const title = format(STRINGS.badgeTitle, { backend: name, ms: ms.toFixed(2) });
  // 'auto': the GPU crossover it routes by and which measurement decided it (docs/api.md, "Choosing the backend").
  const crossover = api.gpuCrossover;
  const badgeTitle = crossover ? `${title}. ${format(STRINGS.badgeCrossover, crossover)}` : title;
  if (shell.badge.title !== badgeTitle) shell.badge.title = badgeTitle;
  if (shell.badge.dataset.backend !== api.backend) shell.badge.dataset.backend = api.backend;
  page.crossoverControls.show(api, state.backend === 'auto');
  if (api.fallbackReason && !shell.badge.dataset.fallbackShown) {
    shell.badge.dataset.fallbackShown = '1';
    page.showNotices([format(STRINGS.fallback, { wanted: STRINGS.backendNames[state.backend], backend: name, reason: api.fallbackReason })]);
  }
}

// The weights switch sits at the top of the step's picture wherever `model` changes the step (it replaces the
// controls' dropdown); on step 10 with the trained model the English model's heads follow it, so the heads
// that differ are what the switch shows first (the one-layer walk model's figures come after them).
function placeModelSwitch(page, step) {
  const { shell, state, modelSwitch } = page;
  // in the figure's caption line, beside "new: …", so that it costs the picture no height where it fits
  const caption = shell.results.querySelector('[data-main-figure] > figcaption');
  const applies = Boolean(caption) && (step.controls ?? []).includes('model');
  if (applies) {
    modelSwitch.sync(state);
    if (caption.firstChild !== modelSwitch.node) caption.prepend(modelSwitch.node);
  } else if (modelSwitch.node.parentNode) modelSwitch.node.remove();
  const headsInFigure = applies && step.id === 'multihead' && state.model === 'trained';
  if (headsInFigure) {
    if (caption.nextSibling !== shell.headsSlot) caption.after(shell.headsSlot);
  } else if (shell.headsSlot.parentNode !== shell.main) shell.main.insertBefore(shell.headsSlot, shell.learnSlot);
}

/** `computed`: what compute returned; `mine`: its repaint's generation (a newer repaint skips the late work). */
export function draw(page, { step, api, run }, mine) {
  const { shell, state } = page;
  const { result, ms, state: runState } = run;
  page.showError(null);
  showBadge(page, api, ms);
  const hideChecks = state.hide.includes('checks');
  performance.clearMarks('ap:computed');
  performance.mark('ap:computed');
  const editable = !state.lock.includes('edits'); // an instructor may lock the matrices as well
  const onEdit = editable ? page.editCell : null;
  // Heatmaps use the column's whole width (their cells stop growing at 40 px).
  const maxWidth = Math.max(240, page.availableWidth - 4);
  const nodes = renderResults(result, { stepId: step.id, onEdit, hideChecks, backend: api.backend, maxWidth, head: runState.head, heads: runState.heads, onChange: () => page.repaint() });
  const showsEditable = result.tensors?.some((view) => view.editable);
  if (editable && state.edits.length > 0 && showsEditable) nodes.unshift(page.resetEditsButton);
  syncChildren(shell.results, nodes);
  placeModelSwitch(page, step);
  const tensors = result.tensors ?? [];
  if (shell.viewTools.hidden !== (tensors.length === 0)) shell.viewTools.hidden = tensors.length === 0;
  const weights = tensors.some((view) => view.kind === 'weights');
  if (shell.scaleField.hidden !== !weights) shell.scaleField.hidden = !weights;
  page.latestRun = run;
  // The repaint is done when the browser has painted the new frame: measured for the budgets.
  performance.clearMeasures('ap:draw');
  performance.measure('ap:draw', 'ap:computed');
  requestAnimationFrame(() => {
    performance.clearMeasures('ap:repaint');
    performance.measure('ap:repaint', 'ap:change');
    // The first step on screen, measured once (scripts/measure-page.mjs: load → first step drawn).
    if (performance.getEntriesByName('ap:first-repaint').length === 0) performance.measure('ap:first-repaint', 'ap:change');
    for (const listener of page.frameListeners) listener(run);
    // Once this frame is painted: the canvases it left for later (off-screen) and the screen-reader tables
    // (tensor-view.js drawDeferred); then the run is the page's lastRun and the listeners hear of it, so
    // that they see every canvas drawn and every table written.
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      if (mine !== page.generation) return; // a newer repaint is on its way and will tell them
      drawDeferred();
      page.lastRun = run;
      page.notify();
    };
    channel.port2.postMessage(null);
    // The runnable PyTorch for this state: it writes x out in full, which is slow for a large x, so it
    // waits until the controls have been still for a moment, outside the repaint budget.
    clearTimeout(page.snippetTimer);
    page.snippetTimer = setTimeout(() => {
      if (mine !== page.generation) return;
      const snippet = step.torch({ state: runState, inputs: run.inputs, fixture: page.fixture }); // the trained model's sizes and weights when model=trained
      shell.writeTorch(snippet);
    }, page.renderedSnippetStep === step.id ? 150 : 0);
    page.renderedSnippetStep = step.id;
  });
}
