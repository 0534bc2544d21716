// Saving figures: one tensor's heatmaps as PNG or SVG, its values as CSV or JSON, and the whole step as one
// SVG or PNG for slides.
import { heatmapPalette } from './colormap.js';
import { drawPanel, figureSvg, panelSvg } from './heatmap-draw.js';
import { download, fileName, tensorCsv, tensorJson } from './export.js';
import { shapeText } from './tensor-labels.js';
import { escapeHtml } from './values-tables.js';

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

/** A tensor figure's export menu: what each button saves of the figure's current tensor. */
export const EXPORT_ACTIONS = {
  PNG: ({ view, panels, layouts, colors }) => exportPng(view, panels, layouts, colors),
  SVG: ({ view, panels, layouts, colors }) => download(new Blob([figureSvg(panels, layouts, colors, `${view.name} ${shapeText(view)}`)], { type: 'image/svg+xml' }), fileName(view.name, 'svg')),
  CSV: ({ view }) => download(new Blob([tensorCsv(view.tensor, view.rows, view.cols)], { type: 'text/csv' }), fileName(view.name, 'csv')),
  JSON: ({ view }) => download(new Blob([tensorJson(view.name, view.tensor)], { type: 'application/json' }), fileName(view.name, 'json')),
};

// The tensors of the last repaint, for the whole-step figure.
let lastPainted = [];
/** Keeps a repaint's tensors ({view, panels, layouts, colors} each) for the whole-step figure. */
export function rememberPainted(painted) {
  lastPainted = painted;
}

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
  const colors = lastPainted[0]?.colors ?? { ...heatmapPalette() };
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
