// The page's whole state, declared once as a table (tensorflow/playground's idea): every property has a
// name, a type, a range and a default, and is read from and written to the URL. Views derive from a
// state object built from this table; nothing else on the page is global.
//
// Parsing is strict because URLs come from strangers: an unknown parameter, a malformed or out-of-range
// value falls back to the default and produces a notice the page shows. Values are only ever numbers,
// booleans, members of a fixed list or plain text that the views put in the DOM as text, never as
// markup, so no parameter can inject markup or script. No DOM here: Vitest runs this in Node.
import { STRINGS, format } from './strings.js';
import { EXERCISE_IDS } from '../exercises/bank/index.js';

const STATE_STRINGS = STRINGS.state;

/** The curriculum's steps, in order; `step=` takes the id or the number 1–12. */
export const STEP_IDS = [
  'framing', 'loop', 'matmul', 'softmax', 'self-attention', 'weights',
  'causal', 'dropout', 'check', 'multihead', 'cross', 'learn',
];

/** The Training tab's tasks (the trainer's makeBatch tasks, docs/api.md "Training"). */
export const TRAIN_TASKS = ['corpus', 'text', 'english', 'english-text', 'previous', 'copy', 'reverse', 'sort', 'induction'];
/** What step 12's one-layer model learns: the page's sentence (task 'text') or a synthetic task. */
export const LEARN_TASKS = ['sentence', 'previous', 'copy', 'reverse', 'sort'];

export const BACKENDS = ['auto', 'wasm-simd', 'wasm-baseline', 'js', 'webgpu'];

/** The Real model view's threads: createGpt2's 'auto', or a count of workers. */
export const MODEL_THREADS = ['auto', '1', '2', '4'];

/** Parts of the page an embed may hide (`hide=code,controls`). */
export const HIDEABLE = ['explanation', 'formula', 'code', 'controls', 'nav', 'checks', 'exercises'];

const MAX_UINT32 = 4294967295;
// T up to the shipped English model's context and d up to its width (model=trained shows them).
export const MAX_T = 64;
export const MAX_D = 128;
const MAX_TEXT = 200;
const MAX_EDITS = 64;
const MAX_ABS_EDIT = 100;

/**
 * The state table. `control: true` marks what a learner can change (and an instructor can `lock`).
 * Types: int, number, bool, enum (`values`), text (`maxLength`), set (comma list of `values`),
 * edits (matrix cells the learner typed), origins (comma list of http(s) origins). `doc` says what it does
 * (docs/embedding.md's table and the element's attributes are generated from this table:
 * scripts/embedding-docs.mjs).
 */
export const STATE_TABLE = [
  { name: 'step', type: 'enum', values: STEP_IDS, default: 'framing', doc: 'The step shown: its id or its number 1–12.' },
  { name: 'sentence', type: 'text', maxLength: MAX_TEXT, default: 'Your journey starts with one step', control: true, doc: 'The sentence the walk reads (its words are the tokens).' },
  { name: 'context', type: 'text', maxLength: MAX_TEXT, default: 'Votre voyage commence par un pas', control: true, doc: 'Cross-attention\'s second sentence: the keys and values.' },
  { name: 'T', type: 'int', min: 1, max: MAX_T, default: 6, control: true, doc: 'Tokens: the sentence repeats or is cut to this length.' },
  { name: 'dModel', type: 'int', min: 1, max: MAX_D, default: 3, control: true, doc: 'Embedding size d_in.' },
  { name: 'dOut', type: 'int', min: 1, max: MAX_D, default: 2, control: true, doc: 'Output size d_out of the query, key and value projections.' },
  { name: 'heads', type: 'int', min: 1, max: 8, default: 2, control: true, choices: headChoices, doc: 'Heads H (a divisor of d_out).' },
  // Which head the multi-head steps draw: 0 = all of them (8 heads at T=32 is a figure about 1,700 px tall).
  { name: 'head', type: 'int', min: 0, max: 8, default: 0, control: true, choices: headPickChoices, doc: 'Which head the multi-head steps draw; 0 draws them all.' },
  { name: 'seed', type: 'int', min: 0, max: MAX_UINT32, default: 123, control: true, doc: 'torch.manual_seed for the random weights (and the embeddings of words outside the book).' },
  { name: 'layout', type: 'enum', values: ['matrix', 'linear'], default: 'matrix', control: true, doc: 'How the weights are stored: torch.rand\'s (d_in, d_out) used as X·W, or nn.Linear\'s (d_out, d_in) used as X·Wᵀ.' },
  { name: 'normalization', type: 'enum', values: ['stable', 'naive', 'sum'], default: 'stable', control: true, doc: 'Step 5\'s softmax: stable (subtract the max), naive, or divide by the sum.' },
  { name: 'causal', type: 'bool', default: true, control: true, doc: 'The causal mask on steps 8 and 10.' },
  { name: 'mask', type: 'enum', values: ['neg_inf', 'renormalize', 'zero'], default: 'neg_inf', control: true, doc: 'How step 7 masks: −∞ before the softmax, zero after it then renormalise, or 0 before it (the classic mistake).' },
  { name: 'scale', type: 'bool', default: true, control: true, doc: 'Scale the scores by 1/√d_k.' },
  { name: 'temperature', type: 'number', min: 0.05, max: 20, step: 0.05, default: 1, control: true, doc: 'The softmax temperature τ.' },
  { name: 'dropout', type: 'number', min: 0, max: 0.95, step: 0.05, default: 0.5, control: true, doc: 'Dropout probability p on step 8.' },
  { name: 'dropoutSeed', type: 'int', min: 0, max: MAX_UINT32, default: 0, control: true, doc: 'The seed of step 8\'s dropout mask.' },
  // Step 8: whose random numbers draw the dropout mask: torch.nn.Dropout's after torch.manual_seed (the book's), or
  // the core's counter-based generator that every backend and fast path shares (docs/api.md "Dropout").
  { name: 'dropoutRng', type: 'enum', values: ['torch', 'counter'], default: 'torch', control: true, doc: 'Step 8\'s dropout mask: torch.nn.Dropout\'s for the seed (the book\'s), or the counter-based generator every backend shares.' },
  { name: 'edits', type: 'edits', default: [], control: true, doc: 'Cells typed into x or the weights: matrix.row.col:value, comma separated.' },
  { name: 'backend', type: 'enum', values: BACKENDS, default: 'auto', control: true, doc: 'Which backend computes: auto, wasm-simd, wasm-baseline, js or webgpu.' },
  // Steps 6–11: the seeded random weights, or one layer of the shipped English model (trained/walk-model.js).
  { name: 'model', type: 'enum', values: ['random', 'trained'], default: 'random', control: true, doc: 'Steps 6–11: the book\'s seeded random weights, or one layer of the shipped English model (docs/model.md) on the sentence in its own tokens.' },
  // With model=trained: the English model's layer (1-based) on steps 6–11 and step 10's heads panel, and on the
  // single-head steps (6–9, 11) which head's slice of its projections is shown.
  { name: 'model-layer', type: 'int', min: 1, max: 4, default: 1, control: true, choices: modelLayerChoices, doc: 'Steps 6–11 with model=trained: the English model\'s layer shown (1-based): its attention input x and its projections.' },
  { name: 'model-head', type: 'int', min: 1, max: 8, default: 1, control: true, choices: modelHeadChoices, doc: 'Steps 6–9 and 11 with model=trained: which of the layer\'s heads gives W_query, W_key and W_value (its d_head rows; 1-based).' },
  { name: 'heads-off', type: 'text', maxLength: MAX_TEXT, default: '', doc: 'Steps 10 and 11 with model=trained: the English model\'s heads switched off, as layer.head, comma separated (e.g. 2.2,2.3).' },
  // Step 12 ('learn'): what its one-layer model trains on.
  { name: 'learn-task', type: 'enum', values: LEARN_TASKS, default: 'previous', control: true, doc: 'What step 12\'s model learns.' },
  // Step 12's seed: the model's initial weights (mulberry32, docs/api.md "Training") and its batches.
  { name: 'learn-seed', type: 'int', min: 0, max: MAX_UINT32, default: 123, control: true, doc: 'Step 12\'s seed: its model\'s initial weights and its batches.' },
  // The Training tab (`view=train`); its parameters are prefixed `train-` so they never collide with the walk's.
  { name: 'view', type: 'enum', values: ['walk', 'train', 'model'], default: 'walk', doc: 'walk (the steps), train (the Training tab) or model (the Real model view).' },
  { name: 'train-task', type: 'enum', values: TRAIN_TASKS, default: 'induction', control: true, doc: 'The Training tab\'s task.' },
  { name: 'train-text', type: 'text', maxLength: MAX_TEXT, default: 'the cat sat on the mat and the dog sat on the rug and the cat saw the dog', control: true, doc: 'The Training tab\'s text, for the text and english-text tasks.' },
  { name: 'train-from', type: 'enum', values: ['shipped', 'scratch'], default: 'shipped', control: true, doc: 'The Training tab\'s English tasks: continue from the shipped English model\'s weights, or start from the seed\'s random weights.' },
  { name: 'train-layers', type: 'int', min: 1, max: 4, default: 2, control: true, doc: 'The Training tab\'s layers L.' },
  { name: 'train-heads', type: 'int', min: 1, max: 8, default: 2, control: true, doc: 'The Training tab\'s heads per layer.' },
  { name: 'train-d-model', type: 'int', min: 4, max: 64, default: 32, control: true, doc: 'The Training tab\'s model width.' },
  { name: 'train-context', type: 'int', min: 4, max: 32, default: 32, control: true, doc: 'The Training tab\'s context length.' },
  { name: 'train-lr', type: 'number', min: 0.0001, max: 1, step: 0.0001, default: 0.01, control: true, doc: 'The Training tab\'s learning rate.' },
  { name: 'train-wd', type: 'number', min: 0, max: 1, step: 0.001, default: 0.01, control: true, doc: 'The Training tab\'s weight decay.' },
  { name: 'train-batch', type: 'int', min: 1, max: 64, default: 32, control: true, doc: 'The Training tab\'s batch size.' },
  { name: 'train-seed', type: 'int', min: 0, max: MAX_UINT32, default: 1, control: true, doc: 'The Training tab\'s seed (initial weights and batches).' },
  { name: 'train-steps', type: 'int', min: 1, max: 100000, default: 1000, control: true, doc: 'How many steps the Training tab trains.' },
  // The Real model view (`view=model`): the checkpoint ('tiny', a Hugging Face repository or a URL) and the text.
  { name: 'model-source', type: 'text', maxLength: 300, default: 'tiny', doc: 'The Real model view\'s checkpoint: tiny (the untrained built-in), a Hugging Face repository name, or a URL.' },
  { name: 'model-text', type: 'text', maxLength: MAX_TEXT, default: 'The cat sat on the mat. The cat sat on the', doc: 'The Real model view\'s text.' },
  { name: 'model-threads', type: 'enum', values: MODEL_THREADS, default: 'auto', doc: 'The Real model view\'s threads: auto (Web Workers where the model is large enough to pay for them, as GPT-2 small), 1, or that many workers; workers run every forward.' },
  { name: 'embed', type: 'bool', default: false, doc: 'Embed mode: no site header or table of contents (the element always sets it).' },
  { name: 'hide', type: 'set', values: HIDEABLE, default: [], doc: 'Parts to hide, comma separated.' },
  { name: 'lock', type: 'set', values: [], default: [], doc: 'Controls the learner may not change, comma separated.' }, // values filled below: the control names
  { name: 'origin', type: 'origins', default: [], doc: 'Origins that may drive the page by postMessage and hear its exercise events (the element sets its own).' },
  { name: 'exercise', type: 'enum', values: ['', ...EXERCISE_IDS], default: '', doc: 'The exercise shown (docs/exercises.md).' }, // the open exercise (docs/exercises.md)
];

/**
 * Defaults that differ from the table's, per step: each step opens on the numbers Raschka's chapter 3
 * prints (the seeds the curriculum follows). Step 6 uses torch.rand weights (seed 123) in the matrix
 * layout and nn.Linear weights (seed 789) in the Linear layout; steps 7–9 continue with those Linear
 * weights (step 8 drops with torch.manual_seed(123), as the book); steps 10–11 teach with d_out = 4 split into
 * H = 2 heads of d_head = 2 (step 10 is the book's MultiHeadAttentionWrapper, seed 123); step 11's query is
 * the sentence's first 3 tokens over a longer context sentence (Tq ≠ Tk). An absent URL parameter means the
 * step's default, so a link names only what differs from it.
 */
export const STEP_DEFAULTS = {
  causal: { layout: 'linear', seed: 789 },
  dropout: { layout: 'linear', seed: 789, dropoutSeed: 123 },
  check: { layout: 'linear', seed: 789 },
  multihead: { layout: 'linear', dOut: 4, heads: 2 },
  cross: { layout: 'linear', dOut: 4, heads: 2, T: 3, context: 'Votre voyage commence avec un seul petit pas' },
};
// Defaults that follow another value on the same step: the Linear layout is the book's seed 789.
const LAYOUT_SEED = { weights: { linear: 789 } };

/** Every property's default on `step` (an id) with weight layout `layout` (the step's own when left out). */
export function defaultsFor(step, layout) {
  const defaults = tableDefaults();
  Object.assign(defaults, STEP_DEFAULTS[step] ?? {});
  defaults.step = step;
  if (layout !== undefined) defaults.layout = layout;
  const seed = LAYOUT_SEED[step]?.[defaults.layout];
  if (seed !== undefined) defaults.seed = seed;
  return defaults;
}

/** The head counts d_out can be split into (its divisors up to the table's largest H). */
export function headChoices(state) {
  const max = 8;
  const choices = [];
  for (let h = 1; h <= Math.min(max, state.dOut); h++) if (state.dOut % h === 0) choices.push(h);
  return choices;
}

/** The head picker's values: 0 (all heads), then 1 … heads. */
export function headPickChoices(state) {
  return Array.from({ length: state.heads + 1 }, (_, h) => h);
}

// The trained model's layers and heads (1-based), where the shown state carries its sizes (trained/walk-switch.js
// sets modelLayers and modelHeads, which are not state: no URL holds them), else the table's bounds.
export function modelLayerChoices(state) {
  return Array.from({ length: state.modelLayers ?? 4 }, (_, i) => i + 1);
}
export function modelHeadChoices(state) {
  return Array.from({ length: state.modelHeads ?? 8 }, (_, i) => i + 1);
}

/** The divisor of dOut nearest to `heads` (the smaller one on a tie). */
export function nearestHeads(dOut, heads) {
  return headChoices({ dOut }).reduce((best, h) => (Math.abs(h - heads) < Math.abs(best - heads) ? h : best), 1);
}

// dOut must split into `heads` heads: otherwise heads moves to the nearest divisor, with a notice.
function fixHeads(state, notices) {
  if (state.dOut % state.heads === 0) return;
  const heads = nearestHeads(state.dOut, state.heads);
  notices.push(format(STATE_STRINGS.headsMoved, { dOut: state.dOut, heads: state.heads, to: heads }));
  state.heads = heads;
}

// A picked head beyond the heads there are (heads moved, or a URL's pair) goes back to all heads, with a notice.
function fixHead(state, notices) {
  if (state.head <= state.heads) return;
  notices.push(format(STATE_STRINGS.headMoved, { head: state.head, heads: state.heads }));
  state.head = 0;
}

export const CONTROL_NAMES = STATE_TABLE.filter((p) => p.control).map((p) => p.name);
STATE_TABLE.find((p) => p.name === 'lock').values = CONTROL_NAMES;

const BY_NAME = new Map(STATE_TABLE.map((p) => [p.name, p]));

/** The property declared under `name`, or undefined. */
export function property(name) {
  return BY_NAME.get(name);
}

function tableDefaults() {
  const state = {};
  for (const p of STATE_TABLE) state[p.name] = Array.isArray(p.default) ? [...p.default] : p.default;
  return state;
}

/** A fresh state holding every default of the first step (what an empty URL shows). */
export function defaultState() {
  return defaultsFor(STEP_IDS[0]);
}

function copyValue(value) {
  return Array.isArray(value) ? [...value] : value;
}

// Shown in notices: short, one line, never markup (the page sets it as text).
function quote(text) {
  const oneLine = String(text).replace(/[\u0000-\u001f\u007f]/g, ' ');
  return JSON.stringify(oneLine.length > 40 ? `${oneLine.slice(0, 40)}…` : oneLine);
}

function rangeText(p) {
  return `${p.min}–${p.max}`;
}

/**
 * Parses one raw URL value for property `p`.
 * @returns {{value: *} | {error: string}} error says what was expected.
 */
export function parseValue(p, raw) {
  const text = String(raw).trim();
  switch (p.type) {
    case 'int': {
      if (!/^\d{1,10}$/.test(text)) return { error: format(STATE_STRINGS.expectedInteger, { range: rangeText(p) }) };
      const value = Number(text);
      if (value < p.min || value > p.max) return { error: format(STATE_STRINGS.expectedInteger, { range: rangeText(p) }) };
      return { value };
    }
    case 'number': {
      if (!/^\d{1,6}(\.\d{1,8})?$/.test(text)) return { error: format(STATE_STRINGS.expectedNumber, { range: rangeText(p) }) };
      const value = Number(text);
      if (value < p.min || value > p.max) return { error: format(STATE_STRINGS.expectedNumber, { range: rangeText(p) }) };
      return { value };
    }
    case 'bool':
      if (text === '1' || text === 'true') return { value: true };
      if (text === '0' || text === 'false') return { value: false };
      return { error: STATE_STRINGS.expectedBool };
    case 'enum': {
      if (p.name === 'step' && /^\d{1,2}$/.test(text)) {
        const index = Number(text) - 1;
        if (index >= 0 && index < p.values.length) return { value: p.values[index] };
      }
      if (p.values.includes(text)) return { value: text };
      return { error: format(STATE_STRINGS.expectedOneOf, { values: p.values.join(', ') }) };
    }
    case 'text': {
      // Control characters never belong in a sentence; markup characters are harmless (views use
      // textContent) but a sentence does not need them either, so they are refused too.
      if (text.length === 0 || text.length > p.maxLength || /[\u0000-\u001f\u007f<>]/.test(text)) {
        return { error: format(STATE_STRINGS.expectedText, { max: p.maxLength }) };
      }
      return { value: text.replace(/\s+/g, ' ') };
    }
    case 'set': {
      const items = text === '' ? [] : text.split(',').map((s) => s.trim());
      const unknown = items.filter((item) => !p.values.includes(item));
      if (unknown.length > 0) return { error: format(STATE_STRINGS.expectedList, { values: p.values.join(', ') }) };
      return { value: p.values.filter((v) => items.includes(v)) };
    }
    case 'edits':
      return parseEdits(text);
    case 'origins': {
      const items = text === '' ? [] : text.split(',').map((s) => s.trim());
      for (const item of items) {
        let url;
        try {
          url = new URL(item);
        } catch {
          return { error: STATE_STRINGS.expectedOrigins };
        }
        if (!['http:', 'https:'].includes(url.protocol) || url.origin !== item) {
          return { error: STATE_STRINGS.expectedOrigins };
        }
      }
      return { value: items };
    }
    default:
      throw new Error(`state: property ${p.name} has unknown type ${p.type}`);
  }
}

/**
 * The matrices a learner may edit, in URL order: the embeddings x (T, d_model) and the projection
 * weights (d_model, d_out) of self-attention (steps 6–8, 10) and of cross-attention (step 11). `rows`
 * and `cols` bound the cell indices the URL may name (the largest sizes the state table allows).
 */
export const EDITABLE_MATRICES = [
  { name: 'x', rows: MAX_T, cols: MAX_D },
  { name: 'Wq', rows: MAX_D, cols: MAX_D },
  { name: 'Wk', rows: MAX_D, cols: MAX_D },
  { name: 'Wv', rows: MAX_D, cols: MAX_D },
  { name: 'crossWq', rows: MAX_D, cols: MAX_D },
  { name: 'crossWk', rows: MAX_D, cols: MAX_D },
  { name: 'crossWv', rows: MAX_D, cols: MAX_D },
];
const MATRIX_BY_NAME = new Map(EDITABLE_MATRICES.map((m) => [m.name, m]));
const MATRIX_ORDER = new Map(EDITABLE_MATRICES.map((m, i) => [m.name, i]));

// Edited cells: "[matrix.]row.col:value" joined by commas, e.g. "0.1:0.5,Wq.2.0:-1.25". No prefix
// means x (the format before the weights became editable, so older links still work).
function parseEdits(text) {
  const expected = format(STATE_STRINGS.expectedEdits, {
    count: MAX_EDITS, rows: MAX_T, cols: MAX_D, max: MAX_ABS_EDIT, matrices: EDITABLE_MATRICES.map((m) => m.name).join(', '),
  });
  if (text === '') return { value: [] };
  const items = text.split(',');
  if (items.length > MAX_EDITS) return { error: expected };
  const edits = new Map();
  for (const item of items) {
    const match = /^(?:([A-Za-z]{1,8})\.)?(\d{1,3})\.(\d{1,3}):(-?\d{1,3}(\.\d{1,6})?)$/.exec(item.trim());
    if (!match) return { error: expected };
    const matrix = match[1] ?? 'x';
    const bounds = MATRIX_BY_NAME.get(matrix);
    if (!bounds) return { error: expected };
    const [row, col, value] = [Number(match[2]), Number(match[3]), Number(match[4])];
    if (row >= bounds.rows || col >= bounds.cols || Math.abs(value) > MAX_ABS_EDIT) return { error: expected };
    edits.set(`${matrix}.${row}.${col}`, { matrix, row, col, value: Object.is(value, -0) ? 0 : value });
  }
  return { value: sortEdits([...edits.values()]) };
}

/** Edits in a canonical order (matrix, row, column), so equal states serialise equally. */
export function sortEdits(edits) {
  return [...edits].sort((a, b) => MATRIX_ORDER.get(a.matrix) - MATRIX_ORDER.get(b.matrix) || a.row - b.row || a.col - b.col);
}

function formatEdit(e) {
  const prefix = e.matrix === undefined || e.matrix === 'x' ? '' : `${e.matrix}.`;
  return `${prefix}${e.row}.${e.col}:${roundEdit(e.value)}`;
}

/** The URL text of one value of property `p`. */
export function formatValue(p, value) {
  switch (p.type) {
    case 'bool': return value ? '1' : '0';
    case 'set':
    case 'origins': return value.join(',');
    case 'edits': return value.map(formatEdit).join(',');
    default: return String(value);
  }
}

/** Rounds a typed cell value to what the URL keeps (6 decimals). */
export function roundEdit(value) {
  return Number(value.toFixed(6));
}

// A typed value (from JS callers) as the URL text the parser checks; anything odd becomes text that
// the parser then rejects with a notice.
function toUrlText(p, input) {
  if (typeof input === 'string') return input;
  if (Array.isArray(input) && ['set', 'origins'].includes(p.type)) return input.map(String).join(',');
  if (Array.isArray(input) && p.type === 'edits') {
    const valid = input.every((e) => e && Number.isFinite(e.row) && Number.isFinite(e.col) && Number.isFinite(e.value)
      && (e.matrix === undefined || typeof e.matrix === 'string'));
    return valid ? formatValue(p, input) : 'invalid';
  }
  if (typeof input === 'boolean' && p.type === 'bool') return formatValue(p, input);
  if (typeof input === 'number' && Number.isFinite(input)) return String(Number(input.toFixed(6)));
  return String(input);
}

function sameValue(p, a, b) {
  return formatValue(p, a) === formatValue(p, b);
}

/**
 * Reads a state from a query string (or URLSearchParams).
 * @returns {{state: object, notices: string[]}} every rejected parameter has one notice.
 */
export function parseState(search) {
  const params = search instanceof URLSearchParams ? search : new URLSearchParams(search);
  const given = {};
  const entries = []; // notices in URL order; a rejected value's names the step's default, known at the end
  const seen = new Set();
  for (const [name, raw] of params) {
    const p = BY_NAME.get(name);
    if (!p) {
      entries.push(format(STATE_STRINGS.unknownParameter, { name: quote(name) }));
      continue;
    }
    if (seen.has(name)) {
      entries.push(format(STATE_STRINGS.repeatedParameter, { name }));
      continue;
    }
    seen.add(name);
    const result = parseValue(p, raw);
    if ('error' in result) entries.push({ p, raw, error: result.error });
    else given[name] = result.value;
  }
  // What is absent takes the step's default (and, on step 6, the layout's seed).
  const step = given.step ?? STEP_IDS[0];
  const defaults = defaultsFor(step, given.layout);
  const state = { ...defaults, ...given };
  const notices = entries.map((entry) => (typeof entry === 'string' ? entry : format(STATE_STRINGS.rejectedParameter, {
    name: entry.p.name, value: quote(entry.raw), reason: entry.error, fallback: quote(formatValue(entry.p, defaults[entry.p.name])),
  })));
  fixHeads(state, notices);
  fixHead(state, notices);
  return { state, notices };
}

/** The query string (without "?") for a state: only values that differ from its step's defaults. */
export function serializeState(state) {
  const params = new URLSearchParams();
  const defaults = defaultsFor(state.step, state.layout);
  for (const p of STATE_TABLE) {
    const base = p.name === 'step' ? STEP_IDS[0] : p.name === 'layout' ? defaultsFor(state.step).layout : defaults[p.name];
    if (!sameValue(p, state[p.name], base)) params.set(p.name, formatValue(p, state[p.name]));
  }
  return params.toString();
}

/**
 * Applies a partial update (from a control, the postMessage API or the custom element's attributes).
 * Values may be typed (numbers, booleans, arrays) or URL text; each is checked against the table, and
 * locked controls keep their value unless `force` is set. A new step (or weight layout) moves every
 * value still at the old default to the new one, as its URL would read. A d_out that the heads do not
 * divide moves the heads to the nearest divisor: that is reported in `adjusted`, which the page shows
 * even for changes made with its own controls.
 * @returns {{state: object, notices: string[], adjusted: string[]}} a new state; the input is not changed.
 */
export function updateState(state, changes, { force = false } = {}) {
  const next = { ...state };
  const notices = [];
  const adjusted = [];
  if (changes === null || typeof changes !== 'object') {
    return { state: next, notices: [STATE_STRINGS.notAnObject], adjusted };
  }
  for (const [name, input] of Object.entries(changes)) {
    const p = BY_NAME.get(name);
    if (!p) {
      notices.push(format(STATE_STRINGS.unknownSetting, { name: quote(name) }));
      continue;
    }
    if (!force && state.lock.includes(name)) {
      notices.push(format(STATE_STRINGS.lockedSetting, { name }));
      continue;
    }
    const raw = toUrlText(p, input);
    const result = parseValue(p, raw);
    if ('error' in result) notices.push(format(STATE_STRINGS.rejectedSetting, { name, value: quote(raw), reason: result.error }));
    else next[name] = result.value;
  }
  if (next.step !== state.step || next.layout !== state.layout) {
    const before = defaultsFor(state.step, state.layout);
    const follows = (name) => !(name in changes) && !state.lock.includes(name);
    if (follows('layout') && state.layout === before.layout) next.layout = defaultsFor(next.step).layout;
    const after = defaultsFor(next.step, next.layout);
    for (const p of STATE_TABLE) {
      if (p.name === 'step' || p.name === 'layout' || !follows(p.name)) continue;
      if (sameValue(p, state[p.name], before[p.name])) next[p.name] = copyValue(after[p.name]);
    }
  }
  fixHeads(next, adjusted);
  fixHead(next, adjusted);
  return { state: next, notices, adjusted };
}
