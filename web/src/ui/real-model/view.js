// The Real model view (view=model): a GPT-2-family checkpoint's own heads on the learner's text. The checkpoint
// comes from the built-in tiny model (tiny-model.js, random weights: untrained), a Hugging Face repository or URL (streamed
// with progress, cancellable, cached; "forget" empties the cache) or picked files; the forward runs on the WASM
// fast path (the JS reference where WASM cannot load) with every layer's weights, and again with the heads the
// learner switched off. Shows every layer × head's weights, the next-token top-10, and how long the forward took,
// on which backend and how many threads: createGpt2's threads 'auto' (two or more Web Workers where the model is
// large enough to pay for them, GPT-2 small; none for the tiny model) or the count model-threads asks for, the
// workers then running every forward.
import { createGpt2 } from '../../gpt2/model.js';
import { forgetCheckpoints } from '../../gpt2/fetch-file.js';
import { hubUrl, loadGpt2FromFiles, loadGpt2FromUrl } from '../../gpt2/load.js';
import { gpt2ParameterCount } from '../../gpt2/checkpoint.js';
import { planGpt2Workers } from '../../gpt2/worker-plan.js';
import { headScores } from '../../model/head-scores.js';
import { drawHeatmap } from '../training/heatmaps.js';
import { element, setHidden, setText } from '../dom-sync.js';
import { MODEL_THREADS } from '../state.js';
import { STRINGS, format } from '../strings.js';
import { tinyCheckpoint } from './tiny-model.js';
import './real-model.css';

const S = STRINGS.realModel;
const TOP = 10;
const MAX_SHOWN_TOKENS = 64;

/** The base URL a source names: 'tiny' → null (built in), a URL as given, a repository → the hub's resolve URL. */
export function sourceUrl(source) {
  if (source === 'tiny') return null;
  if (/^(https?:)?\/\//.test(source) || source.startsWith('/')) return source;
  return hubUrl(source);
}

const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const showToken = (text) => JSON.stringify(text).slice(1, -1).replace(/ /g, '␣');

function softmaxTop(logits, V, row, k) {
  const offset = row * V;
  let max = -Infinity;
  for (let v = 0; v < V; v++) max = Math.max(max, logits[offset + v]);
  let sum = 0;
  for (let v = 0; v < V; v++) sum += Math.exp(logits[offset + v] - max);
  const ids = Array.from({ length: V }, (_, v) => v).sort((a, b) => logits[offset + b] - logits[offset + a]).slice(0, k);
  return { ids, probability: (id) => Math.exp(logits[offset + id] - max) / sum };
}

/**
 * {node, sync(state), setVisible(visible)}; update(changes) writes the view's state rows (model-source, model-text,
 * model-threads); loadOptions(backend) → the page's extra options for the core (the single-file page's wasmBinary).
 */
export function createRealModelView({ update, loadOptions = async () => ({}) }) {
  const node = element('section', { class: 'real-model', 'aria-labelledby': 'real-model-title' });
  node.append(element('h2', { id: 'real-model-title' }, S.title), element('p', { class: 'explanation' }, S.intro));

  const form = element('form', { class: 'real-model-source' });
  const sourceInput = element('input', { id: 'real-model-source', type: 'text', name: 'model-source', 'aria-describedby': 'real-model-source-hint', spellcheck: 'false', autocomplete: 'off' });
  const loadButton = element('button', { type: 'submit', 'data-action': 'load-model' }, S.load);
  const cancelButton = element('button', { type: 'button', 'data-action': 'cancel-load' }, S.cancel);
  const forgetButton = element('button', { type: 'button', 'data-action': 'forget-models' }, S.forget);
  cancelButton.disabled = true;
  const sourceRow = element('div', { class: 'real-model-row' });
  sourceRow.append(element('label', { for: 'real-model-source' }, S.sourceLabel), sourceInput, loadButton, cancelButton, forgetButton);
  const filesInput = element('input', { id: 'real-model-files', type: 'file', multiple: '' });
  const filesRow = element('div', { class: 'real-model-row' });
  filesRow.append(element('label', { for: 'real-model-files' }, S.filesLabel), filesInput);
  // What else the Checkpoint box takes, and the file picker: folded on a phone, where they filled the first screen.
  const more = element('details', { class: 'real-model-more' });
  more.append(element('summary', {}, S.moreSources), element('p', { id: 'real-model-source-hint', class: 'hint' }, S.sourceHint), filesRow);
  more.open = typeof matchMedia !== 'function' || matchMedia('(min-width: 861px)').matches;
  form.append(sourceRow, more);

  const progress = element('progress', { class: 'real-model-progress', max: '1', value: '0', 'aria-label': S.load });
  const progressText = element('p', { class: 'real-model-progress-text', role: 'status' });
  const message = element('p', { class: 'real-model-message', role: 'alert' });
  const untrained = element('p', { class: 'real-model-untrained' }, S.untrained);
  const info = element('p', { class: 'real-model-info' });
  const textLabel = element('label', { for: 'real-model-text' }, S.textLabel);
  const textInput = element('textarea', { id: 'real-model-text', rows: '2', spellcheck: 'false' });
  const threadsSelect = element('select', { id: 'real-model-threads', name: 'model-threads' });
  threadsSelect.append(...MODEL_THREADS.map((value) => element('option', { value }, S.threadsOptions[value])));
  const threadsRow = element('div', { class: 'real-model-row' });
  threadsRow.append(element('label', { for: 'real-model-threads' }, S.threadsLabel), threadsSelect);
  const timing = element('p', { class: 'real-model-timing', 'aria-live': 'polite' });
  const threadsNote = element('p', { class: 'real-model-threads-note' });
  const notes = element('p', { class: 'real-model-notes' });
  const topCaption = element('caption');
  const topTable = element('table', { class: 'real-model-top' });
  const topHead = element('thead');
  const topBody = element('tbody');
  topTable.append(topCaption, topHead, topBody);
  const headsTitle = element('h3', {}, S.headsTitle);
  const grid = element('div', { class: 'real-model-heads' });
  // Picture first: the text, then every head on it, then what the heads' switches and the threads did, then the
  // next-token table.
  threadsRow.append(timing);
  node.append(form, progress, progressText, message, untrained, info, textLabel, textInput, threadsRow, headsTitle, grid, notes, threadsNote, topTable);
  for (const part of [progress, untrained, message]) setHidden(part, true);

  let model = null;
  let fallbackReason = null; // why the JS reference runs the model
  let adopted = null; // {checkpoint, name, tiny}: rebuilt when model-threads changes
  let threadsOption = 'auto';
  let runs = 0;
  let modelName = '';
  let loadedSource = null;
  let controller = null;
  let text = '';
  let visible = false;
  const ablated = new Set(); // 'layer.head'
  let generation = 0;

  function showMessage(text) {
    setText(message, text);
    setHidden(message, !text);
  }

  /**
   * The fast path on the threads model-threads asks for, else the JS reference (createGpt2's Error, a model that
   * does not fit with its figures, says why). Workers, once started, run every forward: no second copy of the
   * model on this page's thread.
   */
  async function createModel(checkpoint) {
    const threads = threadsOption === 'auto' ? 'auto' : Number(threadsOption);
    try {
      const { wasmBinary } = await loadOptions('auto');
      return { made: await createGpt2(checkpoint, { threads, wasmBinary }), why: null };
    } catch (error) {
      return { made: await createGpt2(checkpoint, { backend: 'js' }), why: error?.message ?? String(error) };
    }
  }

  async function adopt(checkpoint, name, tiny) {
    model?.dispose();
    model = null;
    adopted = { checkpoint, name, tiny };
    const { made, why } = await createModel(checkpoint);
    if (adopted?.checkpoint !== checkpoint) { made.dispose(); return; }
    model = made;
    fallbackReason = why;
    modelName = name;
    ablated.clear();
    setHidden(untrained, !tiny);
    const { config } = model;
    setText(info, format(S.modelInfo, {
      name, layers: config.layers, heads: config.heads, dModel: config.dModel,
      parameters: `${(gpt2ParameterCount(config) / 1e6).toFixed(config.vocabSize > 1000 ? 0 : 2)}M`, vocab: config.vocabSize,
    }));
    buildGrid();
    run();
    // Each head's label (previous token, induction, sink, …) from headScores' random-token probes, after the
    // first drawing: GPT-2 small's eight probe forwards take a few seconds.
    const labelled = model;
    setTimeout(async () => {
      if (model !== labelled) return;
      let scores;
      try { scores = await headScores(labelled); } catch { return; } // disposed (threads changed) while it ran
      if (model !== labelled) return;
      for (const { layer, head, label } of scores.heads) {
        const slot = grid.querySelector(`figure[data-layer="${layer}"][data-head="${head}"] .head-label`);
        if (slot) setText(slot, label ?? '');
      }
      grid.setAttribute('aria-busy', 'false');
    }, 0);
  }

  async function load(source) {
    controller?.abort();
    const mine = ++generation;
    controller = new AbortController();
    const { signal } = controller;
    showMessage('');
    cancelButton.disabled = false;
    loadedSource = source;
    const url = sourceUrl(source);
    setText(progressText, format(S.loading, { source }));
    try {
      const checkpoint = url === null ? tinyCheckpoint() : await loadGpt2FromUrl(url, {
        signal,
        onProgress: ({ file, loaded, total, cached }) => {
          setHidden(progress, false);
          progress.max = total ?? loaded;
          progress.value = loaded;
          setText(progressText, format(S.progress, { file, loaded: megabytes(loaded), total: total ? megabytes(total) : '?', cached: cached ? S.progressCached : '' }));
        },
      });
      if (mine !== generation) return;
      await adopt(checkpoint, source, url === null);
      setText(progressText, '');
    } catch (error) {
      if (mine !== generation) return;
      loadedSource = null;
      setText(progressText, '');
      if (error?.name === 'AbortError') showMessage(S.cancelled);
      else if (/could not be fetched|Failed to fetch|NetworkError/.test(error?.message ?? '')) showMessage(format(S.offline, { url, message: error.message }));
      else showMessage(format(S.failed, { message: error?.message ?? String(error) }));
    } finally {
      if (mine === generation) {
        cancelButton.disabled = true;
        setHidden(progress, true);
      }
    }
  }

  function buildGrid() {
    const { layers, heads } = model.config;
    const rows = [];
    for (let l = 0; l < layers; l++) {
      const row = element('div', { class: 'real-model-layer', role: 'group', 'aria-label': `Layer ${l}` });
      for (let h = 0; h < heads; h++) {
        const figure = element('figure', { class: 'real-model-head', 'data-layer': String(l), 'data-head': String(h) });
        const canvas = element('canvas', { role: 'img', 'aria-label': format(S.heatmapLabel, { layer: l, head: h }) });
        const box = element('input', { type: 'checkbox', id: `ablate-${l}-${h}`, 'data-ablate': `${l}.${h}`, 'aria-label': format(S.ablateLabel, { layer: l, head: h }) });
        box.addEventListener('change', () => {
          if (box.checked) ablated.add(`${l}.${h}`); else ablated.delete(`${l}.${h}`);
          figure.classList.toggle('ablated', box.checked);
          run();
        });
        const caption = element('figcaption');
        caption.append(element('span', {}, format(S.layerHead, { layer: l, head: h })), element('span', { class: 'head-label' }), ' ', box,
          element('label', { for: `ablate-${l}-${h}`, 'aria-hidden': 'true' }, S.ablate));
        figure.append(canvas, caption);
        row.append(figure);
      }
      rows.push(row);
    }
    grid.replaceChildren(...rows);
    grid.setAttribute('aria-busy', 'true'); // until headScores' labels are in
  }

  async function run() {
    if (!model || !visible) return;
    const mine = ++runs;
    const running = model;
    try {
      await draw(running, () => mine === runs && model === running);
    } catch (error) {
      if (mine === runs && model === running) showMessage(format(S.failed, { message: error?.message ?? String(error) }));
    }
  }

  /** Runs the forwards and draws their results while current() (no newer run, the same model). */
  async function draw(running, current) {
    const { tokenizer, config } = running;
    const all = tokenizer.encode(text);
    setText(notes, all.length > config.contextLength ? format(S.truncated, { tokens: all.length, limit: config.contextLength }) : '');
    if (all.length === 0) {
      setText(timing, S.emptyText);
      topBody.replaceChildren();
      return;
    }
    const tokens = all.slice(0, Math.min(config.contextLength, MAX_SHOWN_TOKENS));
    const headsOff = [...ablated].map((key) => key.split('.').map(Number));
    const full = await running.forward(tokens);
    const call = running.lastCall;
    const ablatedRun = headsOff.length ? await running.forward(tokens, { headsOff, attention: false }) : null;
    if (!current()) return;
    setText(timing, format(S.timing, {
      tokens: tokens.length, ms: call.ms.toFixed(1), backend: call.backend, path: call.path,
      threads: call.threads > 1 ? format(S.workers, { count: call.threads }) : S.oneThread,
    }));
    const oneThreadReason = call.threads === 1 ? call.reason ?? running.threadsReason : null;
    // a forward on the workers below their crossover: say that one thread would be faster, and why the view stays
    const plan = call.threads > 1 ? planGpt2Workers(config, tokens.length, call.threads) : { workers: true };
    setText(threadsNote, fallbackReason ? format(S.jsFallback, { message: fallbackReason })
      : oneThreadReason ? format(S.oneThreadWhy, { reason: oneThreadReason })
        : plan.workers ? '' : format(S.workersBelowCrossover, { reason: plan.reason }));
    if (headsOff.length) setText(notes, format(S.ablatedCount, { count: headsOff.length }));
    const labels = tokenizer.tokenStrings(tokens).map(showToken);
    const T = tokens.length;
    const V = config.vocabSize;
    const intact = softmaxTop(full.logits.data, V, T - 1, TOP);
    const after = ablatedRun ? softmaxTop(ablatedRun.logits.data, V, T - 1, TOP) : null;
    setText(topCaption, format(S.topTitle, { last: labels[T - 1] }));
    const header = element('tr');
    for (const word of [S.rank, S.token, S.probability, ...(after ? [S.ablatedProbability] : [])]) header.append(element('th', { scope: 'col' }, word));
    topHead.replaceChildren(header);
    topBody.replaceChildren(...intact.ids.map((id, rank) => {
      const row = element('tr');
      row.append(element('td', {}, String(rank + 1)), element('td', { class: 'token' }, showToken(tokenizer.decode([id]))),
        element('td', {}, `${(100 * intact.probability(id)).toFixed(2)}%`));
      if (after) row.append(element('td', {}, `${(100 * after.probability(id)).toFixed(2)}%`));
      return row;
    }));
    const width = config.heads > 6 ? 150 : 220;
    for (const figure of grid.querySelectorAll('figure')) {
      const l = Number(figure.dataset.layer);
      const h = Number(figure.dataset.head);
      drawHeatmap(figure.querySelector('canvas'), {
        values: full.attention[l].data.subarray(h * T * T, (h + 1) * T * T), rows: T, cols: T, kind: 'weights', causal: true,
        rowLabels: labels, colLabels: labels, maxWidth: width,
      });
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    update({ 'model-source': sourceInput.value.trim() || 'tiny' });
    load(sourceInput.value.trim() || 'tiny');
  });
  cancelButton.addEventListener('click', () => controller?.abort());
  forgetButton.addEventListener('click', async () => {
    const existed = await forgetCheckpoints();
    showMessage(format(S.forgotten, { what: existed ? S.forgottenDone : S.forgottenNone }));
  });
  // Files picked, or dropped anywhere on the view.
  async function loadFiles(files) {
    if (!files.length) return;
    controller?.abort();
    generation++;
    showMessage('');
    try {
      const model = Array.from(files).find((file) => file.name.endsWith('.safetensors'));
      await adopt(await loadGpt2FromFiles(files), model ? model.name.replace(/\.safetensors$/, '') : S.sourceLabel, false);
      loadedSource = null;
    } catch (error) {
      showMessage(format(S.failed, { message: error.message }));
    }
  }
  filesInput.addEventListener('change', () => loadFiles(filesInput.files));
  node.addEventListener('dragover', (event) => { event.preventDefault(); });
  node.addEventListener('drop', (event) => {
    event.preventDefault();
    loadFiles(event.dataTransfer?.files ?? []);
  });
  threadsSelect.addEventListener('change', () => update({ 'model-threads': threadsSelect.value }));
  textInput.addEventListener('input', () => {
    text = textInput.value;
    update({ 'model-text': text });
    run();
  });

  return {
    node,
    /** Reads the view's rows; the built-in model loads by itself, a download waits for Load. */
    sync(state) {
      if (threadsSelect.value !== state['model-threads']) threadsSelect.value = state['model-threads'];
      const threadsChanged = threadsOption !== state['model-threads'];
      threadsOption = state['model-threads'];
      if (threadsChanged && model && adopted) adopt(adopted.checkpoint, adopted.name, adopted.tiny);
      if (document.activeElement !== sourceInput && sourceInput.value !== state['model-source']) sourceInput.value = state['model-source'];
      if (document.activeElement !== textInput && textInput.value !== state['model-text']) textInput.value = state['model-text'];
      const textChanged = text !== state['model-text'];
      text = state['model-text'];
      if (!model && loadedSource === null && state['model-source'] === 'tiny' && visible) load('tiny');
      else if (textChanged) run();
    },
    setVisible(shown) {
      const was = visible;
      visible = shown;
      if (shown && !was) run();
    },
    get model() { return model; },
    modelName: () => modelName,
  };
}
