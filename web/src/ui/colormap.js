// Colour maps that colour-blind readers can read: viridis for weights (sequential, 0..1) and a
// blue–orange diverging map for signed values (symmetric about 0). The diverging map's middle follows
// the colour scheme, so a zero blends with the page's background in light and in dark mode.

// viridis, sampled at 9 evenly spaced stops (matplotlib's values).
const VIRIDIS = [
  [68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
  [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37],
];

const BLUE = [33, 102, 172];
const ORANGE = [217, 95, 2];

function mix(a, b, t) {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

function sample(stops, t) {
  const x = Math.min(Math.max(t, 0), 1) * (stops.length - 1);
  const i = Math.min(Math.floor(x), stops.length - 2);
  return mix(stops[i], stops[i + 1], x - i);
}

/** True when the reader asked for a dark colour scheme. */
// One query list, read live: a new matchMedia per tensor per repaint showed in the repaint's profile.
let darkQuery;
export function prefersDark() {
  darkQuery ??= typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
  return Boolean(darkQuery?.matches);
}

/** The heatmaps' colours around the cells, for the page's colour scheme: background, labels, grid lines, masked cells. */
export function heatmapPalette() {
  return prefersDark()
    ? { background: '#17181c', label: '#d8dae0', grid: '#555a66', hatch: '#8a8f9c', maskedRgb: [43, 45, 51] }
    : { background: '#ffffff', label: '#222428', grid: '#b8bcc6', hatch: '#8a8f9c', maskedRgb: [236, 238, 242] };
}

/** The weights' colour scales a reader can pick: linear in the value, stretched per row, or logarithmic. */
export const SCALE_MODES = ['linear', 'row', 'log'];

// Decades shown by the log scale: from max / 10^LOG_DECADES (and below, all the darkest colour) to max.
export const LOG_DECADES = 3;

// The largest finite value of each row of a panel, found once per panel and kept with its values.
const rowMaxima = new WeakMap();
function rowMax(panel, row) {
  let maxima = rowMaxima.get(panel.values);
  if (!maxima) {
    maxima = new Float64Array(panel.rows);
    for (let r = 0; r < panel.rows; r++) {
      let max = 0;
      for (let c = 0; c < panel.cols; c++) {
        const v = panel.values[r * panel.cols + c];
        if (Number.isFinite(v) && v > max) max = v;
      }
      maxima[r] = max;
    }
    rowMaxima.set(panel.values, maxima);
  }
  return maxima[row];
}

/**
 * A colour function for one tensor: (finite value, row, panel) → [r, g, b].
 * @param {'weights'|'signed'|'ids'} kind
 * @param {number} maxAbs the largest finite |value| in the tensor: the top of the weights' map (so
 *   uniform weights of 1/T still show their differences) and the ends of the signed map
 * @param {boolean} dark
 * @param {'linear'|'row'|'log'} mode for weights: 'row' stretches each row to its own largest value,
 *   'log' spreads the decades below the largest value evenly (0.03 and 0.003 look different)
 */
export function colorScale(kind, maxAbs, dark = prefersDark(), mode = 'linear') {
  // Token ids (step 1): 0 … the largest id on the sequential map; they are labels, never negative.
  if (kind === 'ids') return (value) => sample(VIRIDIS, maxAbs > 0 ? value / maxAbs : 0);
  if (kind === 'weights') {
    if (mode === 'row') {
      return (value, row, panel) => {
        const top = panel ? rowMax(panel, row) : maxAbs;
        return sample(VIRIDIS, top > 0 ? value / top : 0);
      };
    }
    if (mode === 'log') {
      return (value) => sample(VIRIDIS, value > 0 && maxAbs > 0 ? 1 + Math.log10(value / maxAbs) / LOG_DECADES : 0);
    }
    return (value) => sample(VIRIDIS, maxAbs > 0 ? value / maxAbs : 0);
  }
  const middle = dark ? [40, 42, 48] : [247, 247, 247];
  const range = maxAbs > 0 ? maxAbs : 1;
  return (value) => {
    const t = Math.min(Math.abs(value) / range, 1);
    return mix(middle, value < 0 ? BLUE : ORANGE, t);
  };
}

/** CSS text for a colour. */
export function css([r, g, b]) {
  return `rgb(${Math.round(r)}, ${Math.round(g)}, ${Math.round(b)})`;
}

/** Black or white, whichever reads better on the colour (relative luminance). */
export function textColorOn([r, g, b]) {
  const luminance = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  return luminance > 0.5 ? '#111' : '#fff';
}
