// What a tensor is called on the page: its figure's id, its thumbnail's name and its shape with the axes' names.
import { STRINGS } from './strings.js';

/** The id of a tensor's figure on the page (the flow picture links to it). */
export function figureId(name) {
  return `tensor-${name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '')}`;
}

/**
 * A thumbnail's caption: W_q for W_query.weight (cross), and a short name for a long one ("Q·Kᵀ + M" for the
 * book's masked unscaled scores), so that a thumbnail's narrow column keeps it on one line. The figure keeps the
 * full name (its data-tensor, its label, the caption's title).
 */
export function thumbName(name) {
  return STRINGS.views.thumbNames[name] ?? name.replace(/^W_(query|key|value)(\.weight)?( \(cross\))?$/, (whole, role) => `W_${role[0]}`);
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
