// One shown tensor: a figure with its name and shape, the heatmap (one panel per head when the tensor has a
// heads axis, on pooled canvases: heatmap-canvas.js), the colour key, the export menu (figure-export.js), and
// the values as tables for screen readers (values-tables.js); its cells are inspected and edited through
// cell-inspection.js. Values come from the core unchanged.
import { colorScale, css, heatmapPalette, LOG_DECADES, prefersDark, SCALE_MODES } from './colormap.js';
import { formatCell, layoutPanel } from './heatmap-draw.js';
import { drawDeferredCanvases, paintCanvas } from './heatmap-canvas.js';
import { attachInspection, inspectAgain, setSourceMarker } from './cell-inspection.js';
import { setShownViews } from './cell-sources.js';
import { EXPORT_ACTIONS, rememberPainted } from './figure-export.js';
import { updateEagerTables, updateLazyTables, valuesTableHtml } from './values-tables.js';
import { element, setAttribute, setHidden, setText } from './dom-sync.js';
import { figureId, shapeText, thumbName } from './tensor-labels.js';
import { STRINGS, format } from './strings.js';

const EDITABLE_CELLS = 512;
// Tensors up to this many values carry their screen-reader table with them; bigger ones offer it
// behind a disclosure, built when opened: a table of thousands of cells costs more layout than the
// whole repaint budget, on every change.
const EAGER_TABLE_CELLS = 256;

// The weights' colour scale the reader picked (colormap.js SCALE_MODES), for every weights heatmap.
let scaleMode = 'linear';
/** Sets the weights' colour scale: 'linear', 'row' or 'log'. */
export function setScaleMode(mode) {
  if (!SCALE_MODES.includes(mode)) throw new Error(`setScaleMode: mode is ${JSON.stringify(mode)}; expected one of ${SCALE_MODES.join(', ')}`);
  scaleMode = mode;
}
export function getScaleMode() {
  return scaleMode;
}

// The 2-D slices to draw: a rank-1 tensor is one row; leading axes become side-by-side panels.
function panelsOf(view) {
  const shape = view.tensor.shape.length === 1 ? [1, view.tensor.shape[0]] : view.tensor.shape;
  const cols = shape[shape.length - 1];
  const rows = shape[shape.length - 2];
  const count = view.tensor.data.length / (rows * cols);
  const masked = view.causal ? (r, c) => c > r : () => false;
  return Array.from({ length: count }, (_, p) => ({
    index: p,
    title: count > 1 ? format(STRINGS.headLabel, { h: p + 1 }) : '',
    rows, cols, masked, integer: view.kind === 'ids',
    values: view.tensor.data.subarray(p * rows * cols, (p + 1) * rows * cols),
    rowLabels: view.rows ?? null,
    colLabels: view.cols ?? null,
  }));
}

// The top of a tensor's colour map: its largest |value|, or for token ids the vocabulary's last id, so that
// one word has one colour in every tensor of the step.
function scaleTop(view) {
  return view.kind === 'ids' && view.words ? view.words.length - 1 : maxAbsFinite(view.tensor.data);
}

function maxAbsFinite(data) {
  let max = 0;
  for (let i = 0; i < data.length; i++) {
    const size = Math.abs(data[i]);
    if (size > max && size !== Infinity) max = size; // NaN is never greater
  }
  return max;
}

// The screen-reader tables a repaint left for after its frame, by figure: no one sees them, and writing their
// cells cost the frame a layout of every changed cell (a few hundred elements at T=6).
const pendingTables = new Map();

/**
 * Draws the canvases a repaint left for after its frame (off-screen ones) and writes its screen-reader tables;
 * app.js calls it once the frame is painted, before it tells its listeners that the repaint is done.
 */
export function drawDeferred() {
  drawDeferredCanvases();
  for (const [entry, { view, panels }] of pendingTables) updateEagerTables(entry, view, panels);
  pendingTables.clear();
}
if (typeof window !== 'undefined') window.addEventListener('beforeprint', drawDeferred);

// What a tensor's pixels depend on, besides its values (the panel's title comes on top): a canvas that already
// shows the same is not drawn again, so a control that leaves a matrix as it was (W_query under a temperature
// change) costs nothing. Built once per tensor, not per panel: eight heads made it eight times over. `frame` is
// what the background and the labels around the cells depend on: a canvas whose frame is drawn already has its
// cells drawn again and nothing else (a temperature change at T=32 wrote 64 labels per panel again, each a
// fillText, the diagonal ones with a save, a rotation and a restore).
function drawingKeys(view, panels, layouts, colors, maxAbs) {
  const { scale, ...paletteColors } = colors; // the scale follows from kind and the tensor's largest value
  const frame = JSON.stringify([panels[0].rows, panels[0].cols, panels[0].rowLabels, panels[0].colLabels, layouts, paletteColors, window.devicePixelRatio || 1]);
  return { frame, pixels: `${JSON.stringify([view.kind, view.kind === 'weights' ? scaleMode : '', view.causal ?? false, maxAbs])}${frame}` };
}

// The colour key's gradient and end values: a small bar from the map's low end to its high end.
function legendParts(view, colors, maxAbs) {
  if (view.kind === 'ids') {
    const stops = Array.from({ length: 7 }, (_, i) => css(colors.scale((maxAbs * i) / 6)));
    return { low: '0', high: String(maxAbs), gradient: `linear-gradient(to right, ${stops.join(', ')})` };
  }
  const low = view.kind === 'weights' ? 0 : -maxAbs;
  const stops = Array.from({ length: 7 }, (_, i) => css(colors.scale(low + ((maxAbs - low) * i) / 6)));
  if (view.kind === 'weights' && scaleMode === 'row') return { low: '0', high: 'row max', gradient: `linear-gradient(to right, ${stops.join(', ')})` };
  if (view.kind === 'weights' && scaleMode === 'log') {
    return { low: `≤${(maxAbs / 10 ** LOG_DECADES).toExponential(0).replace('-', '−')}`, high: formatCell(maxAbs), gradient: `linear-gradient(to right, ${stops.join(', ')})` };
  }
  return { low: formatCell(low), high: formatCell(maxAbs), gradient: `linear-gradient(to right, ${stops.join(', ')})` };
}

// A figure lives on from one repaint to the next, one per tensor name, like the canvases in it: the
// page changes what differs (a shape, a legend value, the pixels) in place: rebuilding the results area
// on every change took half the repaint budget in style, layout and paint, even with the canvases reused.
// The export buttons and the value tables' disclosure read the figure's current view through
// `entry.current`, so their listeners are attached once.
const figurePool = new Map();

function pooledFigure(name) {
  let entry = figurePool.get(name);
  if (entry) return entry;
  const figure = element('figure', { 'data-tensor': name, id: figureId(name) });
  const caption = element('figcaption');
  const shape = element('span', { class: 'tensor-shape' });
  const legendLow = element('span');
  const legendBar = element('span', { class: 'legend-bar' });
  const legendHigh = element('span');
  const legend = element('span', { class: 'legend', 'aria-hidden': 'true' });
  legend.append(legendLow, legendBar, legendHigh);
  // One menu per tensor: a disclosure whose buttons save the heatmap or the values.
  const exportMenu = element('details', { class: 'export-menu' });
  const exportSummary = element('summary', { 'aria-label': format(STRINGS.views.exportMenuLabel, { name }) }, STRINGS.views.exportMenu);
  const exports = element('span', { class: 'export', role: 'group', 'aria-label': format(STRINGS.exportAs, { name }) });
  exportMenu.append(exportSummary, exports);
  // A thumbnail's caption is its short name (tensor-labels.js thumbName); the figure keeps its full name.
  const short = thumbName(name);
  const shortNode = element('span', { class: 'tensor-short', 'aria-hidden': 'true' }, short);
  if (short !== name) shortNode.title = name;
  caption.append(element('span', { class: 'tensor-name' }, name), shortNode, ' ', shape, legend, exportMenu);
  const panelsRow = element('div', { class: 'panels' });
  const tooltip = element('div', { class: 'tooltip', role: 'status', 'aria-live': 'polite' });
  tooltip.hidden = true;
  const maskedNote = element('p', { class: 'note' }, STRINGS.maskedNote);
  const editNote = element('p', { class: 'note' }, STRINGS.editHint);
  // The screen-reader tables sit in one visually hidden box (a table ignores a 1 px width of its own).
  const tables = element('div', { class: 'values-tables sr-only' });
  const details = element('details', { class: 'values' });
  const summary = element('summary');
  details.append(summary);
  figure.append(caption, panelsRow, tooltip, maskedNote, editNote, tables, details);
  entry = { figure, shape, legend, legendLow, legendBar, legendHigh, panelsRow, tooltip, maskedNote, editNote, tables, details, summary, current: null };

  for (const [label, action] of Object.entries(EXPORT_ACTIONS)) {
    const button = element('button', { type: 'button', 'data-export': label.toLowerCase(), 'aria-label': `${format(STRINGS.exportAs, { name })} ${label}` }, label);
    button.addEventListener('click', () => {
      action(entry.current);
      exportMenu.open = false;
    });
    exports.append(button);
  }
  // Big tensors' tables are built when the reader opens them, and dropped when the values change.
  details.addEventListener('toggle', () => {
    if (details.open && details.children.length === 1) {
      const { view, panels } = entry.current;
      details.insertAdjacentHTML('beforeend', panels.map((panel) => valuesTableHtml(view, panel, 'values-table')).join(''));
    }
  });
  figurePool.set(name, entry);
  return entry;
}

// How big a panel's cells may grow: 40 px for a few tokens, less for many, so that a matrix of 32
// tokens fills about 520 px (16 px cells: every label written, colours easy to tell apart) rather than
// the whole column; a canvas four times that size cost more than the repaint budget to paint with
// several on the page. Heads share the width: their grids stop at about 320 px each.
function maxCellOf(panels) {
  const grid = panels.length > 1 ? 320 : 520;
  return Math.max(8, Math.min(40, Math.floor(grid / panels[0].cols)));
}

// The width of each panel: a single panel as wide as its cells need (at most the column); several
// (one per head) as many side by side as fit at that size, at least one per line.
const PANEL_GAP = 12;
function panelWidth(panels, maxWidth, cell = maxCellOf(panels)) {
  const natural = layoutPanel(panels[0], 100000, cell).width;
  if (panels.length === 1) return Math.min(maxWidth, natural);
  const perLine = Math.max(1, Math.min(panels.length, Math.floor((maxWidth + PANEL_GAP) / (natural + PANEL_GAP))));
  return Math.min(natural, Math.floor((maxWidth - (perLine - 1) * PANEL_GAP) / perLine));
}

// A repaint's first pass: the pixels, for every figure, before any text or attribute on the page
// changes. Drawing on a canvas while the page's style is out of date brings the style up to date
// first, so painting figure by figure between text updates cost a style recalculation per panel.
function paintTensor(view, maxWidth, pick) {
  const entry = pooledFigure(view.name);
  let panels = panelsOf(view);
  // The head picker (state `head`): a tensor with one panel per head shows the picked one alone.
  if (pick.head > 0 && panels.length > 1 && panels.length === pick.heads && pick.head <= panels.length) panels = [panels[pick.head - 1]];
  // The step's diagram (step-diagram.js) sizes each node: full size, or a thumbnail without labels.
  const size = pick.sizeOf?.(view, panels) ?? null;
  if (size?.thumb) panels = panels.map((panel) => ({ ...panel, bare: true }));
  else if (size) panels = panels.map((panel) => ({ ...panel, compact: true, noRowLabels: Boolean(size.noRowLabels) }));
  const cell = size?.cell ?? maxCellOf(panels);
  const width = panelWidth(panels, maxWidth, cell);
  const layouts = panels.map((panel) => layoutPanel(panel, width, cell));
  const sharedTop = pick.scaleTop(view);
  const maxAbs = sharedTop ?? scaleTop(view);
  const colors = { ...heatmapPalette(), scale: colorScale(view.kind, maxAbs, prefersDark(), view.kind === 'weights' ? scaleMode : 'linear') };
  const tensorKeys = drawingKeys(view, panels, layouts, colors, maxAbs);
  const canvases = panels.map((panel, i) => paintCanvas(`${view.name}#${panel.index}`, panel, layouts[i], colors,
    `${tensorKeys.pixels}${panel.title}`, `${tensorKeys.frame}${panel.title}`));
  // The diagram's legend states a shared linear scale once; a figure keeps its own key otherwise.
  const ownLegend = sharedTop === null || (view.kind === 'weights' && scaleMode !== 'linear');
  return { entry, view, panels, layouts, colors, canvases, maxAbs, ownLegend };
}

// The second pass: the figure around the pixels (shape, legend, notes, tables, inspection).
function updateFigure({ entry, view, panels, layouts, colors, canvases, maxAbs, ownLegend }, onEdit) {
  const shownPanels = (list) => list?.map((p) => p.index).join(',');
  // New values, or another head picked: an open values table is written again.
  const valuesChanged = entry.current?.view.tensor.data !== view.tensor.data || shownPanels(entry.current?.panels) !== shownPanels(panels);
  entry.current = { view, panels, layouts, colors };
  setAttribute(entry.figure, 'class', `tensor tensor-${view.kind}${panels[0].bare ? ' thumb' : ''}`);
  setText(entry.shape, shapeText(view));
  setHidden(entry.legend, !ownLegend);
  setAttribute(entry.figure, 'data-scale-top', String(maxAbs));
  const legend = legendParts(view, colors, maxAbs);
  setText(entry.legendLow, legend.low);
  setText(entry.legendHigh, legend.high);
  if (entry.legendGradient !== legend.gradient) {
    entry.legendBar.style.background = legend.gradient;
    entry.legendGradient = legend.gradient;
  }

  setHidden(entry.tooltip, true);
  // `editable` names the matrix the cells belong to (state.js EDITABLE_MATRICES); teaching sizes only.
  const editable = Boolean(view.editable && onEdit && view.tensor.data.length <= EDITABLE_CELLS);
  while (entry.panelsRow.children.length > panels.length) entry.panelsRow.lastElementChild.remove();
  while (entry.panelsRow.children.length < panels.length) entry.panelsRow.append(element('div', { class: 'panel' }));
  panels.forEach((panel, i) => {
    const wrap = entry.panelsRow.children[i];
    const pooled = canvases[i];
    const { canvas } = pooled;
    setAttribute(canvas, 'tabindex', '0');
    setAttribute(canvas, 'role', 'img');
    setAttribute(canvas, 'aria-label', `${view.name} ${shapeText(view)}${panel.title ? `, ${panel.title}` : ''}: heatmap; arrow keys move between cells${editable ? ', Enter edits a cell' : ''}`);
    if (canvas.classList.contains('editable') !== editable) canvas.classList.toggle('editable', editable);
    // Where its cells are (CSS px: left, top, cell size), for tests and tools that point at a cell.
    setAttribute(canvas, 'data-grid', `${layouts[i].left},${layouts[i].top},${layouts[i].cell}`);
    // An open cell editor stays through a repaint (attachInspection moves it onto its cell's new place). The
    // overlay over the canvas holds the marks of a pointed cell's sources (markSources).
    const editor = wrap.querySelector(':scope > .cell-editor');
    pooled.overlay ??= element('div', { class: 'source-marks', 'aria-hidden': 'true' });
    if (wrap.firstChild !== canvas || wrap.childNodes[1] !== pooled.overlay || wrap.childNodes.length !== (editor ? 3 : 2)) wrap.replaceChildren(canvas, pooled.overlay, ...(editor ? [editor] : []));
    attachInspection(pooled, { view, panel, layout: layouts[i], canvas, wrap, tooltip: entry.tooltip, editable, onEdit });
    pooled.overlay.replaceChildren(); // the marks of the last pointed cell belong to the old numbers
  });
  setHidden(entry.maskedNote, !view.causal);
  setHidden(entry.editNote, !editable);
  const eager = view.tensor.data.length <= EAGER_TABLE_CELLS;
  setHidden(entry.tables, !eager);
  setHidden(entry.details, eager);
  if (eager) {
    pendingTables.set(entry, { view, panels });
  } else {
    pendingTables.delete(entry);
    updateLazyTables(entry, view, valuesChanged);
  }
  return entry.figure;
}

/**
 * Renders a step's tensor views: their pooled figures, updated in place (pixels first, then text).
 * @param {object[]} views a step's shown tensors (steps.js `show`), names unique
 * @param {{onEdit?: (matrix: string, row: number, col: number, value: number) => void, maxWidth?: number, head?: number, heads?: number,
 *   sizeOf?: (view: object, panels: object[]) => {cell: number, thumb: boolean}|null, scaleTop?: (view: object) => number|null}} options
 *   onEdit: called with the view's `editable` name (the matrix's name in the state's edits); sizeOf: each
 *   node's cell size in the step's diagram; scaleTop: the top of a tensor's colour map when its quantity
 *   shares one scale across the step (null: its own largest value)
 * @returns {HTMLElement[]} the figures, in the order of `views`
 */
/**
 * Outlines the cells a pointed cell came from, on their own heatmaps (cell-sources.js cellSources); an empty
 * list clears them.
 * @param {{name: string, panel: number, row?: number, col?: number, cell?: [number, number]}[]} marks
 */
export function markSources(marks) {
  for (const overlay of markedOverlays) overlay.replaceChildren();
  markedOverlays.clear();
  for (const mark of marks) {
    const entry = figurePool.get(mark.name);
    const shown = entry?.current;
    if (!shown || !entry.figure.isConnected) continue;
    const index = shown.panels.findIndex((panel) => panel.index === mark.panel);
    const overlay = entry.panelsRow.children[index]?.querySelector(':scope > .source-marks');
    if (index < 0 || !overlay) continue;
    const { cell, left, top } = shown.layouts[index];
    const panel = shown.panels[index];
    const box = (kind, r, c, rows, cols) => {
      const node = element('div', { class: `source-mark ${kind}` });
      Object.assign(node.style, { left: `${left + c * cell}px`, top: `${top + r * cell}px`, width: `${cols * cell}px`, height: `${rows * cell}px` });
      overlay.append(node);
    };
    if (mark.row !== undefined && mark.row < panel.rows) box('row', mark.row, 0, 1, panel.cols);
    if (mark.col !== undefined && mark.col < panel.cols) box('column', 0, mark.col, panel.rows, 1);
    if (mark.rows) box('row', mark.rows[0], 0, Math.min(mark.rows[1], panel.rows) - mark.rows[0], panel.cols);
    if (mark.cols) box('column', 0, mark.cols[0], panel.rows, Math.min(mark.cols[1], panel.cols) - mark.cols[0]);
    if (mark.cell && mark.cell[0] < panel.rows && mark.cell[1] < panel.cols) box(mark.self ? 'cell self' : 'cell', mark.cell[0], mark.cell[1], 1, 1);
    markedOverlays.add(overlay);
  }
}
const markedOverlays = new Set();
setSourceMarker(markSources);

export function renderTensors(views, { onEdit = null, maxWidth = 420, head = 0, heads = 0, sizeOf = null, scaleTop: sharedTop = null } = {}) {
  setShownViews(views);
  const painted = views.map((view) => paintTensor(view, maxWidth, { head, heads, sizeOf, scaleTop: (v) => sharedTop?.(v) ?? null }));
  rememberPainted(painted);
  const figures = painted.map((figure) => updateFigure(figure, onEdit));
  inspectAgain(painted); // the inspected cell's computation shows the new numbers
  return figures;
}
