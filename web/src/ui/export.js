// One-click exports of a shown tensor: CSV and JSON of its values, PNG and SVG of its heatmap.
// The JSON uses the fixtures' format ({shape, data}, with "-Infinity" for numbers JSON cannot hold),
// so an exported tensor can go straight into a test.

function jsonNumber(value) {
  if (Number.isFinite(value)) return value;
  return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
}

/** {name, shape, data} as JSON text. */
export function tensorJson(name, tensor) {
  return JSON.stringify({ name, shape: tensor.shape, data: Array.from(tensor.data, jsonNumber) });
}

function csvNumber(value) {
  return Number.isFinite(value) ? String(value) : jsonNumber(value);
}

/**
 * CSV: one line per row of the last two axes; a tensor of rank 3 or more is written as blocks, each
 * headed by a comment line with its leading indices ("# [1]"). Row and column labels, when given,
 * become the first column and a header line.
 */
export function tensorCsv(tensor, rowLabels = null, colLabels = null) {
  const shape = tensor.shape.length === 1 ? [1, tensor.shape[0]] : tensor.shape;
  const cols = shape[shape.length - 1];
  const rows = shape[shape.length - 2];
  const blocks = tensor.data.length / (rows * cols);
  const quoteCell = (text) => `"${String(text).replace(/"/g, '""')}"`;
  const lines = [];
  for (let b = 0; b < blocks; b++) {
    if (blocks > 1) lines.push(`# [${unravel(b, shape.slice(0, -2)).join(', ')}]`);
    if (colLabels) lines.push([rowLabels ? '' : null, ...colLabels.map(quoteCell)].filter((c) => c !== null).join(','));
    for (let r = 0; r < rows; r++) {
      const start = (b * rows + r) * cols;
      const values = Array.from(tensor.data.subarray(start, start + cols), csvNumber);
      lines.push((rowLabels ? [quoteCell(rowLabels[r]), ...values] : values).join(','));
    }
  }
  return `${lines.join('\n')}\n`;
}

function unravel(index, shape) {
  const indices = [];
  for (let i = shape.length - 1; i >= 0; i--) {
    indices.unshift(index % shape[i]);
    index = Math.floor(index / shape[i]);
  }
  return indices;
}

/** A file name made only of safe characters. */
export function fileName(name, extension) {
  const base = name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'tensor';
  return `${base}.${extension}`;
}

/** Saves a Blob through a temporary link (works from file:// and in iframes without permissions). */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
