// Small canvas heatmaps for the exercise views: the difference between a learner's result and the
// expected one (the first differing cell outlined), and the tensors a predict exercise shows. Only the
// last two axes of one slice are drawn; the canvas is an image with a text label.
const CELL = 22;

function sliceOf(shape, index) {
  const cols = shape.length >= 1 ? shape[shape.length - 1] : 1;
  const rows = shape.length >= 2 ? shape[shape.length - 2] : 1;
  const start = Math.floor(index / (rows * cols)) * rows * cols;
  return { rows, cols, start };
}

function draw(values, rows, cols, colour, outline, label) {
  const canvas = document.createElement('canvas');
  const scale = Math.min(1, 360 / (cols * CELL));
  const cell = Math.max(6, Math.floor(CELL * scale));
  canvas.width = cols * cell;
  canvas.height = rows * cell;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', label);
  const context = canvas.getContext('2d');
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      context.fillStyle = colour(values[r * cols + c]);
      context.fillRect(c * cell, r * cell, cell - 1, cell - 1);
    }
  }
  if (outline) {
    context.strokeStyle = '#111';
    context.lineWidth = 2;
    context.strokeRect(outline.col * cell + 1, outline.row * cell + 1, cell - 3, cell - 3);
  }
  return canvas;
}

/** |actual − expected| over the slice holding `index`; white (0) to red (the slice's largest). */
export function differenceHeatmap(actual, expected, index, label) {
  const { rows, cols, start } = sliceOf(expected.shape, index);
  const diff = [];
  for (let i = 0; i < rows * cols; i++) {
    const d = Math.abs(actual.data[start + i] - expected.data[start + i]);
    diff.push(Number.isFinite(d) ? d : Infinity);
  }
  const finite = diff.filter(Number.isFinite);
  const max = Math.max(1e-12, ...finite);
  const colour = (d) => {
    const t = Number.isFinite(d) ? Math.min(1, d / max) : 1;
    const other = Math.round(255 * (1 - t));
    return `rgb(255, ${other}, ${other})`;
  };
  const local = index - start;
  return draw(diff, rows, cols, colour, { row: Math.floor(local / cols), col: local % cols }, label);
}

/** A tensor's first slice: blue (negative) – white – orange (positive), scaled to its largest |value|. */
export function valueHeatmap(tensor, label) {
  const { rows, cols } = sliceOf(tensor.shape, 0);
  const values = Array.from(tensor.data.subarray(0, rows * cols));
  const max = Math.max(1e-12, ...values.filter(Number.isFinite).map(Math.abs));
  const colour = (v) => {
    if (!Number.isFinite(v)) return '#444';
    const t = Math.min(1, Math.abs(v) / max);
    const fade = (full) => Math.round(255 - (255 - full) * t);
    return v >= 0 ? `rgb(${fade(230)}, ${fade(120)}, ${fade(20)})` : `rgb(${fade(40)}, ${fade(100)}, ${fade(200)})`;
  };
  return draw(values, rows, cols, colour, null, label);
}
