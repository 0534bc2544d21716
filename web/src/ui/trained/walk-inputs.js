// The walk's "trained" inputs (steps 6–11 with model=trained), without loading anything (walk-model.js loads the
// shipped English model, carried-model.js reads one from the Training tab): one layer of a model of the interface
// in docs/api.md "Models", on the step's sentence in the model's own tokens. x is that layer's attention input — after its LayerNorm, as the model is pre-LN — and
// W_query, W_key, W_value (with their biases) the layer's projections: one head's d_head rows of them on the
// single-head steps, all of them on step 10. Pure, so Node (the PyTorch snippets' fixtures,
// tests/fixtures/snippet_texts.mjs) builds the same inputs as the page.
import { applyEdits, transposed } from '../inputs.js';
import { format, STRINGS } from '../strings.js';

/** The steps that have a trained counterpart. */
export const TRAINED_STEPS = ['weights', 'causal', 'dropout', 'check', 'multihead', 'cross'];
/** The step that shows every head of the layer; the others show one head (the Head control, `model-head`). */
export const ALL_HEADS_STEP = 'multihead';
/** The settings the trained model fixes (locked while `model=trained`): T is the sentence's count of its tokens. */
export const TRAINED_LOCKS = ['T', 'dModel', 'dOut', 'heads', 'seed'];

const PROJECTIONS = [['query', 'q_proj'], ['key', 'k_proj'], ['value', 'v_proj']];

/** A token's text as a row label: without its leading space, and visible when it is only white space. */
export function tokenLabel(text) {
  return text.trim() || text.replace(/ /g, '·').replace(/\n/g, '⏎').replace(/\t/g, '⇥');
}

/**
 * The shipped English model (the model interface, model/english.js) as the walk reads it: its own tokenizer,
 * cut to its context length. `tokens(text)` → {ids, labels}.
 */
export function englishWalkModel(model) {
  const { tokenizer, config } = model;
  return {
    model,
    carried: false,
    tokens(text) {
      const ids = Array.from(tokenizer.encode(text)).slice(0, config.contextLength);
      return { ids, labels: ids.map((id) => tokenLabel(tokenizer.tokenText(id))) };
    },
  };
}

// The last few forward passes, by model and text: moving the temperature or the layout runs none.
const FORWARDS = new WeakMap();
function layerForward(walk, text) {
  let byText = FORWARDS.get(walk.model);
  if (!byText) FORWARDS.set(walk.model, (byText = new Map()));
  let entry = byText.get(text);
  if (!entry) {
    const { ids, labels } = walk.tokens(text);
    if (ids.length === 0) throw new Error('The trained model needs a sentence with at least one token.');
    entry = { ids, labels, layers: walk.model.forward(ids, { intermediates: true }).layers };
    if (byText.size >= 4) byText.delete(byText.keys().next().value);
  } else {
    byText.delete(text);
  }
  byText.set(text, entry);
  return entry;
}

/** The layer and head the state picks (1-based, as the URL writes them), within the model's sizes. */
export function pickedLayerHead(state, { layers, heads }) {
  return { layer: Math.min(Math.max(1, state['model-layer']), layers), head: Math.min(Math.max(1, state['model-head']), heads) };
}

// Rows [from, to) of an nn.Linear weight (out, in): one head's outputs.
function rows(weight, from, to) {
  const cols = weight.shape[1];
  return { data: weight.data.slice(from * cols, to * cols), shape: [to - from, cols] };
}

// One layer's q/k/v projections in the walk's layout (inputs.js projectionWeights): `shown` as PyTorch stores
// them, `core` as (d_in, d_out) for X·W with the biases beside, each shown matrix with the learner's edits.
function layerWeights(model, layerIndex, [from, to], layout, edits, editNames) {
  const shown = {};
  const core = {};
  const bias = {};
  PROJECTIONS.forEach(([name, module], i) => {
    const weight = model.parameters[`blocks.${layerIndex}.${module}.weight`]; // nn.Linear's (out, in)
    const slice = rows(weight, from, to);
    shown[name] = applyEdits(layout === 'linear' ? slice : transposed(slice), edits, editNames[i]);
    core[name] = layout === 'linear' ? transposed(shown[name]) : shown[name];
    bias[name] = { data: model.parameters[`blocks.${layerIndex}.${module}.bias`].data.slice(from, to), shape: [to - from] };
  });
  const projection = { ...core, queryBias: bias.query, keyBias: bias.key, valueBias: bias.value };
  return { weights: { layout, shown, core, bias }, projection };
}

/**
 * The state a step computes with and its inputs, for `walk` (englishWalkModel or carriedModel) on `stepId`:
 * T is the sentence's count of tokens, d_in the model's width; d_out one head's d_head and one head (the
 * state's `model-head`), or on step 10 the whole width and all heads. `inputs.trained` says what the PyTorch
 * panel needs to rebuild them (torch-snippets.js).
 * @returns {{state: object, inputs: object}}
 */
export function trainedRun(walk, state, stepId) {
  const { config } = walk.model;
  const { dModel: d, heads: H } = config;
  const dHead = d / H;
  const all = stepId === ALL_HEADS_STEP;
  const { layer, head } = pickedLayerHead(state, config);
  const sentence = layerForward(walk, state.sentence);
  const T = sentence.ids.length;
  const runState = {
    ...state, T, dModel: d, dOut: all ? d : dHead, heads: all ? H : 1, head: all ? Math.min(state.head, H) : 0,
    'model-layer': layer, 'model-head': head,
  };
  const span = all ? [0, d] : [(head - 1) * dHead, head * dHead];
  const normed = sentence.layers[layer - 1].normed;
  const self = layerWeights(walk.model, layer - 1, span, state.layout, state.edits, ['Wq', 'Wk', 'Wv']);
  const inputs = {
    tokens: sentence.labels,
    ids: Int32Array.from(sentence.ids),
    x: applyEdits(normed, state.edits, 'x'),
    projection: self.projection,
    weights: self.weights,
    trained: { carried: walk.carried, layer, head: all ? 0 : head, heads: H, layerNorm: Boolean(config.layerNorm), ids: sentence.ids, span },
  };
  if (stepId === 'cross') {
    // A decoder-only model never attends from one text to another: here the layer's query projection reads the
    // sentence and its key and value projections read the context, each run through the model on its own.
    const context = layerForward(walk, state.context);
    const cross = layerWeights(walk.model, layer - 1, span, state.layout, state.edits, ['crossWq', 'crossWk', 'crossWv']);
    Object.assign(inputs, {
      contextTokens: context.labels,
      xContext: context.layers[layer - 1].normed,
      crossProjection: cross.projection,
      crossWeights: cross.weights,
    });
    inputs.trained.contextIds = context.ids;
  }
  return { state: runState, inputs };
}

/** The controls model=trained adds on `stepId`: the Layer control, and the Head control on the single-head steps. */
export function trainedControls(stepId) {
  if (!TRAINED_STEPS.includes(stepId)) return [];
  // step 10's Layer control is its heads panel's (trained/heads-panel.js), beside the heads it picks
  return stepId === ALL_HEADS_STEP ? [] : ['model-layer', 'model-head'];
}

/**
 * The notes beside the locked controls for a trained run (trainedRun's state and inputs): what x and the weights
 * are and why the sizes are locked, then what is particular to the step. [{note, text}], `note` naming each for tests.
 */
export function trainedNotes(walk, runState, inputs, stepId, asked = runState) {
  const { config } = walk.model;
  const { layer, head, heads } = inputs.trained;
  const dHead = config.dModel / heads;
  const which = head === 0 ? format(STRINGS.trainedHeadAll, { heads, dHead }) : format(STRINGS.trainedHeadOne, { head, dHead });
  const notes = [walk.carried
    ? { note: 'carried', text: format(STRINGS.carriedNote, { layer, dModel: config.dModel, heads, which, sentence: runState.sentence, input: config.layerNorm ? STRINGS.carriedInputNormed : STRINGS.carriedInputPlain }) }
    : { note: 'trained', text: format(STRINGS.trainedNote, { layer, layers: config.layers, heads, dModel: config.dModel, T: runState.T, which }) }];
  const particular = STRINGS.trainedStepNotes[stepId];
  if (particular) notes.push({ note: `trained-${stepId}`, text: particular });
  // a layer or head beyond the model's (a URL or an embed may ask for one) is shown as the model's last, and said
  const shown = { 'model-layer': layer, 'model-head': head };
  const beyond = (head === 0 ? ['model-layer'] : ['model-layer', 'model-head']).filter((name) => asked[name] > shown[name]);
  if (beyond.length) {
    notes.push({ note: 'trained-clamped', text: beyond.map((name) => format(STRINGS.trainedClamped, { name, asked: asked[name], shown: shown[name], count: name === 'model-layer' ? config.layers : heads, what: name === 'model-layer' ? 'layers' : 'heads per layer' })).join(' ') });
  }
  return notes;
}
