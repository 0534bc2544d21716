// One shown tensor: a figure with its name and shape, the heatmap (one panel per head when the tensor
// has a heads axis), a tooltip that explains the cell under the pointer or the keyboard focus, the
// values as a table for screen readers, and the export buttons. Values come from the core unchanged.
import { colorScale, css, prefersDark } from './colormap.js';
import { cellAt, drawPanel, figureSvg, formatCell, formatValue, layoutPanel } from './heatmap-draw.js';
import { download, fileName, tensorCsv, tensorJson } from './export.js';
import { STRINGS, format } from './strings.js';

const EDITABLE_CELLS = 512;
// Tensors up to this many values carry their screen-reader table with them; bigger ones offer it
// behind a disclosure, built when opened: a table of thousands of cells costs more layout than the
// whole repaint budget, on every change.
const EAGER_TABLE_CELLS = 256;

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
    rows, cols, masked,
    values: view.tensor.data.subarray(p * rows * cols, (p + 1) * rows * cols),
    rowLabels: view.rows ?? null,
    colLabels: view.cols ?? null,
  }));
}

function maxAbsFinite(data) {
  let max = 0;
  for (const v of data) if (Number.isFinite(v) && Math.abs(v) > max) max = Math.abs(v);
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

// The screen-reader table of one panel. Built as one escaped HTML string: tens of thousands of cells
// parse far faster than they can be created node by node.
function valuesTable(view, panel, className = 'sr-only') {
  const table = element('table', { class: className, 'data-tensor': view.name, 'data-panel': String(panel.index) });
  const label = (labels, i) => escapeHtml(labels ? labels[i] : String(i));
  const parts = [`<caption>${escapeHtml(`${view.name} ${shapeText(view)}${panel.title ? `, ${panel.title}` : ''}`)}</caption><thead><tr><th scope="col"></th>`];
  for (let c = 0; c < panel.cols; c++) parts.push(`<th scope="col">${label(panel.colLabels, c)}</th>`);
  parts.push('</tr></thead><tbody>');
  for (let r = 0; r < panel.rows; r++) {
    parts.push(`<tr><th scope="row">${label(panel.rowLabels, r)}</th>`);
    for (let c = 0; c < panel.cols; c++) parts.push(`<td>${formatValue(panel.values[r * panel.cols + c])}</td>`);
    parts.push('</tr>');
  }
  parts.push('</tbody>');
  table.innerHTML = parts.join('');
  return table;
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
  if (view.hover?.scores) lines.push(format(STRINGS.hoverScore, { value: formatValue(view.hover.scores.data[index]) }));
  if (view.hover?.scaled) lines.push(format(STRINGS.hoverScaled, { value: formatValue(view.hover.scaled.data[index]) }));
  if (view.kind === 'weights' && view.cols) lines.push(format(STRINGS.hoverWeight, { value: formatValue(view.tensor.data[index]) }));
  if (panel.masked(row, col)) lines.push(STRINGS.hoverMasked);
  return lines;
}

// Canvases live on from one repaint to the next, one per tensor name and panel: a fresh canvas costs
// a new 2-D context and backing store every time, the largest share of a small repaint. Each reuse
// drops the previous repaint's listeners (they hold the previous tensors).
const canvasPool = new Map();

function pooledCanvas(key) {
  let entry = canvasPool.get(key);
  if (!entry) {
    const canvas = document.createElement('canvas');
    entry = { canvas, ctx: canvas.getContext('2d'), listeners: null };
    canvasPool.set(key, entry);
  }
  entry.listeners?.abort();
  entry.listeners = new AbortController();
  return entry;
}

// What a panel's pixels depend on, besides its values: a canvas that already shows the same is not drawn
// again, so a control that leaves a matrix as it was (W_query under a temperature change) costs nothing.
function drawingKey(view, panel, layout, colors) {
  const { scale, ...paletteColors } = colors; // the scale follows from kind and the tensor's largest value
  return JSON.stringify([view.kind, view.causal ?? false, maxAbsFinite(view.tensor.data), panel.title, panel.rows,
    panel.cols, panel.rowLabels, panel.colLabels, layout, paletteColors, window.devicePixelRatio || 1]);
}

function showsAlready(pooled, key, values) {
  const drawn = pooled.drawn;
  if (!drawn || drawn.key !== key || drawn.values.length !== values.length) return false;
  for (let i = 0; i < values.length; i++) if (!Object.is(drawn.values[i], values[i])) return false;
  return true;
}

function drawCanvas({ canvas, ctx }, panel, layout, colors) {
  const ratio = window.devicePixelRatio || 1;
  const width = Math.ceil(layout.width * ratio);
  const height = Math.ceil(layout.height * ratio);
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
    canvas.style.width = `${layout.width}px`;
    canvas.style.height = `${layout.height}px`;
  }
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  drawPanel(ctx, panel, layout, colors); // paints every pixel: no clear needed
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

// The colour key: a small gradient from the map's low end to its high end, with the values it stands for.
function legend(view, colors) {
  const maxAbs = maxAbsFinite(view.tensor.data);
  const low = view.kind === 'weights' ? 0 : -maxAbs;
  const stops = Array.from({ length: 7 }, (_, i) => css(colors.scale(low + ((maxAbs - low) * i) / 6)));
  const key = element('span', { class: 'legend', 'aria-hidden': 'true' });
  const bar = element('span', { class: 'legend-bar' });
  bar.style.background = `linear-gradient(to right, ${stops.join(', ')})`;
  key.append(element('span', {}, formatCell(low)), bar, element('span', {}, formatCell(maxAbs)));
  return key;
}

/**
 * Renders one tensor view.
 * @param {object} view a step's shown tensor (steps.js `show`)
 * @param {{onEdit?: (matrix: string, row: number, col: number, value: number) => void, maxWidth?: number}} options
 *   onEdit: called with the view's `editable` name (the matrix's name in the state's edits)
 * @returns {HTMLElement}
 */
export function renderTensor(view, { onEdit = null, maxWidth = 420 } = {}) {
  const figure = element('figure', { class: `tensor tensor-${view.kind}`, 'data-tensor': view.name });
  const caption = element('figcaption');
  caption.append(element('span', { class: 'tensor-name' }, view.name), ' ', element('span', { class: 'tensor-shape' }, shapeText(view)));
  const panels = panelsOf(view);
  const perPanelWidth = panels.length > 1 ? Math.max(160, Math.floor(maxWidth / Math.min(panels.length, 2))) : maxWidth;
  const layouts = panels.map((panel) => layoutPanel(panel, perPanelWidth));
  const colors = { ...palette(), scale: colorScale(view.kind, maxAbsFinite(view.tensor.data)) };

  caption.append(legend(view, colors));
  const exports = element('span', { class: 'export', role: 'group', 'aria-label': format(STRINGS.exportAs, { name: view.name }) });
  const actions = {
    PNG: () => exportPng(view, panels, layouts, colors),
    SVG: () => download(new Blob([figureSvg(panels, layouts, colors, `${view.name} ${shapeText(view)}`)], { type: 'image/svg+xml' }), fileName(view.name, 'svg')),
    CSV: () => download(new Blob([tensorCsv(view.tensor, view.rows, view.cols)], { type: 'text/csv' }), fileName(view.name, 'csv')),
    JSON: () => download(new Blob([tensorJson(view.name, view.tensor)], { type: 'application/json' }), fileName(view.name, 'json')),
  };
  for (const [label, action] of Object.entries(actions)) {
    const button = element('button', { type: 'button', 'data-export': label.toLowerCase(), 'aria-label': `${format(STRINGS.exportAs, { name: view.name })} ${label}` }, label);
    button.addEventListener('click', action);
    exports.append(button);
  }
  caption.append(exports);
  figure.append(caption);

  const tooltip = element('div', { class: 'tooltip', role: 'status', 'aria-live': 'polite' });
  tooltip.hidden = true;
  // `editable` names the matrix the cells belong to (state.js EDITABLE_MATRICES); teaching sizes only.
  const editable = Boolean(view.editable && onEdit && view.tensor.data.length <= EDITABLE_CELLS);
  const row = element('div', { class: 'panels' });
  panels.forEach((panel, i) => {
    const wrap = element('div', { class: 'panel' });
    const pooled = pooledCanvas(`${view.name}#${i}`);
    const { canvas } = pooled;
    canvas.setAttribute('tabindex', '0');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${view.name} ${shapeText(view)}${panel.title ? `, ${panel.title}` : ''}: heatmap; arrow keys move between cells${editable ? ', Enter edits a cell' : ''}`);
    canvas.classList.toggle('editable', Boolean(editable));
    const key = drawingKey(view, panel, layouts[i], colors);
    if (!showsAlready(pooled, key, panel.values)) {
      drawCanvas(pooled, panel, layouts[i], colors);
      pooled.drawn = { key, values: panel.values.slice() };
    }
    wrap.append(canvas);
    row.append(wrap);
    attachInspection({ view, panel, layout: layouts[i], canvas, wrap, tooltip, editable, onEdit, signal: pooled.listeners.signal });
  });
  figure.append(row, tooltip);
  if (view.causal) figure.append(element('p', { class: 'note' }, STRINGS.maskedNote));
  if (editable) figure.append(element('p', { class: 'note' }, STRINGS.editHint));
  if (view.tensor.data.length <= EAGER_TABLE_CELLS) {
    for (const panel of panels) figure.append(valuesTable(view, panel));
  } else {
    const details = element('details', { class: 'values' });
    details.append(element('summary', {}, format(STRINGS.valuesTable, { count: view.tensor.data.length })));
    details.addEventListener('toggle', () => {
      if (details.open && details.children.length === 1) {
        for (const panel of panels) details.append(valuesTable(view, panel, 'values-table'));
      }
    }, { once: false });
    figure.append(details);
  }
  return figure;
}

// Pointer and keyboard inspection of cells, and editing of the cells of an input matrix (x, W_query…).
function attachInspection({ view, panel, layout, canvas, wrap, tooltip, editable, onEdit, signal }) {
  let focus = { row: 0, col: 0 };
  const showCell = (cell, x, y) => {
    tooltip.replaceChildren(...describeCell(view, panel, cell.row, cell.col).map((line) => element('div', {}, line)));
    tooltip.hidden = false;
    tooltip.style.left = `${wrap.offsetLeft + x + 14}px`;
    tooltip.style.top = `${wrap.offsetTop + y + 14}px`;
  };
  const cellCenter = (cell) => [layout.left + (cell.col + 0.5) * layout.cell, layout.top + (cell.row + 0.5) * layout.cell];
  canvas.addEventListener('pointermove', (event) => {
    const cell = cellAt(layout, panel, event.offsetX, event.offsetY);
    if (cell) showCell(cell, event.offsetX, event.offsetY);
    else tooltip.hidden = true;
  }, { signal });
  canvas.addEventListener('pointerleave', () => { tooltip.hidden = true; }, { signal });
  canvas.addEventListener('blur', () => { tooltip.hidden = true; }, { signal });
  canvas.addEventListener('focus', () => showCell(focus, ...cellCenter(focus)), { signal });
  canvas.addEventListener('keydown', (event) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[event.key]) {
      event.preventDefault();
      event.stopPropagation(); // the stepper's ←/→ must not turn the page while a heatmap is inspected
      const [dr, dc] = moves[event.key];
      focus = {
        row: Math.min(panel.rows - 1, Math.max(0, focus.row + dr)),
        col: Math.min(panel.cols - 1, Math.max(0, focus.col + dc)),
      };
      showCell(focus, ...cellCenter(focus));
    } else if (event.key === 'Enter' && editable) {
      event.preventDefault();
      openEditor(focus);
    }
  }, { signal });
  if (!editable) return;
  canvas.addEventListener('click', (event) => {
    const cell = cellAt(layout, panel, event.offsetX, event.offsetY);
    if (cell) openEditor(cell);
  }, { signal });
  function openEditor(cell) {
    const input = element('input', {
      type: 'number', step: 'any', class: 'cell-editor',
      'aria-label': format(STRINGS.editCell, { name: view.name, row: cell.row, col: cell.col }),
      value: String(panel.values[cell.row * panel.cols + cell.col]),
    });
    input.style.left = `${canvas.offsetLeft + layout.left + cell.col * layout.cell}px`;
    input.style.top = `${canvas.offsetTop + layout.top + cell.row * layout.cell}px`;
    input.style.width = `${Math.max(layout.cell, 72)}px`;
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
}
