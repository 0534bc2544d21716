// A picture of the flow of a step: its shown tensors as boxes with their shapes, in stages from the
// inputs to the output, each box labelled with the operation that made it and the boxes it came from,
// and linked to its heatmap. Derived from the step's data (the names and shapes of what `run`
// returned), not drawn by hand per step: a step that shows another tensor gets another box.
import { element, markPatchable, placedNode } from './dom-sync.js';
import { figureId, shapeText } from './tensor-labels.js';
import { STRINGS, format } from './strings.js';

// What each tensor is made from, by role: alternatives tried in order, each a list of slots, each slot
// a list of candidates (the first one shown on this step fills the slot); the first alternative that
// finds anything gives the inputs. A tensor with none is an input of the step.
const SOURCES = {
  query: [[['x_query', 'x'], ['W_query']]],
  key: [[['x_context', 'x'], ['W_key']]],
  value: [[['x_context', 'x'], ['W_value']]],
  scores: [[['query', 'x'], ['key', 'x_context']]],
  scaled: [[['scores']]],
  masked: [[['scaled', 'scores']]],
  weights: [[['masked', 'scaled', 'scores']], [['x_query', 'x'], ['x_context'], ['W_query'], ['W_key']]],
  dropped: [[['weights']]],
  output: [[['dropped', 'weights'], ['value', 'W_value', 'x_context', 'x']], [['x']]],
  context: [[['weights'], ['value', 'W_value']]],
};

/**
 * A view's role: its name without a qualifier in brackets ("context (split heads)" → "context") and without
 * the `.weight` of the Linear layout ("W_query.weight" → "W_query").
 */
function roleOf(name) {
  return name.replace(/\s*\(.*\)$/, '').replace(/\.weight$/, '');
}

// The operation's words for a box: the split into heads names the shapes it goes between.
function operationOf(view, inputs, byRole) {
  const ops = STRINGS.views.flowOps;
  const role = roleOf(view.name);
  if (inputs.length === 0) return '';
  if (role === 'output' && !inputs.some((v) => ['weights', 'dropped'].includes(roleOf(v.name)))) return ops.average;
  const shape = view.tensor.shape;
  if (role === 'weights' && view.panels && shape.length >= 3 && byRole.has('W_query')) {
    const H = shape[shape.length - 3];
    const T = shape[shape.length - 2];
    const wq = byRole.get('W_query'); // (d_in, d_out), or nn.Linear's (d_out, d_in)
    const dOut = wq.tensor.shape[wq.axes?.[0] === 'd_out' ? 0 : 1];
    const split = format(STRINGS.views.splitShape, { from: `T=${T}, d_out=${dOut}`, to: `H=${H}, T=${T}, d_head=${dOut / H}` });
    return `${ops.split} ${split}; ${ops.weights}`;
  }
  return ops[role] ?? '';
}

/**
 * The flow picture of a step's shown tensors, as an ordered list of stages.
 * @param {object[]} views the step's `tensors`
 * @returns {HTMLElement|null} null when the step shows fewer than two tensors
 */
export function renderFlow(views) {
  const shown = views.filter((view) => !view.name.startsWith('softmax('));
  if (shown.length < 2) return null;
  // The picture depends on the names, shapes and axes alone: a repaint that keeps them (a temperature change)
  // keeps the picture on the page as it is, where building it again and comparing it with the old one showed in
  // the repaint's profile.
  const key = JSON.stringify(shown.map((view) => [view.name, shapeText(view), view.tensor.shape, Boolean(view.panels), view.axes ?? null]));
  if (key !== lastFlow.key) lastFlow = { key, figure: buildFlow(shown) };
  else lastFlow.figure = placedNode(lastFlow.figure); // the figure already on the page, if syncChildren patched that one
  return lastFlow.figure;
}
let lastFlow = { key: null, figure: null };

function buildFlow(shown) {
  const byRole = new Map();
  for (const view of shown) if (!byRole.has(roleOf(view.name))) byRole.set(roleOf(view.name), view);
  const depth = new Map();
  const boxes = shown.map((view) => {
    let inputs = [];
    for (const slots of SOURCES[roleOf(view.name)] ?? []) {
      for (const slot of slots) {
        const found = slot.map((role) => byRole.get(role)).find((candidate) => candidate && candidate !== view && depth.has(candidate.name));
        if (found && !inputs.includes(found)) inputs.push(found);
      }
      if (inputs.length) break;
      inputs = [];
    }
    depth.set(view.name, inputs.length ? 1 + Math.max(...inputs.map((v) => depth.get(v.name))) : 0);
    return { view, inputs, op: operationOf(view, inputs, byRole) };
  });
  const stages = [];
  for (const box of boxes) (stages[depth.get(box.view.name)] ??= []).push(box);

  const figure = element('figure', { class: 'flow', 'data-view': 'flow' });
  figure.append(element('figcaption', {}, STRINGS.views.flow));
  const list = element('ol', { class: 'flow-stages' });
  for (const stage of stages.filter(Boolean)) {
    const item = element('li', { class: 'flow-stage' });
    const column = element('ul');
    for (const { view, inputs, op } of stage) {
      const box = element('li', { class: 'flow-box', 'data-flow-tensor': view.name });
      if (op) box.append(element('span', { class: 'flow-op' }, `${op} ← ${inputs.map((v) => v.name).join(', ')}`));
      const link = element('a', { href: `#${figureId(view.name)}`, 'data-flow-link': view.name });
      link.append(element('span', { class: 'flow-name' }, view.name), element('span', { class: 'flow-shape' }, shapeText(view)));
      box.append(link);
      column.append(box);
    }
    item.append(column);
    list.append(item);
  }
  figure.append(list);
  return markPatchable(figure);
}

/**
 * Follows a flow link without touching the address bar: scrolls to the heatmap and focuses it.
 * Installed once on the results area (the flow is rebuilt on each repaint).
 */
export function followFlowLinks(container) {
  container.addEventListener('click', (event) => {
    const link = event.target.closest?.('a[data-flow-link]');
    if (!link) return;
    event.preventDefault();
    const figure = document.getElementById(figureId(link.dataset.flowLink));
    if (!figure) return;
    figure.scrollIntoView({ block: 'center' });
    figure.querySelector('canvas')?.focus({ preventScroll: true });
  });
}
