// The step as a picture: its tensors laid out as a computation diagram in reading order (x → Q, K, V →
// scores → scaled → masked → weights → context → output, as far as the step goes), each arrow named by its
// operation, what is new in the step highlighted and named in one line, and what earlier steps introduced
// drawn as thumbnails that open full size on a click. One colour scale per quantity (every weights tensor,
// the score family, the other values), stated once in the legend; a switch gives each tensor its own.
// The nodes are tensor-view.js's pooled figures: the diagram only places them.
import { flowStages, roleOf } from './flow.js';
import { shownView } from './cell-sources.js';
import { colorScale, css, prefersDark } from './colormap.js';
import { formatCell } from './heatmap-draw.js';
import { element, setAttribute, setHidden, setText, syncChildren } from './dom-sync.js';
import { STRINGS, format } from './strings.js';

// What each step introduces (drawn highlighted), and which earlier nodes (or variants shown beside the lesson,
// such as the book's unscaled scores) it draws as thumbnails: by role, or by the start of a tensor's name.
const STEP_NODES = {
  framing: { fresh: ['contexts', 'targets'] },
  loop: { fresh: ['output'] },
  matmul: { fresh: ['weights', 'output'] },
  softmax: { fresh: ['scores', 'masked', 'weights'] },
  'self-attention': { fresh: ['scores', 'weights'] },
  weights: { fresh: ['W_query', 'W_key', 'W_value', 'query', 'key', 'value', 'scaled'], thumbs: ['x', 'output'] },
  causal: { fresh: ['masked', 'weights'], thumbs: ['W_query', 'W_key', 'W_value', 'weights before the mask', 'scores', 'scaled', 'masked (unscaled', 'output'] },
  dropout: { fresh: ['dropped'], thumbs: ['W_query', 'W_key', 'W_value'] },
  check: { fresh: ['PyTorch output'] },
  multihead: { fresh: ['weights', 'context (split heads)'], thumbs: ['W_query', 'W_key', 'W_value', 'context (stacked heads)'] },
  cross: { fresh: ['x_context', 'weights'], thumbs: ['x_query', 'W_query', 'W_key', 'W_value'] },
};

const SCORE_FAMILY = ['scores', 'scaled', 'masked'];
// Tensors outside the flow: step 6's scale example, drawn beside the diagram.
const isAside = (view) => view.name.startsWith('softmax(');

/** The colour-scale group of a tensor: one scale per quantity on a step. */
export function scaleGroup(view) {
  if (view.kind === 'weights') return 'weights';
  if (view.kind === 'ids') return 'ids';
  return SCORE_FAMILY.includes(roleOf(view.name)) ? 'scores' : 'values';
}

function maxAbsFinite(data) {
  let max = 0;
  for (let i = 0; i < data.length; i++) {
    const size = Math.abs(data[i]);
    if (size > max && size !== Infinity) max = size;
  }
  return max;
}

// The stages depend on the tensors' names alone: found once per set of names, not on every repaint.
let stagesCache = { key: null, stages: null };
function stagesOf(views) {
  const key = views.map((view) => view.name).join('\u0000');
  if (key !== stagesCache.key) stagesCache = { key, stages: flowStages(views) };
  // The same stages, holding this repaint's tensors.
  const current = new Map(views.map((view) => [view.name, view]));
  const now = (view) => current.get(view.name);
  return stagesCache.stages.map((stage) => ({ ...stage, views: stage.views.map(now), inputs: stage.inputs.map((list) => list.map(now)) }));
}

// Thumbnails the learner opened, by step and tensor name; forgotten when the step changes.
const expanded = new Set();
let expandedStep = null;
let perTensorScale = false;

/** Whether each tensor has its own colour scale (the legend's switch). */
export function setPerTensorScale(on) {
  perTensorScale = Boolean(on);
}

/**
 * How the step's diagram draws each tensor: its cell size (full or thumbnail) and its colour scale's top.
 * @returns {{sizeOf: Function, scaleTop: Function, groups: {group: string, kind: string, top: number}[]}}
 */
export function planDiagram(stepId, views) {
  if (expandedStep !== stepId) {
    expanded.clear();
    expandedStep = stepId;
  }
  const nodes = STEP_NODES[stepId] ?? {};
  const listed = (list, view) => (list ?? []).some((entry) => entry === roleOf(view.name) || view.name.startsWith(entry));
  // A view may ask to be a thumbnail itself (a trained model's 128-wide projections, steps.js weightViews).
  const thumb = (view) => (view.thumb || listed(nodes.thumbs, view)) && !expanded.has(view.name);
  // One cell size for the step's full-size nodes, from its token count: up to 8 tokens (step 11's context) at
  // least 24 px, the size whose numbers ("−.06") stand apart (heatmap-draw.js writes them from 22 px); from 9
  // tokens up a T × T matrix about 520 px wide (16 px at T = 32), so that one token more or less changes its
  // size by a cell, not by a step of the scale.
  const tokens = Math.max(1, ...views.map((v) => Math.max(v.rows?.length ?? 0, v.cols?.length ?? 0) || v.tensor.shape.at(-1)));
  const full = tokens <= 8 ? Math.min(30, Math.max(24, Math.floor(144 / tokens))) : Math.max(8, Math.min(24, Math.floor(520 / tokens)));
  const small = Math.min(10, Math.max(3, Math.floor(60 / tokens)));
  const tops = new Map();
  for (const view of views) {
    const group = scaleGroup(view);
    if (group === 'ids') continue;
    tops.set(group, Math.max(tops.get(group) ?? (group === 'weights' ? 1 : 0), maxAbsFinite(view.tensor.data)));
  }
  const kinds = { weights: 'weights', scores: 'signed', values: 'signed' };
  // Nodes of one stage with the same rows (Q, K, V) share the first one's row labels.
  const sharesRows = new Set();
  for (const stage of stagesOf(views.filter((view) => !isAside(view)))) {
    const full = stage.views.filter((view) => !thumb(view) && view.rows && view.tensor.shape.length === 2);
    for (const view of full.slice(1)) if (view.rows.join('\u0000') === full[0].rows.join('\u0000')) sharesRows.add(view.name);
  }
  return {
    sizeOf: (view, panels) => (thumb(view) ? { cell: fitCell(small, panels, MAX_THUMB_PX, 1), thumb: true } : { cell: fitCell(full, panels, MAX_NODE_PX, 2), thumb: false, noRowLabels: sharesRows.has(view.name) }),
    scaleTop: (view) => (perTensorScale ? null : tops.get(scaleGroup(view)) ?? null),
    groups: perTensorScale ? [] : [...tops].map(([group, top]) => ({ group, kind: kinds[group], top })),
    fresh: (view) => listed(nodes.fresh, view) && !listed(nodes.thumbs, view),
    thumb,
  };
}

// A full-size node is at most about 520 px along its longer side and a thumbnail 160 px (a trained model's 128 × 32
// projections, at the step's cell size, would stand 2,000 px tall): the cells shrink to fit, down to `least` px.
const MAX_NODE_PX = 520;
const MAX_THUMB_PX = 160;
function fitCell(cell, panels, longestPx, least) {
  const longest = Math.max(1, ...(panels ?? []).map((panel) => Math.max(panel.rows ?? 0, panel.cols ?? 0)));
  return Math.min(cell, Math.max(least, Math.floor(longestPx / longest)));
}

// The diagram's nodes stay on the page between repaints, like the figures in them.
let diagram = null;

// A legend entry per quantity, kept between repaints: only a changed end value or gradient is written.
const legendPool = new Map();
function legendItem({ group, kind, top }) {
  let item = legendPool.get(group);
  if (!item) {
    const node = element('span', { class: 'legend-item', 'data-scale-group': group });
    const low = element('span');
    const bar = element('span', { class: 'legend-bar' });
    const high = element('span');
    node.append(element('span', { class: 'legend-name' }, STRINGS.views.diagram.groups[group]), ' ', low, bar, high);
    item = { node, low, bar, high, gradient: '' };
    legendPool.set(group, item);
  }
  const low = kind === 'weights' ? 0 : -top;
  const scale = colorScale(kind, top, prefersDark());
  const gradient = `linear-gradient(to right, ${Array.from({ length: 7 }, (_, i) => css(scale(low + ((top - low) * i) / 6))).join(', ')})`;
  setText(item.low, formatCell(low));
  setText(item.high, formatCell(top));
  if (item.gradient !== gradient) {
    item.bar.style.background = gradient;
    item.gradient = gradient;
  }
  return item.node;
}

function buildDiagram(onChange) {
  const words = STRINGS.views.diagram;
  const figure = element('figure', { class: 'diagram', 'data-main-figure': '' });
  const caption = element('figcaption', { class: 'diagram-caption' });
  const fresh = element('p', { class: 'diagram-new' });
  const freshPrefix = element('strong', {}, words.newPrefix);
  const freshText = element('span');
  fresh.append(freshPrefix, ' ', freshText);
  const legend = element('div', { class: 'diagram-legend' });
  const legendItems = element('span', { class: 'legend-items' });
  const switchLabel = element('label', { class: 'scale-switch' });
  const switchBox = element('input', { type: 'checkbox', 'data-view-control': 'per-tensor-scale' });
  switchBox.addEventListener('change', () => {
    setPerTensorScale(switchBox.checked);
    onChange();
  });
  switchLabel.append(switchBox, ' ', words.perTensor);
  const hint = element('p', { class: 'diagram-hint' });
  legend.append(legendItems, switchLabel, hint);
  caption.append(fresh);
  const stages = element('ol', { class: 'diagram-stages' });
  const aside = element('li', { class: 'diagram-aside' });
  const asideTitle = element('p', { class: 'diagram-aside-title' }, words.aside);
  const asideNodes = element('div', { class: 'diagram-nodes' });
  aside.append(asideTitle, asideNodes);
  const extras = element('div', { class: 'diagram-extras' });
  figure.append(caption, stages, legend, extras);
  // A click on a thumbnail's canvas or its button opens it full size (or back).
  figure.addEventListener('click', (event) => {
    const button = event.target.closest?.('button[data-expand]');
    const canvas = !button && event.target.closest?.('.tensor.thumb canvas');
    const name = button?.dataset.expand ?? canvas?.closest('figure[data-tensor]')?.dataset.tensor;
    if (!name) return;
    if (expanded.has(name)) expanded.delete(name);
    else expanded.add(name);
    onChange();
  });
  return { figure, freshText, fresh, legend, legendItems, switchBox, hint, stages, aside, asideNodes, extras, stagePool: [], nodePool: new Map() };
}

// What the learner can do on this step's picture, naming its tensors.
const EXPLAINED = ['weights', 'scores', 'masked', 'context', 'output'];
function hintFor(views, plan) {
  const words = STRINGS.views.diagram;
  const names = (list) => list.map((view) => view.name).join(', ');
  const explained = views.filter((view) => EXPLAINED.includes(roleOf(view.name)) && (view.kind === 'weights' || shownView('weights') || shownView('query') || shownView('x')));
  const editable = views.filter((view) => view.editable && !plan.thumb(view)); // a thumbnail opens on a click
  const parts = [];
  if (explained.length) parts.push(format(words.pointHint, { names: names(explained) }));
  else if (views.length) parts.push(words.readHint);
  if (editable.length) parts.push(format(words.editHint, { names: names(editable) }));
  return parts.join(' ');
}

// A node: the tensor's figure, and for a thumbnail (or one opened from a thumbnail) its expand button.
function nodeFor(view, figureNode, plan) {
  let node = diagram.nodePool.get(view.name);
  if (!node) {
    const wrap = element('div', { class: 'diagram-node', 'data-node': view.name });
    const button = element('button', { type: 'button', class: 'expand', 'data-expand': view.name });
    node = { wrap, button };
    diagram.nodePool.set(view.name, node);
  }
  const words = STRINGS.views.diagram;
  const thumb = plan.thumb(view);
  const canExpand = thumb || expanded.has(view.name);
  const cls = `diagram-node${plan.fresh(view) ? ' fresh' : ''}${thumb ? ' is-thumb' : ''}${view.name.length > 24 ? ' long-name' : ''}`;
  setAttribute(node.wrap, 'class', cls);
  if (canExpand) {
    setText(node.button, thumb ? '⤢' : '⤡');
    setAttribute(node.button, 'aria-label', format(thumb ? words.expand : words.shrink, { name: view.name }));
    setAttribute(node.button, 'title', format(thumb ? words.expand : words.shrink, { name: view.name }));
  }
  syncChildren(node.wrap, canExpand ? [figureNode, node.button] : [figureNode]);
  return node.wrap;
}

/**
 * The step's main figure: the diagram's stages, each led by an arrow naming its operation, holding the
 * tensors' figures; the "new:" line and the legend above; `extras` (step 1's table, step 9's) below.
 * @param {string} stepId
 * @param {object[]} views the step's tensors, in the order `figures` follows
 * @param {HTMLElement[]} figures their figures (tensor-view.js)
 * @param {object} plan planDiagram's answer
 * @param {{extras?: Node[], onChange: () => void}} options onChange: redraw (a thumbnail opened, the scale switch)
 */
export function renderDiagram(stepId, views, figures, plan, { extras = [], onChange }) {
  diagram ??= buildDiagram(onChange);
  const figureOf = new Map(views.map((view, i) => [view.name, figures[i]]));
  setText(diagram.freshText, STRINGS.views.diagram.new[stepId] ?? '');
  setHidden(diagram.fresh, !STRINGS.views.diagram.new[stepId]);
  setAttribute(diagram.figure, 'aria-label', format(STRINGS.views.diagram.label, { title: STRINGS.steps[stepId]?.title ?? stepId }));
  diagram.figure.classList.toggle('shared-scale', plan.groups.length > 0);
  syncChildren(diagram.legendItems, plan.groups.map(legendItem));
  setHidden(diagram.legend, views.length === 0);
  setHidden(diagram.legendItems.parentNode.querySelector('.scale-switch'), views.length < 2 || views.every((v) => v.kind === 'ids'));
  setText(diagram.hint, hintFor(views, plan));
  if (diagram.switchBox.checked !== perTensorScale) diagram.switchBox.checked = perTensorScale;

  const stages = stagesOf(views.filter((view) => !isAside(view)));
  // The projection matrices are operands of an arrow (x → · W_q → Q): drawn on the arrow of the first stage
  // made from them, not as inputs of their own.
  const operands = stages.map(() => []);
  stages.forEach((stage, i) => {
    if (i === 0) return;
    for (const inputs of stage.inputs) {
      for (const input of inputs) {
        if (!roleOf(input.name).startsWith('W_') || operands.some((list) => list.includes(input))) continue;
        operands[i].push(input);
      }
    }
  });
  const moved = new Set(operands.flat());
  if (stages.length) stages[0] = { ...stages[0], views: stages[0].views.filter((view) => !moved.has(view)) };
  while (diagram.stagePool.length < stages.length) {
    const item = element('li', { class: 'diagram-stage' });
    const arrow = element('span', { class: 'diagram-arrow' });
    const operandNodes = element('div', { class: 'diagram-operands' });
    const op = element('span', { class: 'diagram-op' });
    arrow.append(operandNodes, op, element('span', { class: 'diagram-arrowhead', 'aria-hidden': 'true' }, '→'));
    const nodes = element('div', { class: 'diagram-nodes' });
    item.append(arrow, nodes);
    diagram.stagePool.push({ item, arrow, op, operandNodes, nodes });
  }
  stages.forEach((stage, i) => {
    const pooled = diagram.stagePool[i];
    setText(pooled.op, stage.op);
    setHidden(pooled.arrow, i === 0);
    const thumbOperands = operands[i].every(plan.thumb);
    setAttribute(pooled.operandNodes, 'class', `diagram-operands${thumbOperands ? ' thumbs' : ''}`);
    syncChildren(pooled.operandNodes, operands[i].map((view) => nodeFor(view, figureOf.get(view.name), plan)));
    // A column of thumbnails stacks; full-size nodes stand side by side.
    const allThumbs = stage.views.every(plan.thumb);
    setAttribute(pooled.item, 'class', `diagram-stage${allThumbs ? ' thumbs' : ''}`);
    setAttribute(pooled.item, 'data-op', stage.op);
    setHidden(pooled.nodes, stage.views.length === 0);
    syncChildren(pooled.nodes, stage.views.map((view) => nodeFor(view, figureOf.get(view.name), plan)));
  });
  // A first stage left empty (its inputs all moved onto arrows) is dropped with its arrow-less slot.
  if (stages.length && stages[0].views.length === 0) setHidden(diagram.stagePool[0].item, true);
  else if (stages.length) setHidden(diagram.stagePool[0].item, false);
  // Step 6's scale example closes the list, beside the last stage where there is room.
  syncChildren(diagram.stages, [...diagram.stagePool.slice(0, stages.length).map((s) => s.item), diagram.aside]);
  const asides = views.filter(isAside);
  setHidden(diagram.aside, asides.length === 0);
  syncChildren(diagram.asideNodes, asides.map((view) => nodeFor(view, figureOf.get(view.name), plan)));
  syncChildren(diagram.extras, extras);
  return diagram.figure;
}
