// Values in the formula: the computation behind one attention weight, with the numbers plugged in, shown
// under the step's formula while a weights cell is pointed at or focused. Every number is one the core
// returned (the step's `hover` intermediates: query, key, scores, scaled, masked, and the weights); the
// view writes q_i and k_j side by side, term by term, and multiplies nothing itself.
import { formatValue } from './heatmap-draw.js';
import { setText } from './dom-sync.js';
import { roleOf } from './flow.js';
import { shownView } from './cell-sources.js';
import { STRINGS, format } from './strings.js';

const MAX_TERMS = 8; // terms written out; the rest are counted

const words = () => STRINGS.views;

// The leading-axis block of `tensor` that belongs to panel `p` of a tensor with `panels` panels: a
// tensor with one block (the same query for every head) serves them all.
function rowOf(tensor, panelIndex, rowCount, row) {
  const width = tensor.shape[tensor.shape.length - 1];
  const blocks = tensor.data.length / (rowCount * width);
  const block = blocks > 1 ? panelIndex : 0;
  const start = (block * rowCount + row) * width;
  return tensor.data.subarray(start, start + width);
}

// A factor of a product: a negative number in brackets, so "0.93×(−0.51)" reads as one term.
function factor(value) {
  const text = formatValue(value);
  return value < 0 ? `(${text})` : text;
}

function list(values, max = Infinity) {
  const shown = Array.from(values.slice(0, max), formatValue);
  if (values.length > max) shown.push(`… ${values.length - max} more`);
  return shown.join(', ');
}

/**
 * The lines that explain weights[row, col] of `panel` (one head's slice of `view`), or null when the
 * view is not a weights matrix with scores behind it.
 * @returns {{title: string, lines: {kind: string, text: string}[]}|null}
 */
export function cellComputation(view, panel, row, col) {
  const role = roleOf(view.name);
  if (role === 'scores' || role === 'masked' || role === 'context' || role === 'output') return otherComputation(role, view, panel, row, col);
  if (view.kind !== 'weights' || !view.cols || !view.hover) return null;
  const { query, key, scores, scaled, masked } = view.hover;
  const w = words();
  const cellIndex = panel.index * panel.rows * panel.cols + row * panel.cols + col;
  const lines = [];
  if (query && key) {
    lines.push(...dotProductLines(w, rowOf(query, panel.index, panel.rows, row), rowOf(key, panel.index, panel.cols, col), row, col));
  }
  if (scores) lines.push({ kind: 'score', text: format(w.cellMathScore, { value: formatValue(scores.data[cellIndex]) }) });
  if (scaled) {
    const dk = key ? key.shape[key.shape.length - 1] : '—';
    lines.push({ kind: 'scaled', text: format(w.cellMathScaled, { dk, value: formatValue(scaled.data[cellIndex]) }) });
  }
  const isMasked = panel.masked(row, col);
  if (masked && view.causal) {
    lines.push({ kind: 'mask', text: format(isMasked ? w.cellMathMasked : w.cellMathKept, { row, col, value: formatValue(masked.data[cellIndex]) }) });
  }
  const before = (view.causal ? masked : null) ?? scaled ?? scores;
  if (before) {
    const rowStart = cellIndex - col;
    lines.push({ kind: 'row', text: format(w.cellMathRow, { row, values: list(before.data.subarray(rowStart, rowStart + panel.cols), 16) }) });
    lines.push({ kind: 'softmax', text: format(w.cellMathSoftmax, { row, values: list(view.tensor.data.subarray(rowStart, rowStart + panel.cols), 16) }) });
  }
  lines.push({ kind: 'weight', text: format(w.cellMathWeight, { row, col, value: formatValue(view.tensor.data[cellIndex]) }) });
  const head = panel.title ? format(w.cellMathHead, { h: panel.index + 1 }) : '';
  const title = format(w.cellMathTitle, {
    tensor: view.name, row, col, head,
    query: panel.rowLabels?.[row] ?? row, key: panel.colLabels?.[col] ?? col,
  });
  return { title, lines };
}

// The query row, the key row and their dot product term by term: the first lines of a score's computation.
function dotProductLines(w, q, k, row, col) {
  const terms = [];
  for (let c = 0; c < Math.min(q.length, MAX_TERMS); c++) terms.push(`${factor(q[c])}×${factor(k[c])}`);
  if (q.length > MAX_TERMS) terms.push(`… ${q.length - MAX_TERMS} more`);
  return [
    { kind: 'query', text: format(w.cellMathQuery, { row, values: list(q, MAX_TERMS) }) },
    { kind: 'key', text: format(w.cellMathKey, { col, values: list(k, MAX_TERMS) }) },
    { kind: 'terms', text: format(w.cellMathTerms, { terms: terms.join(' + ') }) },
  ];
}

// A score (q·k, term by term), a masked score (the scaled one, kept or −∞), or a context value (the weights
// row times the value column, term by term): from the step's shown tensors, when it shows them.
function otherComputation(role, view, panel, row, col) {
  const w = words();
  const index = panel.index * panel.rows * panel.cols + row * panel.cols + col;
  const value = view.tensor.data[index];
  const lines = [];
  const title = format(w.cellMathOther, { tensor: view.name, row, col, head: panel.title ? format(w.cellMathHead, { h: panel.index + 1 }) : '' });
  if (role === 'scores') {
    const query = shownView('query') ?? shownView('x');
    const key = shownView('key') ?? shownView('x');
    if (!query || !key || !view.cols) return null;
    lines.push(...dotProductLines(w, rowOf(query.tensor, panel.index, panel.rows, row), rowOf(key.tensor, panel.index, panel.cols, col), row, col));
    lines.push({ kind: 'score', text: format(w.cellMathScoreValue, { row, col, value: formatValue(value) }) });
  } else if (role === 'masked') {
    const before = shownView('scaled') ?? shownView('scores');
    if (!before) return null;
    lines.push({ kind: 'scaled', text: format(w.cellMathBefore, { tensor: before.name, row, col, value: formatValue(before.tensor.data[index]) }) });
    lines.push({ kind: 'mask', text: format(panel.masked(row, col) ? w.cellMathMasked : w.cellMathKept, { row, col, value: formatValue(value) }) });
  } else {
    const weights = shownView('dropped') ?? shownView('weights');
    const values = shownView('value');
    if (!weights || !values) return null;
    const T = weights.tensor.shape.at(-1);
    const heads = weights.tensor.shape.length >= 3 ? weights.tensor.shape.at(-3) : 1;
    const width = values.tensor.shape.at(-1);
    // With heads, column `col` of the joined context is head ⌊col / d_head⌋'s column; the value has one block.
    const dHead = view.tensor.shape.at(-1) / heads;
    const head = heads > 1 ? Math.floor(col / dHead) : 0;
    const wRow = weights.tensor.data.subarray((head * T + row) * T, (head * T + row + 1) * T);
    const vCol = Array.from({ length: T }, (_, j) => values.tensor.data[j * width + col]);
    lines.push({ kind: 'weights', text: format(w.cellMathWeightsRow, { row, values: list(wRow, 16) }) });
    lines.push({ kind: 'values', text: format(w.cellMathValueColumn, { col, values: list(vCol, 16) }) });
    const terms = [];
    for (let j = 0; j < Math.min(T, MAX_TERMS); j++) terms.push(`${factor(wRow[j])}×${factor(vCol[j])}`);
    if (T > MAX_TERMS) terms.push(`… ${T - MAX_TERMS} more`);
    lines.push({ kind: 'terms', text: format(w.cellMathSum, { terms: terms.join(' + ') }) });
    lines.push({ kind: 'weight', text: format(w.cellMathResult, { tensor: roleOf(view.name), row, col, value: formatValue(value) }) });
  }
  return { title, lines };
}

/**
 * The panel under the formula: a hint until a weights cell is inspected, then that cell's computation.
 * @returns {{node: HTMLElement, show: (view: object, panel: object, row: number, col: number) => void, reset: () => void}}
 */
export function createCellMath() {
  const node = document.createElement('div');
  node.className = 'cell-math';
  node.setAttribute('role', 'region');
  node.setAttribute('aria-label', words().cellMath);
  const hint = document.createElement('p');
  hint.className = 'cell-math-hint';
  hint.textContent = words().cellMathHint;
  node.append(hint);
  const title = document.createElement('p');
  title.className = 'cell-math-title';
  const body = document.createElement('div');
  body.className = 'cell-math-lines';
  let shownKey = null;
  let shownData = null;
  return {
    node,
    show(view, panel, row, col) {
      const computation = cellComputation(view, panel, row, col);
      if (!computation) return false;
      const key = `${view.name}#${panel.index}#${row}#${col}`;
      if (key === shownKey && shownData === view.tensor.data) return true;
      shownKey = key;
      shownData = view.tensor.data;
      // The nodes stay from one cell (and one repaint) to the next; only their text changes.
      if (title.parentNode !== node) node.replaceChildren(title, body);
      setText(title, computation.title);
      while (body.children.length > computation.lines.length) body.lastElementChild.remove();
      computation.lines.forEach((line, i) => {
        let item = body.children[i];
        if (!item) {
          item = document.createElement('div');
          body.append(item);
        }
        if (item.dataset.line !== line.kind) item.dataset.line = line.kind;
        setText(item, line.text);
      });
      const cell = `${view.name}[${panel.index}, ${row}, ${col}]`;
      if (node.dataset.cell !== cell) node.dataset.cell = cell;
      return true;
    },
    reset() {
      shownKey = null;
      shownData = null;
      delete node.dataset.cell;
      node.replaceChildren(hint);
    },
  };
}
