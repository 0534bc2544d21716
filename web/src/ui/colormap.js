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
export function prefersDark() {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
}

/**
 * A colour function for one tensor: finite value → [r, g, b].
 * @param {'weights'|'signed'} kind
 * @param {number} maxAbs the largest finite |value| in the tensor: the top of the weights' map (so
 *   uniform weights of 1/T still show their differences) and the ends of the signed map
 */
export function colorScale(kind, maxAbs, dark = prefersDark()) {
  if (kind === 'weights') return (value) => sample(VIRIDIS, maxAbs > 0 ? value / maxAbs : 0);
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
