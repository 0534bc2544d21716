// Python literals for the PyTorch panel (torch-snippets.js): floats that read back as the same float32, strings,
// and torch.tensor([...]) of a tensor, one row a line. Pure text.

/** The three projections in the order the snippets write them, and their Python names. */
export const PROJECTIONS = ['query', 'key', 'value'];
export const MODULE_NAMES = { query: 'W_query', key: 'W_key', value: 'W_value' };

// The texts of the values written lately: at T=32, d=64 a snippet writes x's 2,048 values, each up to nine
// toPrecision calls, and the next snippet (another T, another temperature) writes mostly the same values.
// (A Map's keys compare 0 and −0 as one: both are written 0.0.)
const PY_FLOATS = new Map();
const PY_FLOATS_KEPT = 1 << 15;

/**
 * A short decimal that reads back as the same float32 (what torch.tensor([...]) will store): 9
 * significant digits always do; fewer are tried, from 8 down, while they still read back the same.
 */
export function pyFloat(value) {
  let text = PY_FLOATS.get(value);
  if (text === undefined) {
    text = shortestPyFloat(value);
    if (PY_FLOATS.size >= PY_FLOATS_KEPT) PY_FLOATS.clear();
    PY_FLOATS.set(value, text);
  }
  return text;
}

function shortestPyFloat(value) {
  if (Number.isNaN(value)) return 'float("nan")';
  if (!Number.isFinite(value)) return value > 0 ? 'float("inf")' : 'float("-inf")';
  const target = Math.fround(value);
  let text = String(Number(target.toPrecision(9)));
  for (let digits = 8; digits >= 1; digits--) {
    const shorter = String(Number(target.toPrecision(digits)));
    if (Math.fround(Number(shorter)) !== target) break;
    text = shorter;
  }
  return /[.en]/.test(text) ? text : `${text}.0`;
}

/** A Python string literal (JSON's escapes are Python's for the text a sentence may hold). */
export function pyString(text) {
  return JSON.stringify(text);
}

/** `torch.tensor([...])` of a (rows, cols) or rank-3 tensor, one row a line, rows optionally labelled. */
export function pyTensor(tensor, { indent = '', labels = null } = {}) {
  const { data, shape } = tensor;
  const cols = shape[shape.length - 1];
  const rows = data.length / cols;
  const lines = [];
  for (let r = 0; r < rows; r++) {
    const values = Array.from(data.subarray(r * cols, (r + 1) * cols), pyFloat).join(', ');
    const label = labels ? `  # ${labels[r]}` : '';
    lines.push(`${indent}    [${values}],${label}`);
  }
  const open = '['.repeat(shape.length - 1);
  const close = ']'.repeat(shape.length - 1);
  if (shape.length === 3) return `torch.tensor([[\n${lines.join('\n')}\n${indent}]])`;
  return `torch.tensor(${open.slice(1)}[\n${lines.join('\n')}\n${indent}]${close.slice(1)})`;
}
