// The playground: one state (state.js) → inputs (inputs.js) → the core API → views. Every change,
// from a control, the URL, the keyboard or the postMessage API, goes through `update` (load the state), which
// checks it against the state table, writes the URL and repaints: `compute` runs the step on the core, `draw`
// puts it on the page; `pointAt` points at a cell. Results from an older state are dropped when a newer one is
// already on its way.
import FORMULAS from 'virtual:formulas';
import CPP_PANELS from 'virtual:cpp-regions';
import { loadAttention } from '../core/index.js';
import { buildInputs, seedChangesEmbeddings } from './inputs.js';
import { HIDEABLE, parseState, serializeState, sortEdits, STEP_IDS, updateState } from './state.js';
import { STEP_BY_ID } from './steps.js';
import { createShell, splitExplanation, stepCountText } from './shell.js';
import { refreshChoices, renderControls } from './controls.js';
import { renderResults } from './results-view.js';
import { createModelSwitch } from './model-switch.js';
import { drawDeferred, setScaleMode } from './tensor-view.js';
import { clearInspected, onInspect, pointAt } from './cell-inspection.js';
import { exportStepFigure } from './figure-export.js';
import { setText, syncChildren } from './dom-sync.js';
import { STRINGS, format } from './strings.js';
import { createCrossoverControls, probeSetting } from './crossover-controls.js';
import { createExerciseSlot } from '../exercises/ui/slot.js';
import { createTrainedWalk } from './trained/walk-switch.js';

/**
 * Starts the playground in `root`.
 * @param {HTMLElement} root
 * @param {{fixture: object, loadOptions?: (backend: string) => Promise<object>, benchmarkUrl?: string|null}} options
 *   fixture: step 9's PyTorch case; loadOptions: extra loadAttention options per backend (the
 *   single-file build passes the inlined wasm bytes).
 * @returns {object} the page's programmatic interface (also used by the postMessage API and tests)
 */
export function startPlayground(root, { fixture, loadOptions = async () => ({}), benchmarkUrl = null }) {
  const parsed = parseState(location.search);
  let state = parsed.state;
  const shell = createShell(root, { benchmarkUrl });
  const backends = new Map(); // backend name → Promise of a loaded Attention object
  let generation = 0;
  let lastRun = null; // the last repaint on the page, complete (its tables written): what lastRun() and onRender give
  let latestRun = null; // the last computation, set as soon as its figures are built (for the repaints it triggers)
  let renderedStep = null;
  let snippetTimer = null;
  let renderedSnippetStep = null;
  const listeners = new Set();
  const frameListeners = new Set(); // told in the frame that shows a repaint's visible tensors (for measuring)
  const exercises = createExerciseSlot(shell.exercises, {
    openExercise: (id) => update({ exercise: id }, { force: true, push: id !== '' }),
    showStep: (step) => update({ step }, { force: true }),
  });

  function loadBackend(name, extra = {}) {
    if (!backends.has(name)) {
      // One thread and no GPU probe unless the learner turned it on (crossover-controls.js): the page's sizes
      // (T ≤ 32, d ≤ 64) are far below the workers' and any GPU's crossover, so workers would cost every visit
      // two more WASM instances, and asking for an adapter only to measure one would make a browser without a
      // GPU log "No available adapters." on every visit.
      const gpuProbe = name === 'auto' && probeSetting();
      backends.set(name, loadOptions(name).then((options) => loadAttention({ backend: name, threads: 1, gpuProbe, ...extra, ...options })));
      backends.get(name).catch(() => backends.delete(name)); // a failed load may succeed later
    }
    return backends.get(name);
  }

  // The GPU crossover in the settings panel ('Automatic' only). A change recomputes the step with it.
  const crossoverControls = createCrossoverControls(shell.settingsBody, {
    loadAuto: (extra) => loadBackend('auto', extra),
    reloadAuto: () => backends.delete('auto'),
    changed: () => { if (state.backend === 'auto') recompute(); },
  });
  crossoverControls.show(null, false);
  // A backend that switches under the page (a lost device moving 'auto' or 'webgpu' to WASM) repaints the
  // badge and says why; subscribed once per loaded Attention object.
  const watched = new WeakSet();
  function watchBackend(api) {
    if (watched.has(api) || typeof api.onBackendChange !== 'function') return;
    watched.add(api);
    api.onBackendChange(() => {
      delete shell.badge.dataset.fallbackShown;
      if (backends.get(state.backend) && latestRun) recompute();
    });
  }

  function showNotices(messages) {
    for (const message of messages) {
      const notice = document.createElement('p');
      notice.className = 'notice';
      notice.textContent = message;
      const dismiss = document.createElement('button');
      dismiss.type = 'button';
      dismiss.textContent = STRINGS.dismiss;
      dismiss.setAttribute('aria-label', `${STRINGS.dismiss}: ${message}`);
      dismiss.addEventListener('click', () => notice.remove());
      notice.append(' ', dismiss);
      shell.notices.append(notice);
    }
  }

  // The Training tab and step 12's demo (training/view.js, loaded when first needed: the walk does not pay for it).
  let trainingModule = null;
  let trainingTab = null;
  let learnDemo = null;
  const trainingListeners = new Set();
  function withTraining(make) {
    trainingModule ??= import('./training/view.js');
    return trainingModule.then(make);
  }
  function trainingNotice(text) { showNotices([text]); }
  function watchProgress(view) {
    view.onProgress((progress) => { for (const listener of trainingListeners) listener(progress); });
    return view;
  }
  // Step 10 with model=trained: the English model's heads, loaded when first shown.
  let headsPanel = null;
  function syncHeads() {
    const visible = state.view !== 'train' && state.step === 'multihead' && state.model === 'trained';
    if (!visible && !headsPanel) return Promise.resolve(null);
    return import('./trained/heads-panel.js').then(({ createHeadsPanel }) => {
      headsPanel ??= createHeadsPanel({ update: (changes) => update(changes, { fromControl: true }) });
      if (headsPanel.node.parentNode !== shell.headsSlot) shell.headsSlot.replaceChildren(headsPanel.node);
      return headsPanel.sync(state, visible).then(() => headsPanel);
    });
  }

  function syncTraining({ fromControl = false } = {}) {
    syncHeads().catch(showError);
    const tab = state.view === 'train';
    const demo = !tab && state.step === 'learn';
    // The tab's run goes on in its worker while the learner reads the walk; it is drawn again when shown.
    trainingTab?.setVisible(tab);
    if (!demo) {
      learnDemo?.pause();
      if (shell.learnSlot.firstChild) shell.learnSlot.replaceChildren();
    }
    if (!tab && !demo) return Promise.resolve(null);
    return withTraining(({ createTrainingView }) => {
      const onUpdate = (changes, options = {}) => update(changes, { fromControl: true, ...options });
      if (state.view === 'train') {
        trainingTab ??= watchProgress(createTrainingView({ mode: 'tab', update: onUpdate, notice: trainingNotice, loadOptions, carry: carryToWalk }));
        if (trainingTab.node.parentNode !== shell.trainingRoot) shell.trainingRoot.replaceChildren(trainingTab.node);
        trainingTab.sync(state, { fromControl });
        return trainingTab;
      }
      if (state.step === 'learn') {
        learnDemo ??= watchProgress(createTrainingView({ mode: 'demo', update: onUpdate, notice: trainingNotice, loadOptions }));
        if (learnDemo.node.parentNode !== shell.learnSlot) shell.learnSlot.replaceChildren(learnDemo.node);
        learnDemo.sync(state, { fromControl });
        return learnDemo;
      }
      return null;
    });
  }

  // The Real model view (view=model, real-model/view.js), loaded when first opened.
  let realModel = null;
  function syncModel() {
    const shown = state.view === 'model';
    realModel?.setVisible(shown);
    if (!shown) return;
    import('./real-model/view.js').then(({ createRealModelView }) => {
      realModel ??= createRealModelView({ update: (changes) => update(changes, { fromControl: true }) });
      if (realModel.node.parentNode !== shell.modelRoot) shell.modelRoot.replaceChildren(realModel.node);
      realModel.setVisible(state.view === 'model');
      realModel.sync(state);
    });
  }

  // A model trained on the tab's text task becomes the walk's "trained" weights, if it knows every word.
  function carryToWalk(bytes, vocabulary) {
    const { missing } = trainedWalk.carry(bytes, vocabulary, state.sentence);
    if (missing) {
      showNotices([format(STRINGS.training.carryMissing, { words: missing.map((w) => `“${w}”`).join(', ') })]);
      return;
    }
    update({ view: 'walk', step: 'weights', model: 'trained' }, { push: true, force: true });
    renderStep();
  }

  // Runs on every change: writes only what differs, since even an attribute set to its own value is a
  // mutation the browser checks its style against in the next frame.
  function setCurrent(link, current) {
    if (current && link.getAttribute('aria-current') !== 'page') link.setAttribute('aria-current', 'page');
    else if (!current && link.hasAttribute('aria-current')) link.removeAttribute('aria-current');
  }
  function applyChrome() {
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

  // The step's fixed parts: text, formula, code, controls. Rebuilt when the step changes or when the
  // state changed from outside the controls (URL, postMessage), so the controls show the new values.
  function renderStep() {
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
    // With the trained weights, the sizes the model fixes are shown and locked, with a note saying why, and the
    // Layer and Head controls join the step's.
    const trained = trainedWalk.controlsView(state, step.id);
    const shown = trained?.state ?? state;
    const notes = (trained?.notes ?? []).map(({ note, text }) => element('p', { class: 'trained-note', 'data-note': note }, text));
    renderedControls = controlsOf(step, state);
    renderedTrained = trainedKey(trained);
    shell.controls.replaceChildren(renderControls(renderedControls, shown, (changes) => update(changes, { fromControl: true })), ...notes);
    shell.tocLinks.forEach((link) => {
      if (link.dataset.step === step.id) link.setAttribute('aria-current', 'step');
      else link.removeAttribute('aria-current');
      link.href = `?${serializeState(updateState(state, { step: link.dataset.step }, { force: true }).state)}`;
    });
    shell.previous.disabled = step.number === 1;
    shell.next.disabled = step.number === STEP_IDS.length;
    renderedStep = step.id;
    exercises.render(state);
  }

  // The weights switch sits at the top of the step's picture wherever `model` changes the step (it replaces the
  // controls' dropdown); on step 10 with the trained model the English model's heads follow it, so the heads
  // that differ are what the switch shows first (the one-layer walk model's figures come after them).
  const modelSwitch = createModelSwitch((changes) => update(changes, { fromControl: true }));
  function placeModelSwitch(step) {
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

  // The controls that change something on this step: before the projections (steps 2–5) the seed only
  // reaches words without the book's vectors, so it shows only when the sentence has one (or d_in ≠ 3).
  const SEED_FOR_EMBEDDINGS_ONLY = ['loop', 'matmul', 'softmax', 'self-attention'];
  let renderedControls = [];
  function controlsOf(step, current) {
    const own = (step.controls ?? []).filter((name) => name !== 'model').filter((name) => name !== 'seed' || !SEED_FOR_EMBEDDINGS_ONLY.includes(step.id) || seedChangesEmbeddings(current));
    return [...own, ...(trainedWalk.controlsView(current, step.id)?.controls ?? [])]; // model=trained: Layer, Head
  }
  // With model=trained the controls show the model's sizes and the notes its layer and head: redrawn when they change.
  let renderedTrained = '';
  const trainedKey = (view) => (view ? JSON.stringify([view.state.T, view.state.dOut, view.notes]) : '');

  // A cell typed into one of the editable matrices (x or a projection weight): one edits list for all.
  function onEdit(matrix, row, col, value) {
    const edits = state.edits.filter((e) => !(e.matrix === matrix && e.row === row && e.col === col));
    update({ edits: sortEdits([...edits, { matrix, row, col, value }]) }, { fromControl: true });
  }

  const trainedWalk = createTrainedWalk(); // model=trained: the English model's layer (or a carried model's)

  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    node.textContent = text;
    return node;
  }

  // The controller's verbs: loadState (update, below) validates a change and writes the URL; compute runs the
  // step on the core; draw puts its result on the page; pointAt (the API) points at a cell. A repaint is
  // compute then draw; a result from an older state is dropped when a newer one is on its way.
  async function recompute() {
    const mine = ++generation;
    // One entry of each name is kept (the latest), so the timeline does not grow with every repaint.
    performance.clearMarks('ap:change');
    performance.mark('ap:change');
    const run = await compute(() => mine !== generation);
    if (run && mine === generation) draw(run, mine);
  }

  /**
   * Runs the current step on the core with the current state (or the trained model's sizes): the run
   * `{state, inputs, result, error, backend, ms}`, or null when `stale()` says a newer change came first or
   * the backend or the model could not load (the error is on the page).
   */
  async function compute(stale) {
    const step = STEP_BY_ID.get(state.step);
    let api;
    try {
      api = await loadBackend(state.backend);
    } catch (error) {
      if (stale()) return null;
      shell.badge.textContent = format(STRINGS.notAvailable, { reason: error.message });
      showError(error);
      return null;
    }
    if (stale()) return null;
    watchBackend(api);
    // The state the step computes with: the learner's, or the trained model's sentence and sizes.
    let runState = state;
    let inputs;
    if (trainedWalk.applies(state, step.id)) {
      try {
        const run = await trainedWalk.run(state, step.id);
        if (stale()) return null;
        if (run.loaded) renderStep(); // the controls show the model's sizes
        ({ state: runState, inputs } = run);
      } catch (error) {
        if (stale()) return null;
        showError(error);
        return null;
      }
    } else {
      inputs = buildInputs(state);
    }
    const started = performance.now();
    try {
      const result = await step.run({ api, inputs, state: runState, fixture, loadBackend });
      // A step that loads other backends (9) reports its own computation's time, not the loading's.
      return { step, api, run: { state: runState, inputs, result, error: null, backend: api.backend, ms: result.computeMs ?? performance.now() - started } };
    } catch (error) {
      if (stale()) return null;
      showError(error);
      lastRun = { state: runState, inputs, result: null, error: error.message };
      latestRun = lastRun;
      notify();
      return null;
    }
  }

  /** Puts a computed run on the page: the badge, the step's picture and checks, then the frame's listeners. */
  function draw({ step, api, run }, mine) {
    const { result, inputs, ms, state: runState } = run;
    showError(null);
    showBadge(api, ms);
    const hideChecks = state.hide.includes('checks');
    performance.clearMarks('ap:computed');
    performance.mark('ap:computed');
    const editable = !state.lock.includes('edits'); // an instructor may lock the matrices as well
    const nodes = renderResults(result, { stepId: step.id, onEdit: editable ? onEdit : null, hideChecks, backend: api.backend, maxWidth: resultsWidth(), head: runState.head, heads: runState.heads, onChange: () => recompute() });
    const showsEditable = result.tensors?.some((view) => view.editable);
    if (editable && state.edits.length > 0 && showsEditable) nodes.unshift(resetEditsButton);
    syncChildren(shell.results, nodes);
    placeModelSwitch(step);
    const tensors = result.tensors ?? [];
    if (shell.viewTools.hidden !== (tensors.length === 0)) shell.viewTools.hidden = tensors.length === 0;
    const weights = tensors.some((view) => view.kind === 'weights');
    if (shell.scaleField.hidden !== !weights) shell.scaleField.hidden = !weights;
    latestRun = run;
    // The repaint is done when the browser has painted the new frame: measured for the budgets.
    performance.clearMeasures('ap:draw');
    performance.measure('ap:draw', 'ap:computed');
    requestAnimationFrame(() => {
      performance.clearMeasures('ap:repaint');
      performance.measure('ap:repaint', 'ap:change');
      // The first step on screen, measured once (scripts/measure-page.mjs: load → first step drawn).
      if (performance.getEntriesByName('ap:first-repaint').length === 0) performance.measure('ap:first-repaint', 'ap:change');
      for (const listener of frameListeners) listener(run);
      // Once this frame is painted: the canvases it left for later (off-screen) and the screen-reader tables
      // (tensor-view.js drawDeferred); then the run is the page's lastRun and the listeners hear of it, so
      // that they see every canvas drawn and every table written.
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        if (mine !== generation) return; // a newer repaint is on its way and will tell them
        drawDeferred();
        lastRun = run;
        notify();
      };
      channel.port2.postMessage(null);
      // The runnable PyTorch for this state: it writes x out in full (up to 15 ms at T=32, d=64), so it
      // waits until the controls have been still for a moment, outside the repaint budget.
      clearTimeout(snippetTimer);
      snippetTimer = setTimeout(() => {
        if (mine !== generation) return;
        const snippet = step.torch({ state: runState, inputs, fixture }); // the trained model's sizes and weights when model=trained
        shell.writeTorch(snippet);
      }, renderedSnippetStep === step.id ? 150 : 0);
      renderedSnippetStep = step.id;
    });
  }

  // The width heatmaps may use, kept up to date by a ResizeObserver: reading clientWidth while
  // drawing would force a layout of the whole page in the middle of every repaint.
  // The content box, as the observer reports it: clientWidth counts main's padding (56 px at 1280), and
  // that difference alone once made the observer's first report schedule a second full repaint about
  // 200 ms after start-up, which closed a cell editor opened by then (the repaint replaced its panel).
  const mainStyle = getComputedStyle(shell.main);
  let availableWidth = (shell.main.clientWidth - parseFloat(mainStyle.paddingLeft) - parseFloat(mainStyle.paddingRight)) || 800;
  let resizeTimer = null;
  new ResizeObserver(([entry]) => {
    const width = entry.contentRect.width;
    if (!width || Math.abs(width - availableWidth) < 24) return;
    availableWidth = width;
    // Heatmaps are sized to the column: redraw once the window has settled (a phone turned sideways).
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (latestRun) recompute(); }, 200);
  }).observe(shell.main);
  // Colour maps follow the colour scheme; redraw when the reader switches it.
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => recompute());
  // Heatmaps use the column's whole width (their cells stop growing at 40 px).
  function resultsWidth() {
    return Math.max(240, availableWidth - 4);
  }

  // Values in the formula: the inspected weight's computation under the formula.
  // The pointed cell's computation goes into the box beside the cell (cell-inspection.js).
  onInspect((view, panel, row, col) => (shell.cellMath.show(view, panel, row, col) ? shell.cellMath.node : null));
  shell.scaleSelect.addEventListener('change', () => {
    setScaleMode(shell.scaleSelect.value);
    if (latestRun) recompute();
  });
  for (const [button, kind] of [[shell.figureSvgButton, 'svg'], [shell.figurePngButton, 'png']]) {
    button.addEventListener('click', () => {
      const step = STEP_BY_ID.get(state.step);
      exportStepFigure(`${step.number}. ${STRINGS.steps[step.id].title}`, kind, `step-${step.number}-${step.id}`).catch(showError);
    });
  }

  const resetEditsButton = document.createElement('button');
  resetEditsButton.type = 'button';
  resetEditsButton.className = 'reset-edits';
  resetEditsButton.textContent = STRINGS.resetEdits;
  resetEditsButton.addEventListener('click', () => update({ edits: [] }));

  function showBadge(api, ms) {
    const name = STRINGS.backendNames[api.backend] ?? api.backend;
    setText(shell.badge, format(STRINGS.badge, { backend: name, ms: ms.toFixed(2) }));
    const title = format(STRINGS.badgeTitle, { backend: name, ms: ms.toFixed(2) });
    // 'auto': the GPU crossover it routes by and which measurement decided it (docs/api.md, "Choosing the backend").
    const crossover = api.gpuCrossover;
    const badgeTitle = crossover ? `${title}. ${format(STRINGS.badgeCrossover, crossover)}` : title;
    if (shell.badge.title !== badgeTitle) shell.badge.title = badgeTitle;
    if (shell.badge.dataset.backend !== api.backend) shell.badge.dataset.backend = api.backend;
    crossoverControls.show(api, state.backend === 'auto');
    if (api.fallbackReason && !shell.badge.dataset.fallbackShown) {
      shell.badge.dataset.fallbackShown = '1';
      showNotices([format(STRINGS.fallback, { wanted: STRINGS.backendNames[state.backend], backend: name, reason: api.fallbackReason })]);
    }
  }

  function showError(error) {
    if (shell.error.hidden !== !error) shell.error.hidden = !error;
    const text = error ? format(STRINGS.error, { message: error.message }) : '';
    if (shell.error.textContent !== text) shell.error.textContent = text;
    if (error) {
      shell.results.replaceChildren();
      if (shell.headsSlot.parentNode !== shell.main) shell.main.insertBefore(shell.headsSlot, shell.learnSlot);
    }
  }

  function notify() {
    for (const listener of listeners) listener(lastRun);
  }

  // The address bar follows the state. A new step is a history entry; other changes replace the
  // current one once the controls have been still for 150 ms: history.replaceState costs milliseconds
  // (2-6 ms measured at T=32), and dragging a slider fires dozens of changes a second, so a write every
  // 150 ms during a drag landed in a frame about one change in three. A page left before then writes it.
  let urlTimer = null;
  function writeUrl(push) {
    clearTimeout(urlTimer);
    urlTimer = null;
    const search = serializeState(state);
    const url = `${location.pathname}${search ? `?${search}` : ''}${location.hash}`;
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
  }
  function scheduleUrlWrite() {
    clearTimeout(urlTimer);
    urlTimer = setTimeout(() => writeUrl(false), 150);
  }
  window.addEventListener('pagehide', () => { if (urlTimer !== null) writeUrl(false); });

  /**
   * Applies a partial state (validated against the table) and recomputes.
   * @returns {string[]} the notices the page shows for it: rejected values, and values moved to fit (heads)
   */
  function update(changes, { fromControl = false, force = false, push = false } = {}) {
    const before = state;
    const { state: next, notices, adjusted } = updateState(state, changes, { force });
    state = next;
    if (notices.length && !fromControl) showNotices(notices);
    showNotices(adjusted); // heads moved to a divisor of d_out: said even when a control moved d_out
    if (state.backend !== before.backend) {
      delete shell.badge.dataset.fallbackShown;
      shell.badge.textContent = STRINGS.loading;
    }
    const stepChanged = state.step !== before.step;
    if (push || stepChanged) writeUrl(true);
    else scheduleUrlWrite();
    applyChrome();
    const trained = trainedWalk.controlsView(state, state.step);
    const controlsChanged = controlsOf(STEP_BY_ID.get(state.step), state).join() !== renderedControls.join() || trainedKey(trained) !== renderedTrained;
    if (stepChanged || !fromControl || adjusted.length || state.layout !== before.layout || controlsChanged) renderStep();
    else refreshChoices(shell.controls, trained?.state ?? state);
    syncTraining({ fromControl });
    syncModel();
    if (stepChanged) {
      // A new step starts at its top, with keyboard focus on it (the pager sits at the bottom).
      shell.main.focus({ preventScroll: true });
      if (!state.embed) window.scrollTo(0, 0);
    }
    recompute();
    return [...notices, ...adjusted]; // what the frame shows, both kinds
  }

  function go(delta) {
    const index = STEP_IDS.indexOf(state.step) + delta;
    if (index >= 0 && index < STEP_IDS.length) update({ step: STEP_IDS[index] }, { force: true });
  }

  for (const [link, view] of [[shell.playgroundTab, 'walk'], [shell.trainingTab, 'train'], [shell.modelTab, 'model']]) {
    link.addEventListener('click', (event) => {
      event.preventDefault();
      update({ view }, { push: true });
      ({ train: shell.trainingRoot, model: shell.modelRoot }[view] ?? shell.main).focus({ preventScroll: true });
    });
  }
  shell.previous.addEventListener('click', () => go(-1));
  shell.next.addEventListener('click', () => go(1));
  shell.backendSelect.addEventListener('change', () => update({ backend: shell.backendSelect.value }, { fromControl: true }));
  for (const link of shell.tocLinks) {
    link.addEventListener('click', (event) => {
      event.preventDefault();
      update({ step: link.dataset.step }, { force: true });
    });
  }
  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    // Arrows belong to a focused control or menu (a text box, a select, a tab list, an open Export menu, a
    // button): they turn the page only from the page itself.
    if (event.target.closest?.('input, select, textarea, [contenteditable], button, summary, details[open], [role="tablist"], [role="menu"], [role="slider"], canvas')) return;
    if (state.view !== 'walk') return; // the arrows page through the walk's steps only
    if (event.key === 'ArrowLeft') go(-1);
    else if (event.key === 'ArrowRight') go(1);
  });
  // Touch: a sideways swipe across the step turns the page, unless it starts on something that scrolls or
  // takes touches itself (a heatmap, the formula, the code, a control, the step chips).
  let swipe = null;
  shell.main.addEventListener('pointerdown', (event) => {
    const own = event.target.closest?.('canvas, input, select, textarea, button, summary, pre, .formula, .panels, .toc, .backends, .tooltip');
    swipe = event.pointerType === 'touch' && !own ? { x: event.clientX, y: event.clientY, at: event.timeStamp } : null;
  });
  shell.main.addEventListener('pointerup', (event) => {
    if (!swipe || event.pointerType !== 'touch' || state.embed) return;
    const dx = event.clientX - swipe.x;
    const dy = event.clientY - swipe.y;
    const quick = event.timeStamp - swipe.at < 800;
    swipe = null;
    if (quick && Math.abs(dx) > 70 && Math.abs(dx) > 2 * Math.abs(dy)) go(dx < 0 ? 1 : -1);
  });
  shell.main.addEventListener('pointercancel', () => { swipe = null; });

  window.addEventListener('popstate', () => {
    const { state: fromUrl, notices } = parseState(location.search);
    state = fromUrl;
    showNotices(notices);
    applyChrome();
    renderStep();
    syncTraining();
    syncModel();
    recompute();
  });

  showNotices(parsed.notices);
  writeUrl(false); // the address bar shows the state actually on screen, rejected values dropped
  applyChrome();
  renderStep();
  syncTraining();
  syncModel();
  recompute();

  return {
    /** The current state (a copy). */
    getState: () => structuredClone(state),
    /** Applies a partial state; returns the notices the page shows for it (rejected values, values moved to fit). */
    setState: (changes) => update(changes),
    next: () => go(1),
    previous: () => go(-1),
    /** The last repaint, once complete (as onRender gives it): {state, inputs, result, error, backend, ms}. */
    lastRun: () => lastRun,
    /** Calls `listener(lastRun)` after every repaint, every tensor drawn (the off-screen ones too) and its table written. */
    onRender: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /**
     * Calls `listener(run)` from the animation frame that shows a repaint's tensors on screen (off-screen
     * canvases and the screen-reader tables follow right after it, and the run becomes lastRun): what
     * scripts/measure-page.mjs times.
     */
    onFrame: (listener) => {
      frameListeners.add(listener);
      return () => frameListeners.delete(listener);
    },
    /**
     * Points at cell (row, col) of a shown tensor (its `panel`: the head), as the pointer would: the cell and
     * its sources outlined, its computation beside it. Returns false when the step shows no such cell.
     */
    pointAt: (tensor, row, col, panel = 0) => pointAt(tensor, row, col, panel),
    /** The core's loader, one thread unless `options.threads` says otherwise (as the page itself). */
    loadAttention: (options) => loadAttention({ threads: 1, ...options }),
    get renderedStep() { return renderedStep; },
    /**
     * The training view on screen (the Training tab, or step 12's demo), loaded if needed; null elsewhere.
     * Its methods: play, pause, step, reset, getRun() → {config, step, losses}, snapshot(), entropy(), evaluate().
     */
    training: () => syncTraining({ fromControl: true }),
    /**
     * Step 10's panel of the English model's heads (model=trained), drawn for the current state; null before it
     * was first shown. Its methods: model() → the model interface (docs/api.md "Models").
     */
    heads: () => syncHeads(),
    /** The training view on screen if it is already loaded, else null (synchronous, for polling). */
    trainingView: () => (state.view === 'train' ? trainingTab : state.step === 'learn' ? learnDemo : null),
    /** Calls `listener({step, loss})` after every chunk of training steps. */
    onTrainProgress: (listener) => {
      trainingListeners.add(listener);
      return () => trainingListeners.delete(listener);
    },
  };
}
