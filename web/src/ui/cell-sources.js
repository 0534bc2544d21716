// Where a pointed cell came from: the cells of the step's other heatmaps it was computed from (for a weight:
// its query row, its key row and the score row it normalises; for a context value: the weights row and the
// value column), and the box beside the cell that shows its computation, placed inside the viewport, near the
// cell, never over the cell's row or column of its heatmap.
import { roleOf } from './flow.js';

// The step's shown tensors, by role (the first one of each), set by each repaint (tensor-view.js).
let shownByRole = new Map();
/** Records the step's shown tensors (their roles name the sources). */
export function setShownViews(views) {
  shownByRole = new Map();
  for (const view of views) if (!shownByRole.has(roleOf(view.name))) shownByRole.set(roleOf(view.name), view);
}
/** The shown tensor of a role, or null. */
export function shownView(role) {
  return shownByRole.get(role) ?? null;
}

const first = (...roles) => roles.map((role) => shownByRole.get(role)).find(Boolean) ?? null;
// A source's panel: the pointed head's, when the source has one panel per head; its only one otherwise.
function panelOf(source, panelIndex) {
  const shape = source.tensor.shape;
  const blocks = shape.length >= 3 ? shape[shape.length - 3] : 1;
  return blocks > 1 && panelIndex < blocks ? panelIndex : 0;
}

/**
 * The cells a pointed cell was computed from, on the step's other heatmaps.
 * @returns {{name: string, panel: number, row?: number, col?: number, cell?: [number, number]}[]}
 */
export function cellSources(view, panelIndex, row, col) {
  const role = roleOf(view.name);
  const marks = [];
  const add = (source, mark) => { if (source && source !== view) marks.push({ name: source.name, panel: panelOf(source, panelIndex), ...mark }); };
  const queryLike = () => first('query', 'x_query', 'x');
  const keyLike = () => first('key', 'x_context', 'x');
  if ((role === 'weights' || role === 'weights before the mask') && !queryLike()) {
    // Neither Q, K nor x on the step: the projections made them; with heads, the head's slice of each.
    const heads = view.tensor.shape.length >= 3 ? view.tensor.shape.at(-3) : 1;
    for (const source of [first('W_query'), first('W_key')]) {
      if (!source) continue;
      const outAxis = source.axes?.at(-2) === 'd_out' ? 0 : 1; // nn.Linear's (d_out, d_in), or (d_in, d_out)
      const dOut = source.tensor.shape.at(outAxis - 2);
      const slice = [panelIndex * (dOut / heads), (panelIndex + 1) * (dOut / heads)];
      marks.push({ name: source.name, panel: 0, ...(outAxis === 0 ? { rows: slice } : { cols: slice }) });
    }
    const before = first('masked', 'scaled', 'scores');
    add(before, { row, cell: [row, col] });
  } else if (role === 'weights' || role === 'weights before the mask') {
    add(queryLike(), { row });
    const key = keyLike();
    if (key) add(key, { row: col, ...(key === queryLike() ? { alsoRow: row } : {}) });
    const before = first('masked', 'scaled', 'scores');
    add(before, { row, cell: [row, col] });
  } else if (role === 'scores') {
    add(queryLike(), { row });
    add(keyLike(), { row: col });
  } else if (role === 'scaled') {
    add(first('scores'), { cell: [row, col] });
  } else if (role === 'masked') {
    add(first('scaled', 'scores'), { cell: [row, col] });
  } else if (role === 'dropped') {
    add(first('weights'), { cell: [row, col] });
  } else if (role === 'context' || role === 'output') {
    const weights = first('dropped', 'weights');
    add(weights, { row });
    add(first('value', 'x_context', 'x'), { col });
  } else if (['query', 'key', 'value'].includes(role)) {
    add(first(role === 'query' ? 'x_query' : 'x_context', 'x'), { row });
    add(first(`W_${role}`), { col });
  }
  // Two marks on one tensor (x as query and as key on step 5) merge into one entry each.
  return marks.map(({ alsoRow, ...mark }) => (alsoRow !== undefined && alsoRow !== mark.row ? [mark, { ...mark, row: alsoRow }] : [mark])).flat();
}

const MARGIN = 8;
const REACH = 400;

function gap(a, b) {
  const dx = Math.max(0, a.left - b.right, b.left - a.right);
  const dy = Math.max(0, a.top - b.bottom, b.top - a.bottom);
  return Math.hypot(dx, dy);
}
function overlaps(a, b) {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}
const clamp = (value, low, high) => Math.max(low, Math.min(value, high));

/**
 * Where the computation's box goes, in viewport pixels: beside the heatmap (right, below, left, above), or
 * diagonally off the cell, the first place that is inside the viewport, within 400 px of the cell and clear of
 * the cell's row and column; else the place that is most nearly so.
 * @param {{width: number, height: number}} box its size
 * @param {DOMRect|object} cell the cell's rectangle; @param {object} grid the heatmap's cells' rectangle
 * @param {object[]} avoid rectangles better left uncovered (the outlined sources)
 * @returns {{left: number, top: number}}
 */
export function placeBeside(box, cell, grid, viewport = { width: document.documentElement.clientWidth, height: innerHeight }, avoid = []) {
  const { width: w, height: h } = box;
  const maxLeft = viewport.width - MARGIN - w;
  const maxTop = viewport.height - MARGIN - h;
  const nearTop = clamp(cell.top - 12, MARGIN, maxTop);
  const nearLeft = clamp(cell.left - 12, MARGIN, maxLeft);
  const candidates = [
    { left: grid.right + MARGIN, top: nearTop },
    { left: nearLeft, top: grid.bottom + MARGIN },
    { left: grid.left - MARGIN - w, top: nearTop },
    { left: nearLeft, top: grid.top - MARGIN - h },
    { left: cell.right + MARGIN, top: cell.bottom + MARGIN },
    { left: cell.left - MARGIN - w, top: cell.bottom + MARGIN },
    { left: cell.right + MARGIN, top: cell.top - MARGIN - h },
    { left: cell.left - MARGIN - w, top: cell.top - MARGIN - h },
  ];
  const rowBand = { left: grid.left, right: grid.right, top: cell.top, bottom: cell.bottom };
  const columnBand = { left: cell.left, right: cell.right, top: grid.top, bottom: grid.bottom };
  let best = null;
  for (const place of candidates) {
    const rect = { ...place, right: place.left + w, bottom: place.top + h };
    const outside = Math.max(0, MARGIN - rect.left) + Math.max(0, rect.right - (viewport.width - MARGIN))
      + Math.max(0, MARGIN - rect.top) + Math.max(0, rect.bottom - (viewport.height - MARGIN));
    const cost = outside * 4 + Math.max(0, gap(rect, cell) - REACH) + (overlaps(rect, rowBand) || overlaps(rect, columnBand) ? 1000 : 0)
      + 300 * avoid.filter((other) => overlaps(rect, other)).length;
    if (cost === 0) return place;
    if (!best || cost < best.cost) best = { ...place, cost };
  }
  return { left: clamp(best.left, MARGIN, Math.max(MARGIN, maxLeft)), top: clamp(best.top, MARGIN, Math.max(MARGIN, maxTop)) };
}
