// Pointer and keyboard inspection of a heatmap's cells (a tooltip that explains the cell, and a listener,
// cell-math.js, that shows its computation), and the cell editor of an input matrix (x, W_query…).
import { cellAt, formatValue } from './heatmap-draw.js';
import { element } from './dom-sync.js';
import { cellSources, placeBeside } from './cell-sources.js';
import { pooledCanvasOf } from './heatmap-canvas.js';
import { STRINGS, format } from './strings.js';

/**
 * A float32 value as the shortest decimal that reads back as the same float32 (0.55, not
 * 0.550000011920929): what a cell editor opens with.
 */
export function shortestFloat32(value) {
  if (!Number.isFinite(value)) return String(value);
  for (let digits = 1; digits <= 9; digits++) {
    const text = value.toPrecision(digits);
    if (Math.fround(Number(text)) === Math.fround(value)) return String(Number(text));
  }
  return String(value);
}

// What the tooltip says about cell (row, col) of a panel.
function describeCell(view, panel, row, col) {
  const index = panel.index * panel.rows * panel.cols + row * panel.cols + col;
  const lines = [format(STRINGS.hoverCell, { tensor: view.name, row, col, value: formatValue(view.tensor.data[index]) })];
  if (view.cols) {
    lines.push(format(STRINGS.hoverQuery, { row, token: panel.rowLabels[row] }));
    lines.push(format(STRINGS.hoverKey, { col, token: panel.colLabels[col] }));
  } else if (view.rows) {
    lines.push(format(STRINGS.hoverQuery, { row, token: panel.rowLabels[row] }).replace('query row', 'row'));
  }
  if (view.kind === 'ids' && view.words) lines.push(format(STRINGS.hoverToken, { id: view.tensor.data[index], word: view.words[view.tensor.data[index]] }));
  if (view.hover?.scores) lines.push(format(STRINGS.hoverScore, { value: formatValue(view.hover.scores.data[index]) }));
  if (view.hover?.scaled) lines.push(format(STRINGS.hoverScaled, { value: formatValue(view.hover.scaled.data[index]) }));
  if (view.kind === 'weights' && view.cols) lines.push(format(STRINGS.hoverWeight, { value: formatValue(view.tensor.data[index]) }));
  if (panel.masked(row, col)) lines.push(STRINGS.hoverMasked);
  return lines;
}

// Who hears of the cell under the pointer or the keyboard focus (cell-math.js shows its computation).
let inspectListener = null;
let inspected = null; // {name, panel, row, col} of the last cell inspected: its computation follows each repaint
/** Calls `listener(view, panel, row, col)` whenever a cell is inspected. */
export function onInspect(listener) {
  inspectListener = listener;
}
/** Forgets the inspected cell (a new step starts with none). */
export function clearInspected() {
  inspected = null;
}

/** Shows the new numbers of the inspected cell's computation after a repaint, when the cell still exists. */
export function inspectAgain(painted) {
  const still = inspected && painted.find((p) => p.view.name === inspected.name);
  const panel = still?.panels.find((p) => p.index === inspected.panel);
  if (panel && inspected.row < panel.rows && inspected.col < panel.cols) inspectListener?.(still.view, panel, inspected.row, inspected.col);
}

// Pointer and keyboard inspection of cells, and editing of the cells of an input matrix (x, W_query…).
// A canvas's listeners are attached once and act on its `inspection`, which every repaint replaces with the
// new tensor, panel and layout: attaching six listeners per canvas per repaint (and removing the last six)
// showed in the repaint's profile at eight heads.
export function attachInspection(pooled, inspection) {
  const { view, panel, wrap, editable } = inspection;
  // The keyboard's cell survives a repaint: it starts where the last inspection of this panel was.
  const last = inspected?.name === view.name && inspected.panel === panel.index ? inspected : null;
  inspection.focus = last && last.row < panel.rows && last.col < panel.cols ? { row: last.row, col: last.col } : { row: 0, col: 0 };
  pooled.inspection = inspection;
  if (!pooled.listening) {
    pooled.listening = true;
    listenForInspection(pooled);
  }
  const open = wrap.querySelector(':scope > .cell-editor');
  if (open) {
    if (!editable || Number(open.dataset.row) >= panel.rows || Number(open.dataset.col) >= panel.cols) open.remove();
    else placeEditor(inspection, open, { row: Number(open.dataset.row), col: Number(open.dataset.col) });
  }
}

// Who outlines a pointed cell's sources on their heatmaps: the figure that owns them (tensor-view.js), which
// imports this module and hands its marker in, so the two do not import each other.
let markSources = () => {};
/** @param {(marks: object[]) => void} marker outlines the given cells; an empty list clears them */
export function setSourceMarker(marker) {
  markSources = marker;
}

// The pointed cell: its sources outlined on their heatmaps, and its box (what it is, and its computation
// where it has one) beside it, inside the viewport, clear of its row and column.
function showCell({ view, panel, canvas, layout, tooltip }, cell) {
  inspected = { name: view.name, panel: panel.index, row: cell.row, col: cell.col };
  const computation = inspectListener?.(view, panel, cell.row, cell.col) ?? null;
  // A cell with a computation shows it (its title names the cell, its query and key); others say what they are.
  const lines = computation ? (panel.masked(cell.row, cell.col) ? [STRINGS.hoverMasked] : []) : describeCell(view, panel, cell.row, cell.col);
  tooltip.replaceChildren(...(computation ? [computation] : []), ...lines.map((line) => element('div', {}, line)));
  // The cell itself is outlined too (the keyboard's cell, visibly), then its sources.
  markSources([{ name: view.name, panel: panel.index, cell: [cell.row, cell.col], self: true }, ...cellSources(view, panel.index, cell.row, cell.col)]);
  if (openTooltip && openTooltip !== tooltip) openTooltip.hidden = true;
  openTooltip = tooltip;
  openCell = { inspection: { canvas, layout, panel, tooltip }, cell };
  tooltip.style.left = '0px';
  tooltip.style.top = '0px';
  tooltip.hidden = false;
  placeOpenBox();
}

// Puts the open box beside its cell (again, when the page scrolls under it); closes it when the cell is gone.
function placeOpenBox() {
  const { inspection: { canvas, layout, panel, tooltip }, cell } = openCell;
  const c = canvas.getBoundingClientRect();
  if (!canvas.isConnected || c.bottom < 0 || c.top > innerHeight) {
    closeCell();
    return;
  }
  const grid = { left: c.left + layout.left, top: c.top + layout.top, right: c.left + layout.left + panel.cols * layout.cell, bottom: c.top + layout.top + panel.rows * layout.cell };
  const at = { left: grid.left + cell.col * layout.cell, top: grid.top + cell.row * layout.cell };
  const sources = [...document.querySelectorAll('.source-mark:not(.self)')].map((mark) => mark.getBoundingClientRect());
  const place = placeBeside({ width: tooltip.offsetWidth, height: tooltip.offsetHeight }, { ...at, right: at.left + layout.cell, bottom: at.top + layout.cell }, grid, undefined, sources);
  tooltip.style.left = `${Math.round(place.left)}px`;
  tooltip.style.top = `${Math.round(place.top)}px`;
}

// The one box open (fixed to the viewport: it follows its cell when the page scrolls).
let openTooltip = null;
let openCell = null;
function closeCell() {
  if (openTooltip) openTooltip.hidden = true;
  openTooltip = null;
  openCell = null;
  markSources([]);
}
if (typeof window !== 'undefined') {
  window.addEventListener('scroll', () => { if (openCell) placeOpenBox(); }, { passive: true });
  document.addEventListener('keydown', (event) => { if (event.key === 'Escape' && openTooltip) closeCell(); });
}

function showFocus(inspection) {
  const { layout, focus } = inspection;
  showCell(inspection, focus);
}

function listenForInspection(pooled) {
  const { canvas } = pooled;
  const hideTooltip = () => { if (openTooltip === pooled.inspection.tooltip) closeCell(); else pooled.inspection.tooltip.hidden = true; };
  canvas.addEventListener('pointermove', (event) => {
    const inspection = pooled.inspection;
    const cell = cellAt(inspection.layout, inspection.panel, event.offsetX, event.offsetY);
    if (!cell) hideTooltip();
    else if (openTooltip !== inspection.tooltip || inspected?.row !== cell.row || inspected?.col !== cell.col || inspected?.name !== inspection.view.name || inspected?.panel !== inspection.panel.index) showCell(inspection, cell);
  });
  canvas.addEventListener('pointerleave', hideTooltip);
  canvas.addEventListener('blur', hideTooltip);
  canvas.addEventListener('focus', () => showFocus(pooled.inspection));
  canvas.addEventListener('keydown', (event) => {
    const inspection = pooled.inspection;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[event.key]) {
      event.preventDefault();
      event.stopPropagation(); // the stepper's ←/→ must not turn the page while a heatmap is inspected
      const [dr, dc] = moves[event.key];
      const { panel, focus } = inspection;
      inspection.focus = {
        row: Math.min(panel.rows - 1, Math.max(0, focus.row + dr)),
        col: Math.min(panel.cols - 1, Math.max(0, focus.col + dc)),
      };
      showFocus(inspection);
    } else if (event.key === 'Escape') {
      closeCell();
    } else if (event.key === 'Enter' && inspection.editable) {
      event.preventDefault();
      openEditor(inspection, inspection.focus);
    }
  });
  canvas.addEventListener('click', (event) => {
    const inspection = pooled.inspection;
    if (!inspection.editable || inspection.panel.bare) return; // a click opens a thumbnail (step-diagram.js)
    const cell = cellAt(inspection.layout, inspection.panel, event.offsetX, event.offsetY);
    if (cell) openEditor(inspection, cell);
  });
}

function placeEditor({ canvas, layout }, input, cell) {
  input.style.left = `${canvas.offsetLeft + layout.left + cell.col * layout.cell}px`;
  input.style.top = `${canvas.offsetTop + layout.top + cell.row * layout.cell}px`;
  input.style.width = `${Math.max(layout.cell, 72)}px`;
}

function openEditor(inspection, cell) {
  const { view, panel, canvas, wrap, onEdit } = inspection;
  const input = element('input', {
    type: 'number', step: 'any', class: 'cell-editor',
    'aria-label': format(STRINGS.editCell, { name: view.name, row: cell.row, col: cell.col }),
    value: shortestFloat32(panel.values[cell.row * panel.cols + cell.col]),
  });
  input.dataset.row = cell.row;
  input.dataset.col = cell.col;
  placeEditor(inspection, input, cell);
  let done = false;
  const finish = (commit) => {
    if (done) return;
    done = true;
    const value = Number(input.value);
    input.remove();
    if (commit && input.value.trim() !== '' && Number.isFinite(value)) onEdit(view.editable, cell.row, cell.col, value);
    else canvas.focus();
  };
  input.addEventListener('keydown', (event) => {
    event.stopPropagation();
    if (event.key === 'Enter') finish(true);
    if (event.key === 'Escape') finish(false);
  });
  input.addEventListener('blur', () => finish(true));
  wrap.append(input);
  input.focus();
  input.select();
}

/**
 * Points at cell (row, col) of panel `panel` of the tensor `name` on the page, as the pointer or the keyboard
 * would: its sources outlined, its box beside it. Returns false when the page shows no such cell.
 */
export function pointAt(name, row, col, panel = 0) {
  const pooled = pooledCanvasOf(name, panel);
  const inspection = pooled?.inspection;
  if (!inspection || !pooled.canvas.isConnected || row < 0 || col < 0 || row >= inspection.panel.rows || col >= inspection.panel.cols) return false;
  inspection.focus = { row, col };
  showCell(inspection, { row, col });
  return true;
}
