// Heatmaps of the Training tab, drawn by the page's own heatmap code (heatmap-draw.js) onto canvases.
import { colorScale, heatmapPalette } from '../colormap.js';
import { drawPanel, layoutPanel } from '../heatmap-draw.js';

/**
 * Draws a rows × cols slice onto `canvas` (resized to fit maxWidth CSS pixels).
 * @param {{values: ArrayLike<number>, rows: number, cols: number, kind: 'weights'|'signed', causal?: boolean,
 *   title?: string, rowLabels?: string[], colLabels?: string[], maxWidth?: number}} panel
 */
export function drawHeatmap(canvas, { values, rows, cols, kind, causal = false, title = '', rowLabels = null, colLabels = null, maxWidth = 260 }) {
  let maxAbs = 0;
  for (let i = 0; i < rows * cols; i++) if (Number.isFinite(values[i])) maxAbs = Math.max(maxAbs, Math.abs(values[i]));
  const panel = { rows, cols, values, title, rowLabels, colLabels, masked: causal ? (r, c) => c > r : () => false };
  const layout = layoutPanel(panel, maxWidth);
  const ratio = globalThis.devicePixelRatio || 1;
  const width = Math.ceil(layout.width * ratio);
  const height = Math.ceil(layout.height * ratio);
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
    canvas.style.width = `${layout.width}px`;
    canvas.style.height = `${layout.height}px`;
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  drawPanel(ctx, panel, layout, { ...heatmapPalette(), scale: colorScale(kind, kind === 'weights' ? Math.max(maxAbs, 1e-9) : maxAbs) });
}

/** Normalised mean row entropy of causal weights (H, T, T), rows 1..T−1: 1 = uniform over the past, 0 = one key. */
export function rowEntropy(weights, heads, T) {
  let sum = 0;
  let count = 0;
  for (let h = 0; h < heads; h++) {
    for (let t = 1; t < T; t++) {
      let e = 0;
      for (let k = 0; k <= t; k++) {
        const p = weights[(h * T + t) * T + k];
        if (p > 0) e -= p * Math.log(p);
      }
      sum += e / Math.log(t + 1);
      count++;
    }
  }
  return count ? sum / count : 0;
}

/** The strongest key of every query row, as text for a heatmap's accessible name. */
export function peaks(weights, head, T, labels) {
  const out = [];
  for (let t = 0; t < T; t++) {
    let best = 0;
    for (let k = 1; k <= t; k++) if (weights[(head * T + t) * T + k] > weights[(head * T + t) * T + best]) best = k;
    out.push(`${labels ? labels[t] : t}→${labels ? labels[best] : best}`);
  }
  return out.join(', ');
}
