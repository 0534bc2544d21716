// One shown tensor: a figure with its name and shape, the heatmap (one panel per head when the tensor
// has a heads axis), a tooltip that explains the cell under the pointer or the keyboard focus, the
// values as a table for screen readers, and the export buttons. Values come from the core unchanged.
import { colorScale, css, LOG_DECADES, prefersDark, SCALE_MODES } from './colormap.js';
import { cellAt, drawPanel, figureSvg, formatCell, formatValue, layoutPanel, panelSvg } from './heatmap-draw.js';
import { download, fileName, tensorCsv, tensorJson } from './export.js';
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

/** The id of a tensor's figure on the page (the flow picture links to it). */
export function figureId(name) {
  return `tensor-${name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '')}`;
}

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

function palette() {
  return prefersDark()
    ? { background: '#17181c', label: '#d8dae0', grid: '#555a66', hatch: '#8a8f9c', maskedFill: 'rgb(43, 45, 51)', maskedRgb: [43, 45, 51] }
    : { background: '#ffffff', label: '#222428', grid: '#b8bcc6', hatch: '#8a8f9c', maskedFill: 'rgb(236, 238, 242)', maskedRgb: [236, 238, 242] };
}

/** The axis names written on a shape: `weights (H=2, T=6, T=6)`. */
export function axisNames(view) {
  if (view.axes) return view.axes;
  const rank = view.tensor.shape.length;
  if (rank === 1) return ['N'];
  const isWeight = view.name.startsWith('W_');
  const rowAxis = view.rows ? (view.cols && view.cols !== view.rows ? 'Tq' : 'T') : isWeight ? 'd_in' : 'rows';
  const colAxis = view.cols ? (view.cols !== view.rows ? 'Tk' : 'T') : isWeight ? 'd_out' : view.rows ? 'd' : 'cols';
  const leading = rank === 3 ? ['H'] : Array.from({ length: rank - 2 }, (_, i) => `n${i}`);
  return [...leading, rowAxis, colAxis];
}

export function shapeText(view) {
  const names = axisNames(view);
  return `(${view.tensor.shape.map((size, i) => `${names[i]}=${size}`).join(', ')})`;
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

function element(tag, attributes = {}, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

// The screen-reader table of one panel, as HTML: tens of thousands of cells parse far faster than
// they can be created node by node, and the text says whether anything changed since the last repaint.
function valuesTableHtml(view, panel, className = 'sr-only') {
  const label = (labels, i) => escapeHtml(labels ? labels[i] : String(i));
  const parts = [`<table class="${className}" data-tensor="${escapeHtml(view.name)}" data-panel="${panel.index}">`,
    `<caption>${escapeHtml(`${view.name} ${shapeText(view)}${panel.title ? `, ${panel.title}` : ''}`)}</caption><thead><tr><th scope="col">${panel.rowLabels ? 'token' : 'row'}</th>`];
  for (let c = 0; c < panel.cols; c++) parts.push(`<th scope="col">${label(panel.colLabels, c)}</th>`);
  parts.push('</tr></thead><tbody>');
  for (let r = 0; r < panel.rows; r++) {
    parts.push(`<tr><th scope="row">${label(panel.rowLabels, r)}</th>`);
    for (let c = 0; c < panel.cols; c++) parts.push(`<td>${formatValue(panel.values[r * panel.cols + c])}</td>`);
    parts.push('</tr>');
  }
  parts.push('</tbody></table>');
  return parts.join('');
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

// Canvases live on from one repaint to the next, one per tensor name and panel: a fresh canvas costs
// a new 2-D context and backing store every time, the largest share of a small repaint. Their listeners
// are attached once and read the repaint's tensor from `inspection` (attachInspection).
const canvasPool = new Map();

function pooledCanvas(key) {
  let entry = canvasPool.get(key);
  if (!entry) {
    const canvas = document.createElement('canvas');
    entry = { canvas, ctx: canvas.getContext('2d'), inspection: null, visible: true, pending: null };
    canvasPool.set(key, entry);
    watchVisibility(entry);
  }
  return entry;
}

// A repaint draws at once the canvases on screen or near it, and the others right after the frame is painted
// (drawDeferred, called by app.js before it tells its listeners): at T=32 most of a step's figures lie below
// the fold (multi-head with 8 heads is about 1,700 px tall), and drawing them all cost most of the repaint.
// An IntersectionObserver keeps each canvas's `visible`; one that scrolls into view with a drawing pending
// is drawn then. A canvas that is not on the page yet, or was never drawn, is drawn at once.
const canvasByElement = new WeakMap();
const deferred = new Set();
let visibility = null;
function watchVisibility(entry) {
  if (typeof IntersectionObserver !== 'function') return;
  visibility ??= new IntersectionObserver((records) => {
    for (const record of records) {
      const pooled = canvasByElement.get(record.target);
      pooled.visible = record.isIntersecting;
      // Below the visible part: its size may change after the frame too, since nothing on screen moves then.
      pooled.below = !record.isIntersecting && record.boundingClientRect.top >= (record.rootBounds?.bottom ?? innerHeight);
      if (pooled.visible && pooled.pending) drawPending(pooled);
    }
  }, { rootMargin: '150px 0px' });
  canvasByElement.set(entry.canvas, entry);
  visibility.observe(entry.canvas);
}

function drawPending(pooled) {
  const { panel, layout, colors, key, frameKey } = pooled.pending;
  pooled.pending = null;
  deferred.delete(pooled);
  drawCanvas(pooled, panel, layout, colors, frameKey);
  pooled.drawn = { key, frameKey, values: panel.values.slice() };
}

// The screen-reader tables a repaint left for after its frame, by figure: no one sees them, and writing their
// cells cost the frame a layout of every changed cell (a few hundred elements at T=6).
const pendingTables = new Map();

/**
 * Draws the canvases a repaint left for after its frame (off-screen ones) and writes its screen-reader tables;
 * app.js calls it once the frame is painted, before it tells its listeners that the repaint is done.
 */
export function drawDeferred() {
  for (const pooled of [...deferred]) drawPending(pooled);
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

function showsAlready(pooled, key, values) {
  const drawn = pooled.drawn;
  if (!drawn || drawn.key !== key || drawn.values.length !== values.length) return false;
  for (let i = 0; i < values.length; i++) if (!Object.is(drawn.values[i], values[i])) return false;
  return true;
}

// A canvas's backing store is not resized with its figure where that can be helped: a new size is a new
// bitmap for the compositor (at T=32 a T change resized every canvas on the step, and their new bitmaps cost
// most of the repaint's frame under load). A canvas starts with a bitmap of exactly its figure's size in device
// pixels; once its figure's size changes, the bitmap grows in BACKING_STEP device-pixel steps and shrinks only
// when it is more than two steps too big, and the element keeps the figure's size and shows the bitmap's
// top-left part, one bitmap pixel per device pixel (the drawing is scaled by the device pixel ratio, so it stays
// as crisp as an exact bitmap). At a ratio of 1 that part is shown at its natural size (object-fit: none); at
// other ratios it is cut out with object-view-box and scaled by 1/ratio, which is one device pixel per bitmap
// pixel again. A browser without object-view-box, or a figure that does not cover whole device pixels at the
// page's ratio, gets an exact bitmap (a new one per size). A canvas whose size never changed (a temperature change) keeps the plain form, which the
// compositor shows at less cost.
const BACKING_STEP = 64;
const roundUp = (pixels) => Math.ceil(pixels / BACKING_STEP) * BACKING_STEP;
function fitsBacking(size, needed) {
  return size >= needed && size <= needed + 2 * BACKING_STEP;
}
const viewBoxSupported = typeof CSS !== 'undefined' && typeof CSS.supports === 'function' && CSS.supports('object-view-box', 'inset(0px 1px 1px 0px)');
function setStyle(style, name, value) {
  if (style[name] !== value) style[name] = value;
}
function sizeCanvas(pooled, layout) {
  const { canvas } = pooled;
  const ratio = window.devicePixelRatio || 1;
  const width = Math.ceil(layout.width * ratio);
  const height = Math.ceil(layout.height * ratio);
  const fresh = canvas.width === 300 && canvas.height === 150 && !canvas.style.width; // a new canvas's default size
  // Other ratios need a figure that covers whole device pixels (587 px at 1.5 covers 880.5, and a bitmap of 881
  // shown there is resampled): those figures get exact bitmaps.
  const whole = Math.abs(layout.width * ratio - width) < 1e-6 && Math.abs(layout.height * ratio - height) < 1e-6;
  const bucketed = !fresh && (ratio === 1 || (viewBoxSupported && whole)) && (canvas.width !== width || canvas.height !== height || pooled.bucketed);
  if (!bucketed) {
    if (canvas.width !== width || canvas.height !== height) {
      canvas.width = width;
      canvas.height = height;
      pooled.cleared = true;
    }
    setStyle(canvas.style, 'objectFit', '');
    setStyle(canvas.style, 'objectPosition', '');
    if (viewBoxSupported) setStyle(canvas.style, 'objectViewBox', '');
    setStyle(canvas.style, 'imageRendering', '');
  } else {
    pooled.bucketed = true;
    if (!fitsBacking(canvas.width, width) || !fitsBacking(canvas.height, height)) {
      canvas.width = roundUp(width);
      canvas.height = roundUp(height);
      pooled.cleared = true;
    }
    if (ratio === 1) {
      setStyle(canvas.style, 'objectFit', 'none');
      setStyle(canvas.style, 'objectPosition', '0px 0px');
      if (viewBoxSupported) setStyle(canvas.style, 'objectViewBox', '');
      setStyle(canvas.style, 'imageRendering', '');
    } else {
      setStyle(canvas.style, 'objectFit', '');
      setStyle(canvas.style, 'objectPosition', '');
      setStyle(canvas.style, 'objectViewBox', `inset(0px ${canvas.width - width}px ${canvas.height - height}px 0px)`);
      // The cut-out is scaled by exactly 1/ratio, but at a fractional device-pixel position it would be filtered
      // (blurred by up to a sixteenth of a colour step); nearest-neighbour sampling keeps it pixel for pixel.
      setStyle(canvas.style, 'imageRendering', 'pixelated');
    }
  }
  const cssWidth = `${layout.width}px`;
  const cssHeight = `${layout.height}px`;
  if (canvas.style.width !== cssWidth) canvas.style.width = cssWidth;
  if (canvas.style.height !== cssHeight) canvas.style.height = cssHeight;
  return ratio;
}

function drawCanvas(pooled, panel, layout, colors, frameKey) {
  const { ctx } = pooled;
  const ratio = sizeCanvas(pooled, layout);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  // The cells alone where the frame around them is on the bitmap already (not cleared by a new size since), and
  // the cells cover whole device pixels: the new cells cover the old ones exactly, so the pixels are those of a
  // whole drawing.
  const whole = (css) => Number.isInteger(css * ratio);
  const cellsOnly = !pooled.cleared && pooled.drawn?.frameKey === frameKey && whole(layout.left) && whole(layout.top) && whole(layout.cell);
  pooled.cleared = false;
  drawPanel(ctx, panel, layout, colors, { cellsOnly }); // paints every pixel it draws over: no clear needed
}

function exportPng(view, panels, layouts, colors) {
  const gap = 16;
  const width = layouts.reduce((sum, l) => sum + l.width + gap, 0) - gap;
  const height = Math.max(...layouts.map((l) => l.height)) + 24;
  const canvas = document.createElement('canvas');
  canvas.width = width * 2;
  canvas.height = height * 2;
  const ctx = canvas.getContext('2d');
  ctx.scale(2, 2);
  ctx.fillStyle = colors.background;
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = colors.label;
  ctx.font = '600 14px system-ui, sans-serif';
  ctx.textBaseline = 'top';
  ctx.fillText(`${view.name} ${shapeText(view)}`, 0, 2);
  let x = 0;
  panels.forEach((panel, i) => {
    ctx.save();
    ctx.translate(x, 24);
    drawPanel(ctx, panel, layouts[i], colors);
    ctx.restore();
    x += layouts[i].width + gap;
  });
  canvas.toBlob((blob) => download(blob, fileName(view.name, 'png')), 'image/png');
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

// Sets what differs and nothing else: an unchanged node keeps its style and layout from the last frame.
export function setText(node, text) {
  if (node.textContent === text) return;
  // A lone text node takes the new text in place (textContent would replace it with a new one).
  if (node.childNodes.length === 1 && node.firstChild.nodeType === 3) node.firstChild.data = text;
  else node.textContent = text;
}
function setAttribute(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}
function setHidden(node, hidden) {
  if (node.hidden !== hidden) node.hidden = hidden;
}

// A figure lives on from one repaint to the next, one per tensor name, like the canvases in it: the
// page changes what differs (a shape, a legend value, the pixels) in place. Rebuilding the results
// area on every change cost 8 ms of style, layout and paint per frame at T=32 (half the repaint
// budget), even with the canvases reused. The export buttons and the value tables' disclosure read the
// figure's current view through `entry.current`, so their listeners are attached once.
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
  caption.append(element('span', { class: 'tensor-name' }, name), ' ', shape, legend, exportMenu);
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
  entry = { figure, shape, legendLow, legendBar, legendHigh, panelsRow, tooltip, maskedNote, editNote, tables, details, summary, current: null };

  const actions = {
    PNG: ({ view, panels, layouts, colors }) => exportPng(view, panels, layouts, colors),
    SVG: ({ view, panels, layouts, colors }) => download(new Blob([figureSvg(panels, layouts, colors, `${view.name} ${shapeText(view)}`)], { type: 'image/svg+xml' }), fileName(view.name, 'svg')),
    CSV: ({ view }) => download(new Blob([tensorCsv(view.tensor, view.rows, view.cols)], { type: 'text/csv' }), fileName(view.name, 'csv')),
    JSON: ({ view }) => download(new Blob([tensorJson(view.name, view.tensor)], { type: 'application/json' }), fileName(view.name, 'json')),
  };
  for (const [label, action] of Object.entries(actions)) {
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

// The screen-reader tables of a small tensor. Tables of the same shape and labels as the last repaint's keep
// their elements, and only the cells whose text changed are written: writing them anew as HTML parsed, styled
// and laid out a few hundred elements per repaint (the largest share of a temperature change's frame at T=6).
function updateEagerTables(entry, view, panels) {
  const shape = JSON.stringify([view.name, shapeText(view), panels.map((p) => [p.index, p.title, p.rows, p.cols]), panels[0]?.rowLabels, panels[0]?.colLabels]);
  if (entry.tablesShape !== shape) {
    entry.tables.innerHTML = panels.map((panel) => valuesTableHtml(view, panel, 'values-sr')).join('');
    entry.tablesShape = shape;
    entry.tableCells = [...entry.tables.querySelectorAll('table')].map((table) => [...table.querySelectorAll('tbody td')]);
    return;
  }
  panels.forEach((panel, p) => {
    const cells = entry.tableCells[p];
    for (let i = 0; i < cells.length; i++) {
      setText(cells[i], formatValue(panel.values[i]));
    }
  });
}

function updateLazyTables(entry, view, valuesChanged) {
  setText(entry.summary, format(STRINGS.valuesTable, { count: entry.current.panels.reduce((n, p) => n + p.rows * p.cols, 0) }));
  if (!valuesChanged) return;
  for (const table of [...entry.details.querySelectorAll('table')]) table.remove();
  if (entry.details.open) {
    entry.details.insertAdjacentHTML('beforeend', entry.current.panels.map((panel) => valuesTableHtml(view, panel, 'values-table')).join(''));
  }
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
function panelWidth(panels, maxWidth) {
  const natural = layoutPanel(panels[0], 100000, maxCellOf(panels)).width;
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
  const width = panelWidth(panels, maxWidth);
  const cell = maxCellOf(panels);
  const layouts = panels.map((panel) => layoutPanel(panel, width, cell));
  const maxAbs = scaleTop(view);
  const colors = { ...palette(), scale: colorScale(view.kind, maxAbs, prefersDark(), view.kind === 'weights' ? scaleMode : 'linear') };
  const tensorKeys = drawingKeys(view, panels, layouts, colors, maxAbs);
  const canvases = panels.map((panel, i) => {
    const pooled = pooledCanvas(`${view.name}#${panel.index}`);
    const key = `${tensorKeys.pixels}${panel.title}`;
    if (showsAlready(pooled, key, panel.values)) {
      pooled.pending = null; // a change undone before its drawing came
      deferred.delete(pooled);
      return pooled;
    }
    pooled.pending = { panel, layout: layouts[i], colors, key, frameKey: `${tensorKeys.frame}${panel.title}` };
    if (pooled.visible || !pooled.drawn || !pooled.canvas.isConnected) {
      drawPending(pooled);
    } else {
      // Above the visible part, its new size is laid out in this frame (what is on screen keeps its place);
      // below it, the size follows with the pixels, after the frame.
      if (!pooled.below) sizeCanvas(pooled, layouts[i]);
      deferred.add(pooled);
    }
    return pooled;
  });
  return { entry, view, panels, layouts, colors, canvases, maxAbs };
}

// The second pass: the figure around the pixels (shape, legend, notes, tables, inspection).
function updateFigure({ entry, view, panels, layouts, colors, canvases, maxAbs }, onEdit) {
  const shownPanels = (list) => list?.map((p) => p.index).join(',');
  // New values, or another head picked: an open values table is written again.
  const valuesChanged = entry.current?.view.tensor.data !== view.tensor.data || shownPanels(entry.current?.panels) !== shownPanels(panels);
  entry.current = { view, panels, layouts, colors };
  setAttribute(entry.figure, 'class', `tensor tensor-${view.kind}`);
  setText(entry.shape, shapeText(view));
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
    // An open cell editor stays through a repaint (attachInspection moves it onto its cell's new place).
    const editor = wrap.querySelector(':scope > .cell-editor');
    if (wrap.firstChild !== canvas || wrap.childNodes.length !== (editor ? 2 : 1)) wrap.replaceChildren(canvas, ...(editor ? [editor] : []));
    attachInspection(pooled, { view, panel, layout: layouts[i], canvas, wrap, tooltip: entry.tooltip, editable, onEdit });
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
 * @param {{onEdit?: (matrix: string, row: number, col: number, value: number) => void, maxWidth?: number, head?: number, heads?: number}} options
 *   onEdit: called with the view's `editable` name (the matrix's name in the state's edits)
 * @returns {HTMLElement[]} the figures, in the order of `views`
 */
export function renderTensors(views, { onEdit = null, maxWidth = 420, head = 0, heads = 0 } = {}) {
  const painted = views.map((view) => paintTensor(view, maxWidth, { head, heads }));
  lastPainted = painted;
  const figures = painted.map((figure) => updateFigure(figure, onEdit));
  // The inspected cell's computation shows the new numbers (when the cell still exists).
  const still = inspected && painted.find((p) => p.view.name === inspected.name);
  const panel = still?.panels.find((p) => p.index === inspected.panel);
  if (panel && inspected.row < panel.rows && inspected.col < panel.cols) inspectListener?.(still.view, panel, inspected.row, inspected.col);
  return figures;
}

// The tensors of the last repaint, for the whole-step figure.
let lastPainted = [];

/**
 * The whole step as one SVG document: the title, then every tensor's heatmaps (all their panels) as
 * on screen, laid out in rows no wider than `width`, each under its name and shape.
 * @returns {{svg: string, width: number, height: number}}
 */
export function stepFigureSvg(title, width = 1200) {
  const gap = 24;
  const blocks = lastPainted.map(({ view, panels, layouts, colors }) => {
    const bodyWidth = layouts.reduce((sum, l) => sum + l.width + 16, 0) - 16;
    return { view, panels, layouts, colors, width: Math.max(bodyWidth, 120), height: Math.max(...layouts.map((l) => l.height)) + 24 };
  });
  const placed = [];
  let x = 0;
  let y = 36;
  let rowHeight = 0;
  for (const block of blocks) {
    if (x > 0 && x + block.width > width) {
      x = 0;
      y += rowHeight + gap;
      rowHeight = 0;
    }
    placed.push({ ...block, x, y });
    x += block.width + gap;
    rowHeight = Math.max(rowHeight, block.height);
  }
  const totalWidth = Math.max(width, ...placed.map((b) => b.x + b.width));
  const totalHeight = y + rowHeight + 8;
  const colors = lastPainted[0]?.colors ?? { ...palette() };
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${totalWidth}" height="${totalHeight}" viewBox="0 0 ${totalWidth} ${totalHeight}">`,
    `<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="${colors.hatch}" stroke-width="1"/></pattern></defs>`,
    `<rect width="100%" height="100%" fill="${colors.background}"/>`,
    `<text x="0" y="22" font-family="system-ui, sans-serif" font-size="20" font-weight="600" fill="${colors.label}">${escapeHtml(title)}</text>`,
  ];
  for (const block of placed) {
    parts.push(`<g data-tensor="${escapeHtml(block.view.name)}" transform="translate(${block.x} ${block.y})">`,
      `<text x="0" y="15" font-family="system-ui, sans-serif" font-size="14" font-weight="600" fill="${block.colors.label}">${escapeHtml(`${block.view.name} ${shapeText(block.view)}`)}</text>`);
    let panelX = 0;
    block.panels.forEach((panel, i) => {
      parts.push(panelSvg(panel, block.layouts[i], block.colors, panelX, 24));
      panelX += block.layouts[i].width + 16;
    });
    parts.push('</g>');
  }
  parts.push('</svg>');
  return { svg: parts.join(''), width: totalWidth, height: totalHeight };
}

/** Saves the whole step as SVG, or as PNG (the same SVG drawn at twice the size). */
export function exportStepFigure(title, kind, name) {
  const { svg, width, height } = stepFigureSvg(title);
  if (kind === 'svg') {
    download(new Blob([svg], { type: 'image/svg+xml' }), fileName(name, 'svg'));
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = width * 2;
      canvas.height = height * 2;
      const ctx = canvas.getContext('2d');
      ctx.scale(2, 2);
      ctx.drawImage(image, 0, 0);
      canvas.toBlob((blob) => {
        download(blob, fileName(name, 'png'));
        resolve();
      }, 'image/png');
    };
    image.onerror = () => reject(new Error('exportStepFigure: the step\'s SVG could not be drawn as PNG'));
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  });
}

/**
 * Puts `nodes` into `parent` in order, touching only what differs: a node already in place stays, and
 * so does one equal to its replacement (isEqualNode: same tags, attributes and text), which suits
 * the small tables and lists rebuilt on each repaint; they carry no listeners.
 */
/** Nodes whose whole state is their markup (no listener, no property set from JS): syncChildren may patch them. */
const PATCHABLE = new WeakSet();

/** Marks `node` as markup only, so that a later node built the same way may be patched into it; returns it. */
export function markPatchable(node) {
  PATCHABLE.add(node);
  return node;
}

// The node on the page that took a patchable node's text and attributes in its place.
const PATCHED_INTO = new WeakMap();
/** The node that shows `node` on the page: the one syncChildren patched it into, or `node` itself. */
export function placedNode(node) {
  return PATCHED_INTO.get(node) ?? node;
}

export function syncChildren(parent, nodes) {
  nodes.forEach((node, i) => {
    const current = parent.childNodes[i];
    if (current === node) return;
    // An old node built the same way (same tags, attribute names and children) takes the new one's text and
    // attribute values in place: the flow picture's shapes change with T, and replacing the whole picture
    // restyled and laid it out anew on every change. Only markup-only nodes (markPatchable): a tensor's
    // figure carries listeners bound to its tensor, which a patch would leave pointing at the old one.
    if (current && PATCHABLE.has(current) && PATCHABLE.has(node) && !nodes.includes(current) && !node.isConnected && sameShape(current, node)) {
      patchNode(current, node);
      PATCHED_INTO.set(node, current);
      return;
    }
    parent.insertBefore(node, current ?? null);
  });
  while (parent.childNodes.length > nodes.length) parent.lastChild.remove();
}

function sameShape(a, b) {
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return false;
  if (a.nodeType === 1) {
    if (a.attributes.length !== b.attributes.length) return false;
    for (const { name } of b.attributes) if (!a.hasAttribute(name)) return false;
  }
  const aChildren = a.childNodes;
  const bChildren = b.childNodes;
  if (aChildren.length !== bChildren.length) return false;
  for (let i = 0; i < aChildren.length; i++) if (!sameShape(aChildren[i], bChildren[i])) return false;
  return true;
}

function patchNode(a, b) {
  if (a.nodeType === 3) {
    if (a.data !== b.data) a.data = b.data;
    return;
  }
  if (a.nodeType === 1) for (const { name, value } of b.attributes) if (a.getAttribute(name) !== value) a.setAttribute(name, value);
  for (let i = 0; i < a.childNodes.length; i++) patchNode(a.childNodes[i], b.childNodes[i]);
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

// Pointer and keyboard inspection of cells, and editing of the cells of an input matrix (x, W_query…).
// A canvas's listeners are attached once and act on its `inspection`, which every repaint replaces with the
// new tensor, panel and layout: attaching six listeners per canvas per repaint (and removing the last six)
// showed in the repaint's profile at eight heads.
function attachInspection(pooled, inspection) {
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

function showCell({ view, panel, wrap, tooltip }, cell, x, y) {
  inspected = { name: view.name, panel: panel.index, row: cell.row, col: cell.col };
  inspectListener?.(view, panel, cell.row, cell.col);
  tooltip.replaceChildren(...describeCell(view, panel, cell.row, cell.col).map((line) => element('div', {}, line)));
  tooltip.hidden = false;
  tooltip.style.left = `${wrap.offsetLeft + x + 14}px`;
  tooltip.style.top = `${wrap.offsetTop + y + 14}px`;
}

function showFocus(inspection) {
  const { layout, focus } = inspection;
  showCell(inspection, focus, layout.left + (focus.col + 0.5) * layout.cell, layout.top + (focus.row + 0.5) * layout.cell);
}

function listenForInspection(pooled) {
  const { canvas } = pooled;
  const hideTooltip = () => { pooled.inspection.tooltip.hidden = true; };
  canvas.addEventListener('pointermove', (event) => {
    const inspection = pooled.inspection;
    const cell = cellAt(inspection.layout, inspection.panel, event.offsetX, event.offsetY);
    if (cell) showCell(inspection, cell, event.offsetX, event.offsetY);
    else hideTooltip();
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
    } else if (event.key === 'Enter' && inspection.editable) {
      event.preventDefault();
      openEditor(inspection, inspection.focus);
    }
  });
  canvas.addEventListener('click', (event) => {
    const inspection = pooled.inspection;
    if (!inspection.editable) return;
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
