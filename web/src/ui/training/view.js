// The training views: the Training tab (`view=train`, mode 'tab') and step 12's demo (mode 'demo'), one
// controller each. The controller owns a session (runner.js: a Web Worker, or this page's thread where
// workers cannot start), plays it in chunks that end on the history's saved steps, and draws what each
// chunk's snapshot holds: the loss curve, every layer's and head's attention with a scrubber over the
// saved history, the projection weights and their gradients, predictions and induction scores.
import '../training.css';
import { renderControls } from '../controls.js';
import { download } from '../export.js';
import { STRINGS, format } from '../strings.js';
import { completeConfig, demoSettings, isEnglishTask } from './config.js';
import { drawHeatmap, peaks, rowEntropy } from './heatmaps.js';
import { createLossChart } from './loss-chart.js';
import { startRunner } from './runner.js';
import { loadRun, saveRun } from './store.js';
import { element } from '../dom-sync.js';

const S = STRINGS.training;
const HISTORY_POINTS = 100; // saved snapshots per run (every Nth step)
const SLOW_MS = 400;
const MAX_CHUNK = 8; // steps per message to the worker: the page hears from a run at least every 8 steps

const button = (text, action) => element('button', { type: 'button', 'data-train': action }, text);

/** The Training tab's settings from the page state (its `train-` parameters). */
export function tabSettings(state) {
  return {
    task: state['train-task'], text: state['train-text'], layers: state['train-layers'], heads: state['train-heads'],
    dModel: state['train-d-model'], context: state['train-context'], lr: state['train-lr'], wd: state['train-wd'],
    batch: state['train-batch'], seed: state['train-seed'], steps: state['train-steps'], start: state['train-from'],
  };
}

const STATE_NAMES = { layers: 'train-layers', heads: 'train-heads', dModel: 'train-d-model', context: 'train-context', lr: 'train-lr', wd: 'train-wd', seed: 'train-seed' };

/**
 * @param {{mode: 'tab'|'demo', update: (changes: object) => void, notice: (text: string) => void,
 *   loadOptions?: (backend: string) => Promise<object>}} options loadOptions: the page's extra loadAttention options
 */
export function createTrainingView({ mode, update, notice, loadOptions = async () => ({}), carry = null }) {
  const tab = mode === 'tab';
  const node = element('section', { class: `training training-${mode}`, 'aria-label': tab ? S.title : S.demoTitle });
  let runner = null;
  let runnerPromise = null;
  let settings = null;
  let config = null;
  let key = null;
  let info = null;
  let losses = [];
  let evals = [];
  let history = []; // {step, attention: Float32Array[]}
  let latest = null;
  let shown = null; // the snapshot on screen (the scrubber may show an older one)
  let playing = false;
  let slow = false;
  let generation = 0;
  let hiddenPause = false;
  let lastRate = null; // steps/s averaged over the run: every chunk's steps over every chunk's time (not paused time)
  let runSteps = 0;
  let runSeconds = 0;
  let lastError = null;
  let storageReason = null;
  const progressListeners = new Set();
  let layerChoice = 0;
  let headsOff = []; // [[layer, head]] switched off in the held-out evaluation (ablation), 0-based

  // ----- the frame -----
  if (tab) {
    node.append(element('h2', { class: 'training-title' }, S.title), element('p', { class: 'explanation' }, S.intro));
  } else {
    node.append(element('h3', { class: 'training-title' }, S.demoTitle));
  }
  const taskWords = element('p', { class: 'task-words' });
  const controlsBox = element('div', { class: 'training-controls' });
  const buttons = element('div', { class: 'training-buttons', role: 'group', 'aria-label': S.title });
  const playButton = button(S.play, 'play');
  const stepButton = button(S.stepOnce, 'step');
  const slowButton = button(S.slow, 'slow');
  slowButton.setAttribute('aria-pressed', 'false');
  const resetButton = button(S.reset, 'reset');
  buttons.append(playButton, stepButton, slowButton, resetButton);
  const status = element('p', { class: 'training-status', 'data-train-status': '' });
  const engine = element('p', { class: 'training-engine' });
  const errorLine = element('p', { class: 'error', role: 'alert' });
  errorLine.hidden = true;
  const chart = createLossChart({ width: tab ? 620 : 440, height: tab ? 220 : 160 });
  const attentionBox = element('section', { class: 'training-attention', 'aria-label': S.attentionTitle });
  const attentionTitle = element('h3', {}, S.attentionTitle);
  const scrubberLabel = element('label', { for: `${mode}-scrubber` }, S.scrubber);
  const scrubber = element('input', { type: 'range', id: `${mode}-scrubber`, min: '0', max: '0', value: '0', step: '1', 'data-train': 'scrubber' });
  const scrubberValue = element('output', { for: `${mode}-scrubber` });
  const heatmapGrid = element('div', { class: 'training-heatmaps' });
  const entropyLine = element('p', { class: 'training-entropy' });
  // What each head does, by its scores (model/head-scores.js): the words name the pattern that formed
  const patternLine = element('p', { class: 'training-pattern', 'data-train': 'pattern', 'aria-live': 'polite' });
  // Switch heads off: the held-out loss with them off, beside the loss with every head on
  const ablationBox = element('fieldset', { class: 'training-ablation', 'data-train': 'ablation' });
  const ablationLine = element('p', { 'data-train': 'ablation-loss' });
  // The same weights as tables (screen readers, copying numbers), built when opened.
  const attentionTables = element('details', { class: 'attention-tables' });
  attentionTables.append(element('summary', {}, S.attentionTables));
  attentionTables.addEventListener('toggle', () => { if (attentionTables.open && shown) fillAttentionTables(shown); });
  attentionBox.append(attentionTitle, element('div', { class: 'scrubber' }, null), heatmapGrid, entropyLine, patternLine, ablationBox, attentionTables);
  attentionBox.children[1].append(scrubberLabel, scrubber, scrubberValue);
  const inductionBox = element('section', { class: 'training-induction', 'aria-label': S.inductionTitle });
  const weightsBox = element('section', { class: 'training-weights' });
  const predictionsBox = element('section', { class: 'training-predictions', 'aria-label': S.predictionsTitle });
  const saveBox = element('section', { class: 'training-save', 'aria-label': S.save });

  node.append(taskWords);
  if (tab) node.append(controlsBox);
  node.append(buttons, status, engine, errorLine, chart.node, attentionBox);
  if (tab) node.append(inductionBox, weightsBox, predictionsBox, saveBox);

  // ----- save and load -----
  const fileWeights = element('input', { type: 'file', accept: '.safetensors', id: `${mode}-load-weights`, 'data-train': 'load-weights' });
  const fileRun = element('input', { type: 'file', accept: '.json,application/json', id: `${mode}-load-run`, 'data-train': 'load-run' });
  if (tab) {
    saveBox.append(element('h3', {}, S.save));
    const row = element('div', { class: 'training-buttons' });
    row.append(button(S.downloadWeights, 'download-weights'), button(S.downloadRun, 'download-run'), button(S.downloadCsv, 'download-csv'));
    if (carry) row.append(button(S.carry, 'carry'));
    const loads = element('div', { class: 'training-loads' });
    loads.append(element('label', { for: fileWeights.id }, S.loadWeights), fileWeights, element('label', { for: fileRun.id }, S.loadRun), fileRun);
    saveBox.append(row, loads);
  }

  function showError(error) {
    lastError = error ? error.message ?? String(error) : null;
    errorLine.hidden = !error;
    errorLine.textContent = error ? format(S.badConfig, { message: lastError }) : '';
  }

  function tokenName(id) {
    if (config?.vocabulary) return config.vocabulary[id] ?? String(id);
    return String(id);
  }

  // ----- drawing -----
  function total() { return settings?.steps ?? 0; }
  function every() { return Math.max(1, Math.ceil(total() / HISTORY_POINTS)); }

  function renderStatus() {
    const step = info ? latest?.step ?? 0 : 0;
    const last = losses.length ? losses[losses.length - 1] : null;
    if (!playing && losses.length === 0) status.textContent = format(S.statusIdle, { step, total: total() });
    else {
      status.textContent = format(S.status, {
        step, total: total(), loss: last == null ? '—' : last.toFixed(4), evalLoss: latest ? latest.evalLoss.toFixed(4) : '—',
        stepsPerSecond: lastRate ? lastRate.toFixed(1) : '—', tokensPerSecond: lastRate ? Math.round(lastRate * settings.batch * (config?.context ?? settings.context)) : '—',
      });
    }
    status.dataset.step = String(step);
    playButton.textContent = playing ? S.pause : S.play;
    playButton.dataset.train = playing ? 'pause' : 'play';
    stepButton.disabled = playing;
  }

  function labelsOf(snapshot) {
    const first = snapshot.predictions?.[0];
    return first ? first.map((p) => tokenName(p.input)) : null;
  }

  const canvases = new Map();
  function canvas(id, label) {
    if (!canvases.has(id)) canvases.set(id, element('canvas', { role: 'img', 'data-heatmap': id }));
    const c = canvases.get(id);
    c.setAttribute('aria-label', label);
    return c;
  }

  let labels = null;
  function drawAttention(snapshot) {
    shown = snapshot;
    const { heads: H, T } = latest;
    const nodes = [];
    const width = tab ? 220 : 300;
    snapshot.attention.forEach((weights, layer) => {
      for (let h = 0; h < H; h++) {
        const title = format(S.layerHead, { layer: layer + 1, head: h + 1 });
        const c = canvas(`attention-${layer}-${h}`, format(S.heatmapLabel, { layer: layer + 1, head: h + 1, step: snapshot.step, peaks: peaks(weights, h, T, labels) }));
        drawHeatmap(c, { values: weights.subarray(h * T * T, (h + 1) * T * T), rows: T, cols: T, kind: 'weights', causal: true, title, rowLabels: labels, colLabels: labels, maxWidth: width });
        nodes.push(c);
      }
    });
    if (heatmapGrid.children.length !== nodes.length || nodes.some((n, i) => heatmapGrid.children[i] !== n)) heatmapGrid.replaceChildren(...nodes);
    const entropy = rowEntropy(snapshot.attention[0], H, T);
    entropyLine.textContent = format(S.entropy, { entropy: entropy.toFixed(3) });
    entropyLine.dataset.entropy = String(entropy);
    scrubberValue.textContent = format(S.scrubberValue, { step: snapshot.step });
    if (attentionTables.open) fillAttentionTables(snapshot);
  }

  function fillAttentionTables(snapshot) {
    const { heads: H, T } = latest;
    const tables = [];
    snapshot.attention.forEach((weights, layer) => {
      for (let h = 0; h < H; h++) {
        const table = element('table', { 'data-train': 'attention-table', 'data-layer': String(layer), 'data-head': String(h) });
        table.append(element('caption', {}, `${format(S.layerHead, { layer: layer + 1, head: h + 1 })}, ${format(S.scrubberValue, { step: snapshot.step })}`));
        const head = element('tr');
        head.append(element('th', { scope: 'col' }));
        for (let k = 0; k < T; k++) head.append(element('th', { scope: 'col' }, labels ? labels[k] : String(k)));
        const body = element('tbody');
        for (let t = 0; t < T; t++) {
          const row = element('tr');
          row.append(element('th', { scope: 'row' }, labels ? labels[t] : String(t)));
          for (let k = 0; k < T; k++) row.append(element('td', {}, k > t ? STRINGS.masked : weights[(h * T + t) * T + k].toFixed(3)));
          body.append(row);
        }
        table.append(element('thead'), body);
        table.tHead.append(head);
        tables.push(table);
      }
    });
    attentionTables.replaceChildren(attentionTables.firstChild, ...tables);
  }

  function drawPattern(snapshot) {
    patternLine.hidden = !snapshot.headScores;
    if (!snapshot.headScores) return;
    const one = (h) => format(h.label ? S.patternHead : S.patternNone, {
      layer: h.layer + 1, head: h.head + 1, label: h.label, step: snapshot.headScoresStep ?? snapshot.step,
      previous: h.previousToken.toFixed(2), induction: h.induction.toFixed(2), threshold: snapshot.thresholds.previousToken.toFixed(2),
    });
    patternLine.textContent = snapshot.headScores.map(one).join(' ');
    patternLine.dataset.labels = snapshot.headScores.map((h) => h.label ?? '').join(',');
  }

  function drawAblation(snapshot) {
    const { heads: H } = snapshot;
    const layers = snapshot.attention.length;
    if (ablationBox.dataset.shape !== `${layers}x${H}`) {
      ablationBox.dataset.shape = `${layers}x${H}`;
      headsOff = headsOff.filter(([l, h]) => l < layers && h < H);
      const boxes = [];
      for (let l = 0; l < layers; l++) {
        for (let h = 0; h < H; h++) {
          const id = `${mode}-off-${l}-${h}`;
          const box = element('input', { type: 'checkbox', id, 'data-train': 'head-off', 'data-layer': String(l), 'data-head': String(h) });
          box.checked = headsOff.some(([a, b]) => a === l && b === h);
          box.addEventListener('change', () => {
            headsOff = headsOff.filter(([a, b]) => !(a === l && b === h));
            if (box.checked) headsOff.push([l, h]);
            if (runner && !playing) runner.call({ type: 'snapshot', view: viewOptions() }).then((r) => applySnapshot(r.snapshot)).catch(showError);
          });
          const label = element('label', { for: id, style: 'margin-right:12px' }, ` ${format(S.layerHead, { layer: l + 1, head: h + 1 })}`);
          boxes.push(element('span', {}, null));
          boxes[boxes.length - 1].append(box, label);
        }
      }
      ablationBox.replaceChildren(element('legend', {}, S.ablationTitle), ...boxes, ablationLine);
    }
    const a = snapshot.ablation;
    ablationLine.textContent = a
      ? format(S.ablationLoss, { before: a.before.toFixed(4), after: a.after.toFixed(4), heads: a.headsOff.map(([l, h]) => format(S.layerHead, { layer: l + 1, head: h + 1 })).join(', ') })
      : S.ablationNone;
    ablationLine.dataset.before = a ? String(a.before) : '';
    ablationLine.dataset.after = a ? String(a.after) : '';
  }

  function drawInduction(snapshot) {
    if (!snapshot.induction) { inductionBox.hidden = true; return; }
    inductionBox.hidden = false;
    const table = element('table', { 'data-train': 'induction' });
    table.append(element('caption', {}, S.inductionTitle));
    const head = element('tr');
    head.append(element('th', { scope: 'col' }, S.layerChoice));
    for (let h = 0; h < snapshot.heads; h++) head.append(element('th', { scope: 'col' }, format(STRINGS.headLabel, { h: h + 1 })));
    const body = element('tbody');
    snapshot.induction.forEach((scores, layer) => {
      const row = element('tr');
      row.append(element('th', { scope: 'row' }, String(layer + 1)));
      scores.forEach((score, h) => {
        const head = snapshot.headScores?.find((x) => x.layer === layer && x.head === h);
        const cell = element('td', { 'data-label': head?.label ?? '' }, format(S.headScoresCell, {
          previous: head ? head.previousToken.toFixed(2) : '—', induction: score.toFixed(2), label: head?.label ?? S.noLabel,
        }));
        row.append(cell);
      });
      body.append(row);
    });
    table.append(element('thead'), body);
    table.tHead.append(head);
    inductionBox.replaceChildren(table);
  }

  const layerSelect = element('select', { id: `${mode}-weights-layer`, 'data-train': 'weights-layer' });
  layerSelect.addEventListener('change', () => {
    layerChoice = Number(layerSelect.value);
    if (runner && !playing) runner.call({ type: 'snapshot', view: viewOptions() }).then((r) => applySnapshot(r.snapshot)).catch(showError);
  });
  function drawWeights(snapshot) {
    if (!snapshot.weights) return;
    if (layerSelect.options.length !== config.layers) {
      layerSelect.replaceChildren(...Array.from({ length: config.layers }, (_, l) => element('option', { value: String(l) }, String(l + 1))));
      layerSelect.value = String(Math.min(layerChoice, config.layers - 1));
    }
    const title = element('h3', {}, format(S.weightsTitle, { layer: snapshot.layer + 1 }));
    const choose = element('p');
    choose.append(element('label', { for: layerSelect.id }, S.layerChoice), ' ', layerSelect);
    const grid = element('div', { class: 'training-heatmaps' });
    const d = config.dModel;
    for (const { name, weight, grad } of snapshot.weights) {
      for (const [values, isGrad] of [[weight.data, false], [grad?.data, true]]) {
        if (!values) continue;
        const label = format(S.weightLabel, { name, layer: snapshot.layer + 1, grad: isGrad ? S.gradient : '' });
        const c = canvas(`${name}-${isGrad ? 'grad' : 'weight'}`, label);
        drawHeatmap(c, { values, rows: d, cols: d, kind: 'signed', title: `${name}${isGrad ? ' grad' : ''}`, maxWidth: 190 });
        grid.append(c);
      }
    }
    weightsBox.replaceChildren(title, choose, grid);
  }

  function drawPredictions(snapshot) {
    if (!snapshot.predictions) return;
    const parts = [element('h3', {}, S.predictionsTitle)];
    snapshot.predictions.forEach((sequence, b) => {
      const table = element('table', { class: 'predictions', 'data-train': 'predictions' });
      table.append(element('caption', {}, `#${b + 1}`));
      const head = element('tr');
      for (const title of [STRINGS.position, S.input, S.targetWord, S.guesses]) head.append(element('th', { scope: 'col' }, title));
      const body = element('tbody');
      sequence.forEach((p, t) => {
        const row = element('tr');
        const scored = p.target !== -100;
        const correct = scored && p.guesses[0].token === p.target;
        row.className = scored ? (correct ? 'right' : 'wrong') : 'unscored';
        row.append(element('td', {}, String(t)), element('td', {}, tokenName(p.input)), element('td', {}, scored ? tokenName(p.target) : S.notScored),
          element('td', {}, p.guesses.map((g) => `${tokenName(g.token)} ${(g.p * 100).toFixed(0)}%`).join(', ')));
        body.append(row);
      });
      table.append(element('thead'), body);
      table.tHead.append(head);
      parts.push(table);
    });
    predictionsBox.replaceChildren(...parts);
  }

  // While the view is off screen (the learner went back to the walk), a run goes on in its worker and the
  // page only keeps the numbers; the drawing waits until the view is shown again.
  let visible = true;
  let stale = false;
  function applySnapshot(snapshot) {
    latest = snapshot;
    labels = labelsOf(snapshot);
    if (snapshot.step > 0 && !evals.some(([s]) => s === snapshot.step)) evals.push([snapshot.step, snapshot.evalLoss]);
    if (!history.length || history[history.length - 1].step !== snapshot.step) {
      if (snapshot.step % every() === 0 || snapshot.step === total()) history.push({ step: snapshot.step, attention: snapshot.attention });
    }
    if (!visible) {
      stale = true;
      return;
    }
    // One drawing per animation frame, of the latest snapshot: replies that come faster than frames (small
    // models, one step per chunk in slow motion or on the page thread) no longer each redraw every panel.
    stale = true;
    if (drawFrame === null) {
      drawFrame = requestAnimationFrame(() => {
        drawFrame = null;
        if (visible && stale && latest) draw(latest);
      });
    }
  }
  let drawFrame = null;

  function draw(snapshot) {
    stale = false;
    scrubber.max = String(Math.max(0, history.length - 1));
    scrubber.value = scrubber.max;
    drawAttention(snapshot);
    drawPattern(snapshot);
    drawAblation(snapshot);
    if (tab) {
      drawInduction(snapshot);
      drawWeights(snapshot);
      drawPredictions(snapshot);
    }
    chart.setHistory(losses, evals);
    renderStatus();
  }

  scrubber.addEventListener('input', () => {
    const entry = history[Number(scrubber.value)];
    if (entry && latest) drawAttention({ ...latest, step: entry.step, attention: entry.attention });
  });

  function viewOptions() {
    return { layer: layerChoice, predictions: tab ? 2 : 1, weights: tab, headsOff: headsOff.map((p) => [...p]) };
  }

  // ----- running -----
  function setInfo(reply) {
    info = reply;
    const where = runner.where === 'worker' ? S.inWorker : format(S.onMainThread, { reason: runner.reason });
    const name = STRINGS.backendNames[reply.backend] ?? reply.backend;
    const text = format(S.engine, { backend: name, threads: reply.threads, where });
    engine.textContent = reply.fallback
      ? `${text}. ${format(STRINGS.fallback, { wanted: STRINGS.backendNames[reply.requested] ?? reply.requested, backend: name, reason: reply.fallback })}`
      : text;
    engine.dataset.where = runner.where;
    engine.dataset.backend = reply.backend;
  }

  function ensureRunner() {
    runnerPromise ??= startRunner(async () => {
      const { wasmBinary } = await loadOptions('auto');
      return wasmBinary ? { wasmBinary } : {};
    }).then((r) => { runner = r; return r; });
    return runnerPromise;
  }

  async function init({ restore = false } = {}) {
    const mine = ++generation;
    playing = false;
    losses = [];
    evals = [];
    history = [];
    latest = null;
    lastRate = null;
    runSteps = 0;
    runSeconds = 0;
    await ensureRunner();
    if (mine !== generation) return;
    let reply;
    let saved = null;
    if (restore && tab) {
      saved = await loadRun();
      if (saved?.error) {
        storageReason = saved.error;
        notice(format(S.storageRefused, { reason: saved.error }));
        saved = null;
      }
      if (saved && saved.key !== key) saved = null;
    }
    try {
      reply = saved
        ? await runner.call({ type: 'load', bytes: saved.bytes, config, view: viewOptions() })
        : await runner.call({ type: 'init', config, view: viewOptions() });
    } catch (error) {
      if (mine === generation) showError(error);
      return;
    }
    if (mine !== generation) return;
    showError(null);
    if (saved) {
      losses = [...saved.losses];
      evals = saved.evals.map((e) => [...e]);
      notice(format(S.restored, { step: reply.step }));
    }
    // The English tasks' session fills in the shipped model's sizes and token texts.
    if (reply.config?.vocabulary && isEnglishTask(reply.config.task)) {
      config = { ...reply.config, backend: config.backend };
      renderTaskWords();
    }
    setInfo(reply);
    applySnapshot(reply.snapshot);
  }

  // Messages reach the session in order, so a chunk of steps already sent finishes on the old backend and the
  // next one runs on the new.
  async function switchBackend() {
    if (!config) return;
    config = { ...config, backend };
    if (!runner || !info) return; // the run starting now takes config.backend
    const mine = generation;
    try {
      const reply = await runner.call({ type: 'backend', backend, view: viewOptions() });
      if (mine !== generation) return;
      setInfo(reply);
      applySnapshot(reply.snapshot);
    } catch (error) {
      if (mine === generation) showError(error);
    }
  }

  function announce() {
    const last = losses[losses.length - 1];
    for (const listener of progressListeners) listener({ step: latest?.step ?? 0, loss: last ?? null });
  }

  async function runChunk(count) {
    const mine = generation;
    const started = performance.now();
    const reply = await runner.call({ type: 'steps', count, view: viewOptions() });
    if (mine !== generation) return false;
    const seconds = (performance.now() - started) / 1000;
    runSteps += reply.losses.length;
    runSeconds += seconds;
    lastRate = runSteps / Math.max(runSeconds, 1e-6);
    while (losses.length < reply.first) losses.push(null);
    losses.splice(reply.first, reply.losses.length, ...reply.losses);
    applySnapshot(reply.snapshot);
    announce();
    return true;
  }

  async function play() {
    if (playing || !runner || !info) return;
    playing = true;
    renderStatus();
    const mine = generation;
    try {
      while (playing && mine === generation && (latest?.step ?? 0) < total()) {
        const step = latest.step;
        const n = every();
        // In a worker, chunks end on the history's steps; on the page, one step per slice.
        let count = slow ? 1 : Math.min(MAX_CHUNK, n - (step % n));
        if (runner.where === 'main') count = 1;
        count = Math.min(count, total() - step);
        const started = performance.now();
        if (!(await runChunk(count))) return;
        if (slow) await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
        // Off screen (the reader is in the walk), the run takes at most half the time, so that on a machine
        // with few cores the page's repaints keep the CPU they need.
        else if (!visible) await new Promise((resolve) => setTimeout(resolve, performance.now() - started));
      }
    } catch (error) {
      showError(error);
    }
    if (mine !== generation) return;
    playing = false;
    renderStatus();
    persist();
  }

  function pause() {
    if (!playing) return;
    playing = false;
    renderStatus();
  }

  async function stepOnce() {
    if (playing || !runner || !info) return;
    try {
      await runChunk(1);
    } catch (error) {
      showError(error);
    }
    persist();
  }

  async function reset() {
    playing = false;
    const mine = ++generation;
    await ensureRunner();
    const reply = await runner.call({ type: 'reset', view: viewOptions() });
    if (mine !== generation) return;
    losses = [];
    evals = [];
    history = [];
    lastRate = null;
    runSteps = 0;
    runSeconds = 0;
    setInfo(reply);
    applySnapshot(reply.snapshot);
    persist();
  }

  let persisting = Promise.resolve();
  function persist() {
    if (!tab || !runner || !info) return persisting;
    const mine = generation;
    persisting = persisting.then(async () => {
      if (mine !== generation) return;
      const { bytes } = await runner.call({ type: 'save' });
      const reason = await saveRun({ key, settings, losses, evals, bytes });
      if (reason && !storageReason) {
        storageReason = reason;
        notice(format(S.storageRefused, { reason }));
      }
    }).catch(() => {});
    return persisting;
  }

  playButton.addEventListener('click', () => (playing ? pause() : play()));
  stepButton.addEventListener('click', () => stepOnce());
  slowButton.addEventListener('click', () => {
    slow = !slow;
    slowButton.setAttribute('aria-pressed', String(slow));
  });
  resetButton.addEventListener('click', () => reset());

  document.addEventListener('visibilitychange', () => {
    if (document.hidden && playing) {
      hiddenPause = true;
      pause();
      notice(S.hiddenPaused);
    } else if (!document.hidden && hiddenPause) {
      hiddenPause = false;
      play();
    }
  });

  // ----- files -----
  function runJson() {
    return { format: 'attention-playground-run', version: 1, settings, backend: info?.backend ?? null, step: latest?.step ?? 0, losses, evals };
  }
  saveBox.addEventListener('click', async (event) => {
    const action = event.target.closest('button')?.dataset.train;
    if (!action || !runner) return;
    const stem = `attention-${settings.task}-seed${settings.seed}-step${latest?.step ?? 0}`;
    if (action === 'download-weights') {
      const { bytes } = await runner.call({ type: 'save' });
      download(new Blob([bytes], { type: 'application/octet-stream' }), `${stem}.safetensors`);
    } else if (action === 'download-run') {
      download(new Blob([JSON.stringify(runJson(), null, 1)], { type: 'application/json' }), `${stem}.json`);
    } else if (action === 'carry') {
      if (settings.task !== 'text') {
        notice(S.carryNeedsText);
        return;
      }
      const { bytes } = await runner.call({ type: 'save' });
      carry(bytes, config.vocabulary);
    } else if (action === 'download-csv') {
      const held = new Map(evals);
      const rows = ['step,loss,held_out_loss', ...losses.map((l, i) => `${i + 1},${l ?? ''},${held.get(i + 1) ?? ''}`)];
      download(new Blob([`${rows.join('\n')}\n`], { type: 'text/csv' }), `${stem}.csv`);
    }
  });

  async function loadWeights(bytes, name) {
    const mine = ++generation;
    playing = false;
    try {
      const reply = await runner.call({ type: 'load', bytes, config, view: viewOptions() });
      if (mine !== generation) return;
      config = reply.config;
      settings = { ...settings, ...Object.fromEntries(Object.keys(STATE_NAMES).map((k) => [k, config[k]])) };
      key = JSON.stringify(settings);
      update(Object.fromEntries(Object.entries(STATE_NAMES).map(([k, n]) => [n, config[k]])), { fromControl: false });
      losses = new Array(reply.step).fill(null);
      evals = [];
      history = [];
      showError(null);
      setInfo(reply);
      applySnapshot(reply.snapshot);
      notice(format(S.loaded, { name, step: reply.step }));
      persist();
    } catch (error) {
      notice(format(S.loadFailed, { name, message: error.message }));
    }
  }
  fileWeights.addEventListener('change', async () => {
    const file = fileWeights.files[0];
    if (file) await loadWeights(new Uint8Array(await file.arrayBuffer()), file.name);
    fileWeights.value = '';
  });
  fileRun.addEventListener('change', async () => {
    const file = fileRun.files[0];
    fileRun.value = '';
    if (!file) return;
    try {
      const run = JSON.parse(await file.text());
      if (run?.format !== 'attention-playground-run' || !run.settings || !Array.isArray(run.losses)) throw new Error('not a run file written by this page');
      const s = run.settings;
      update({ 'train-task': s.task, 'train-text': s.text, 'train-batch': s.batch, 'train-steps': s.steps, ...Object.fromEntries(Object.entries(STATE_NAMES).map(([k, n]) => [n, s[k]])) }, { fromControl: false });
      chart.setLoaded(run.losses);
      notice(format(S.loaded, { name: file.name, step: run.step }));
    } catch (error) {
      notice(format(S.loadFailed, { name: file.name, message: error.message }));
    }
  });

  // ----- the page's state -----
  function renderTaskWords() {
    const words = S.taskWords[settings.task] ?? '';
    const vocabulary = config ? ` ${format(S.vocabulary, { count: config.vocabSize })}.` : '';
    taskWords.textContent = `${words}${vocabulary}`;
  }

  function renderTabControls(state) {
    const onChange = (changes) => update(changes, { fromControl: true });
    const groups = [
      [S.taskLegend, ['train-task', 'train-text', 'train-from']],
      [S.model, ['train-layers', 'train-heads', 'train-d-model', 'train-context']],
      [S.optimiser, ['train-lr', 'train-wd', 'train-batch', 'train-seed', 'train-steps']],
    ];
    controlsBox.replaceChildren(...groups.map(([legend, names]) => {
      const fieldset = renderControls(names, state, onChange);
      fieldset.querySelector('legend').textContent = legend;
      if (names.includes('train-layers')) modelControls = fieldset;
      return fieldset;
    }));
  }
  // The English tasks' model is the shipped one: its size controls do not apply, so they are disabled.
  let modelControls = null;
  function lockModelControls(state) {
    if (!modelControls) return;
    const locked = isEnglishTask(state['train-task']);
    modelControls.disabled = locked;
    modelControls.title = locked ? S.modelFixed : '';
    modelControls.dataset.locked = String(locked);
  }

  let first = true;
  let backend = 'auto'; // the header's backend choice (state.backend): the trainer's too
  /**
   * Follows the page's state: new settings start a new run (same seed: same initial weights); a new backend
   * choice moves the run on to it from where it is.
   */
  function sync(state, { fromControl = false } = {}) {
    const next = tab ? tabSettings(state) : demoSettings(state);
    if (tab && (!fromControl || first)) renderTabControls(state);
    if (tab) lockModelControls(state);
    const nextKey = JSON.stringify(next);
    const backendChanged = state.backend !== backend;
    backend = state.backend;
    if (nextKey === key) {
      if (backendChanged) switchBackend();
      return;
    }
    settings = next;
    key = nextKey;
    try {
      config = { ...completeConfig(settings), backend };
    } catch (error) {
      config = null;
      generation++;
      playing = false;
      showError(error);
      return;
    }
    renderTaskWords();
    const restore = first;
    first = false;
    init({ restore });
  }

  return {
    node,
    sync,
    play,
    pause,
    step: stepOnce,
    /** Shown or not: a run goes on either way; drawing resumes when shown. */
    setVisible(value) {
      visible = value;
      if (visible && stale && latest) draw(latest);
    },
    reset,
    /** Resolves when the session has drawn its current settings (after sync or a load). */
    async ready() {
      while (!latest || !info) await new Promise((r) => setTimeout(r, 20));
    },
    /** {config, step, losses}: the reply to the postMessage API's get-run. */
    getRun() {
      // The English tasks' model is the shipped one's, whatever the model controls say.
      const fixed = settings && config && isEnglishTask(settings.task) ? { layers: config.layers, heads: config.heads, dModel: config.dModel, context: config.context } : {};
      return { config: settings ? { ...settings, ...fixed, vocabSize: config?.vocabSize ?? null, backend: info?.backend ?? null } : null, step: latest?.step ?? 0, losses: [...losses], evals: evals.map((e) => [...e]), error: lastError };
    },
    /** The snapshot last drawn (for tests and scripts). */
    snapshot: () => latest,
    entropy: () => (latest ? rowEntropy(latest.attention[0], latest.heads, latest.T) : null),
    evaluate: async () => runner.call({ type: 'evaluate' }),
    get playing() { return playing; },
    get where() { return runner?.where ?? null; },
    persist,
    onProgress(listener) {
      progressListeners.add(listener);
      return () => progressListeners.delete(listener);
    },
  };
}
