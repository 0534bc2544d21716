// The heatmaps' canvases: one per tensor name and panel, kept from one repaint to the next, sized without a new
// bitmap where that can be helped, drawn at once when on screen and after the frame when not, and not drawn at
// all when they show the same already.
import { drawPanel } from './heatmap-draw.js';

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

/** Draws the canvases a repaint left for after its frame (the off-screen ones). */
/** The pooled canvas of a tensor's panel (`name#panel`), or null. */
export function pooledCanvasOf(name, panel) {
  return canvasPool.get(`${name}#${panel}`) ?? null;
}

export function drawDeferredCanvases() {
  for (const pooled of [...deferred]) drawPending(pooled);
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

/**
 * Paints one panel on its pooled canvas (`key`: tensor name and panel index), at once or after the frame (see
 * above), unless the canvas shows the same already: `pixelsKey` is what its pixels depend on besides the values,
 * `frameKey` what the labels and background around the cells depend on (tensor-view.js drawingKeys).
 * @returns the pooled canvas: {canvas, inspection, …}
 */
export function paintCanvas(key, panel, layout, colors, pixelsKey, frameKey) {
  const pooled = pooledCanvas(key);
  if (showsAlready(pooled, pixelsKey, panel.values)) {
    pooled.pending = null; // a change undone before its drawing came
    deferred.delete(pooled);
    return pooled;
  }
  pooled.pending = { panel, layout, colors, key: pixelsKey, frameKey };
  if (pooled.visible || !pooled.drawn || !pooled.canvas.isConnected) {
    drawPending(pooled);
  } else {
    // Above the visible part, its new size is laid out in this frame (what is on screen keeps its place);
    // below it, the size follows with the pixels, after the frame.
    if (!pooled.below) sizeCanvas(pooled, layout);
    deferred.add(pooled);
  }
  return pooled;
}
