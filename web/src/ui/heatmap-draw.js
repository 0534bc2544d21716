// Draws one 2-D slice of a tensor as a heatmap: to a canvas on the page and to SVG for export, from
// the same layout, so the exported picture is the one on screen. Masked cells (the future under a
// causal mask) are hatched: a masked weight of exactly 0 gets a neutral background, a masked cell that
// still holds weight (masking with 0, the classic mistake) keeps its colour under the hatching.
import { css, textColorOn } from './colormap.js';

const FONT = '12px system-ui, -apple-system, "Segoe UI", sans-serif';
const CELL_FONT = '10px ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace';
const SMALL_CELL_FONT = '9px ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace';
const cellFont = (cell) => (cell >= 30 ? CELL_FONT : SMALL_CELL_FONT);
const LABEL_CHARS = 12;

/** A value as the heatmap writes it (short) and as tables and tooltips write it (4 decimals). */
export function formatCell(value, digits = 2) {
  if (value === -Infinity) return '−∞';
  if (value === Infinity) return '∞';
  if (Number.isNaN(value)) return 'NaN';
  const text = Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(Math.abs(value) >= 10 ? 1 : digits);
  return text.replace('-', '−');
}

export function formatValue(value) {
  return Number.isFinite(value) ? value.toFixed(4).replace('-', '−') : formatCell(value);
}

function shortLabel(text) {
  return text.length > LABEL_CHARS ? `${text.slice(0, LABEL_CHARS - 1)}…` : text;
}

/**
 * Where everything goes for a panel of `rows` × `cols` cells, in at most `maxWidth` CSS pixels: cells
 * as big as the width allows (up to `maxCell`, 40 px), numbers written on them from 30 px, and room on the right
 * for the last column's label when labels are written diagonally.
 * @param {{rows: number, cols: number, rowLabels?: string[], colLabels?: string[], title?: string}} panel
 */
export function layoutPanel(panel, maxWidth = 420, maxCell = 40) {
  // A thumbnail (an earlier step's node in the diagram): cells and a hairline frame, no labels or title.
  if (panel.bare) {
    const cell = Math.max(2, Math.min(maxCell, Math.floor((maxWidth - 2) / panel.cols)));
    return { cell, left: 1, top: 1, titleHeight: 0, diagonal: false, width: panel.cols * cell + 2, height: panel.rows * cell + 2, showNumbers: false, showIndices: false, bare: true };
  }
  const rowLabelChars = panel.rowLabels ? Math.max(...panel.rowLabels.map((l) => shortLabel(l).length)) : String(panel.rows - 1).length;
  // `noRowLabels`: a node beside one with the same rows (Q, K, V) leaves them to it.
  const left = panel.noRowLabels ? 3 : Math.ceil(Math.min(100, 14 + rowLabelChars * 7.5)); // whole pixels: a canvas of a fractional width is resampled
  const colLabelChars = panel.colLabels ? Math.max(...panel.colLabels.map((l) => shortLabel(l).length)) : 0;
  // `compact` (the diagram's nodes): column labels written across, cut to the cell's width.
  if (panel.compact && panel.colLabels) {
    const cell = Math.max(6, Math.min(maxCell, Math.floor((maxWidth - left - 4) / panel.cols)));
    const top = (panel.title ? 18 : 0) + 16;
    return {
      cell, left, top, titleHeight: panel.title ? 18 : 0, diagonal: false, colChars: Math.max(1, Math.floor((cell - 2) / 6.2)),
      width: left + panel.cols * cell + 4, height: top + panel.rows * cell + 4,
      showNumbers: cell >= 22, showIndices: cell >= 14, noRowLabels: Boolean(panel.noRowLabels),
    };
  }
  const titleHeight = panel.title ? 18 : 0;
  // A diagonal label reaches about 5 px right per character past its column's centre.
  const diagonalRight = Math.ceil(colLabelChars * 5);
  let cell = Math.max(6, Math.min(maxCell, Math.floor((maxWidth - left - 4) / panel.cols)));
  let diagonal = Boolean(panel.colLabels) && colLabelChars * 7 > cell;
  if (diagonal) {
    cell = Math.max(6, Math.min(maxCell, Math.floor((maxWidth - left - Math.max(4, diagonalRight - 10)) / panel.cols)));
    diagonal = colLabelChars * 7 > cell;
  }
  const rightOf = (size) => (diagonal ? Math.max(4, diagonalRight - Math.floor(size / 2)) : 4);
  while (cell > 6 && left + panel.cols * cell + rightOf(cell) > maxWidth) cell--;
  const right = rightOf(cell);
  const labelHeight = panel.colLabels ? (diagonal ? Math.min(70, 12 + colLabelChars * 5) : 18) : 16;
  const top = titleHeight + labelHeight;
  return {
    cell, left, top, titleHeight, diagonal,
    width: left + panel.cols * cell + right,
    height: top + panel.rows * cell + 4,
    showNumbers: cell >= 22, // a smaller font under 30 px (cellFont)
    showIndices: cell >= 14,
    noRowLabels: Boolean(panel.noRowLabels),
  };
}

/** The cell under a point (CSS pixels relative to the panel), or null. */
export function cellAt(layout, panel, x, y) {
  const col = Math.floor((x - layout.left) / layout.cell);
  const row = Math.floor((y - layout.top) / layout.cell);
  if (row < 0 || col < 0 || row >= panel.rows || col >= panel.cols) return null;
  return { row, col };
}

// What one cell looks like: its colour and whether it is hatched.
function cellStyle(panel, row, col, colors) {
  const value = panel.values[row * panel.cols + col];
  const masked = panel.masked(row, col);
  if (!Number.isFinite(value) || (masked && value === 0)) return { rgb: colors.maskedRgb, hatched: true, neutral: true };
  return { rgb: colors.scale(value, row, panel), hatched: masked, neutral: false };
}

// The text written on a cell, and its colour.
// Cells under 36 px drop the leading zero (0.14 → .14) so that a signed value still fits.
function cellText(panel, index, style, colors, compact = false) {
  const value = panel.values[index];
  if (panel.integer) return { text: String(value), color: textColorOn(style.rgb) }; // token ids
  let text = style.neutral && value === 0 ? '0' : formatCell(value);
  if (compact) text = text.replace(/^(−?)0\./, '$1.');
  // Under 26 px a value of 1 or more keeps one decimal, so that 1.35 and 1.32 side by side do not run together.
  if (compact === 'tight' && Number.isFinite(value) && Math.abs(value) >= 1 && Math.abs(value) < 10) text = formatCell(value, 1);
  return { text, color: style.neutral ? colors.label : textColorOn(style.rgb) };
}

function labelFor(labels, index, chars = null) {
  if (!labels) return String(index);
  return chars ? labels[index].slice(0, chars) : shortLabel(labels[index]);
}

// A column label cut to `chars` letters, and shorter while it is wider than its cell less a gap: three wide
// letters ("com", 26 px in a 24 px cell) otherwise ran into the next column's label.
function fittedLabel(ctx, labels, index, chars, cell) {
  let text = labelFor(labels, index, chars);
  while (text.length > 1 && ctx.measureText(text).width > cell - 1.5) text = text.slice(0, -1);
  return text;
}

// Every how-many-th label is written: all of them down to 13 px cells, then every other one, and so on,
// so that labels never overlap (the hover and the tables still name every cell).
function labelStride(cell) {
  return Math.max(1, Math.ceil(13 / cell));
}

function drawLabels(ctx, panel, layout, colors) {
  const { cell, left, top } = layout;
  ctx.font = FONT;
  ctx.fillStyle = colors.label;
  if (panel.title) {
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(panel.title, left, 2);
  }
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  if (!layout.noRowLabels && (panel.rowLabels || layout.showIndices)) {
    for (let r = 0; r < panel.rows; r += labelStride(cell)) ctx.fillText(labelFor(panel.rowLabels, r), left - 4, top + r * cell + cell / 2);
  }
  if (panel.colLabels || layout.showIndices) {
    for (let c = 0; c < panel.cols; c += labelStride(cell)) {
      const x = left + c * cell + cell / 2;
      ctx.save();
      ctx.translate(x, top - 4);
      if (layout.diagonal) {
        ctx.rotate(-Math.PI / 4);
        ctx.textAlign = 'left';
      } else {
        ctx.textAlign = 'center';
        ctx.textBaseline = 'bottom';
      }
      ctx.fillText(layout.colChars && panel.colLabels ? fittedLabel(ctx, panel.colLabels, c, layout.colChars, cell) : labelFor(panel.colLabels, c, layout.colChars), 0, 0);
      ctx.restore();
    }
  }
}

// One small scratch canvas for every panel's one-pixel-per-cell image, grown when a panel needs more.
let scratch = null;
function scratchCanvas(cols, rows) {
  if (!scratch || scratch.canvas.width < cols || scratch.canvas.height < rows) {
    const width = Math.max(cols, scratch?.canvas.width ?? 0);
    const height = Math.max(rows, scratch?.canvas.height ?? 0);
    const canvas = typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(width, height) : Object.assign(document.createElement('canvas'), { width, height });
    scratch = { canvas, ctx: canvas.getContext('2d') };
  }
  return scratch;
}

/**
 * Paints a panel onto a 2-D context whose origin is the panel's top-left corner (CSS pixels).
 * The cells are one pixel each in an ImageData scaled up without smoothing, and the hatching is one
 * path clipped to the masked cells: a 32 × 64 panel costs about as much as a 6 × 6 one.
 * `cellsOnly`: the cells' rectangle alone (every pixel of it), over a drawing of the same layout and labels.
 */
export function drawPanel(ctx, panel, layout, colors, { cellsOnly = false } = {}) {
  const { cell, left, top } = layout;
  if (!cellsOnly) {
    ctx.fillStyle = colors.background;
    ctx.fillRect(0, 0, layout.width, layout.height);
    if (!layout.bare) drawLabels(ctx, panel, layout, colors);
  }

  const styles = [];
  const pixels = new ImageData(panel.cols, panel.rows);
  for (let r = 0; r < panel.rows; r++) {
    for (let c = 0; c < panel.cols; c++) {
      const style = cellStyle(panel, r, c, colors);
      styles.push(style);
      const p = (r * panel.cols + c) * 4;
      pixels.data[p] = style.rgb[0];
      pixels.data[p + 1] = style.rgb[1];
      pixels.data[p + 2] = style.rgb[2];
      pixels.data[p + 3] = 255;
    }
  }
  const cells = scratchCanvas(panel.cols, panel.rows);
  cells.ctx.putImageData(pixels, 0, 0);
  ctx.save();
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(cells.canvas, 0, 0, panel.cols, panel.rows, left, top, panel.cols * cell, panel.rows * cell);
  ctx.restore();

  const hatched = styles.some((style) => style.hatched);
  if (hatched) {
    ctx.save();
    ctx.beginPath();
    // One rectangle per run of hatched cells in a row (under a causal mask, one per row): a rectangle per cell
    // was 496 of them per head at T=32.
    for (let r = 0; r < panel.rows; r++) {
      for (let c = 0; c < panel.cols;) {
        if (!styles[r * panel.cols + c].hatched) {
          c++;
          continue;
        }
        const start = c;
        while (c < panel.cols && styles[r * panel.cols + c].hatched) c++;
        ctx.rect(left + start * cell, top + r * cell, (c - start) * cell, cell);
      }
    }
    ctx.clip();
    ctx.strokeStyle = colors.hatch;
    ctx.lineWidth = 1;
    ctx.beginPath();
    const width = panel.cols * cell;
    const height = panel.rows * cell;
    for (let d = -height; d < width; d += 6) {
      ctx.moveTo(left + d, top + height);
      ctx.lineTo(left + d + height, top);
    }
    ctx.stroke();
    ctx.restore();
  }
  if (layout.showNumbers) {
    ctx.font = cellFont(cell);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    styles.forEach((style, i) => {
      const { text, color } = cellText(panel, i, style, colors, layout.cell < 26 ? 'tight' : layout.cell < 36);
      ctx.fillStyle = color;
      ctx.fillText(text, left + (i % panel.cols) * cell + cell / 2, top + Math.floor(i / panel.cols) * cell + cell / 2);
    });
  }
  ctx.strokeStyle = colors.grid;
  ctx.strokeRect(left + 0.5, top + 0.5, panel.cols * cell - 1, panel.rows * cell - 1);
}

function escapeXml(text) {
  return String(text).replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The same panel as SVG elements, translated to (x0, y0). */
export function panelSvg(panel, layout, colors, x0, y0) {
  const { cell, left, top } = layout;
  const parts = [`<g transform="translate(${x0} ${y0})" font-family="system-ui, sans-serif" font-size="12">`];
  if (panel.title && !layout.bare) parts.push(`<text x="${left}" y="13" fill="${colors.label}">${escapeXml(panel.title)}</text>`);
  for (let r = 0; r < panel.rows; r += labelStride(cell)) {
    if (layout.bare || layout.noRowLabels || (!panel.rowLabels && !layout.showIndices)) break;
    parts.push(`<text x="${left - 4}" y="${top + r * cell + cell / 2 + 4}" text-anchor="end" fill="${colors.label}">${escapeXml(labelFor(panel.rowLabels, r))}</text>`);
  }
  for (let c = 0; c < panel.cols; c += labelStride(cell)) {
    if (layout.bare || (!panel.colLabels && !layout.showIndices)) break;
    const x = left + c * cell + cell / 2;
    const label = escapeXml(labelFor(panel.colLabels, c, layout.colChars));
    parts.push(layout.diagonal
      ? `<text transform="translate(${x} ${top - 4}) rotate(-45)" fill="${colors.label}">${label}</text>`
      : `<text x="${x}" y="${top - 5}" text-anchor="middle" fill="${colors.label}">${label}</text>`);
  }
  for (let r = 0; r < panel.rows; r++) {
    for (let c = 0; c < panel.cols; c++) {
      const style = cellStyle(panel, r, c, colors);
      const x = left + c * cell;
      const y = top + r * cell;
      parts.push(`<rect x="${x}" y="${y}" width="${cell}" height="${cell}" fill="${css(style.rgb)}"${style.hatched ? ' class="masked"' : ''}/>`);
      if (style.hatched) parts.push(`<rect x="${x}" y="${y}" width="${cell}" height="${cell}" fill="url(#hatch)"/>`);
      if (layout.showNumbers) {
        const { text, color } = cellText(panel, r * panel.cols + c, style, colors, layout.cell < 26 ? 'tight' : layout.cell < 36);
        parts.push(`<text x="${x + cell / 2}" y="${y + cell / 2 + 4}" text-anchor="middle" font-family="monospace" font-size="${cell >= 30 ? 10 : 9}" fill="${color}">${escapeXml(text)}</text>`);
      }
    }
  }
  parts.push('</g>');
  return parts.join('');
}

/** A complete SVG document of panels laid out side by side. */
export function figureSvg(panels, layouts, colors, title) {
  const gap = 16;
  const width = layouts.reduce((sum, l) => sum + l.width + gap, 0) - gap;
  const height = Math.max(...layouts.map((l) => l.height)) + 24;
  let x = 0;
  const bodies = panels.map((panel, i) => {
    const svg = panelSvg(panel, layouts[i], colors, x, 24);
    x += layouts[i].width + gap;
    return svg;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="${colors.hatch}" stroke-width="1"/></pattern></defs>`,
    `<rect width="100%" height="100%" fill="${colors.background}"/>`,
    `<text x="0" y="15" font-family="system-ui, sans-serif" font-size="14" font-weight="600" fill="${colors.label}">${escapeXml(title)}</text>`,
    ...bodies,
    '</svg>',
  ].join('');
}
