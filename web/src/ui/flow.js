// The flow of a step: its shown tensors in stages, from the inputs to the output, each stage named by the
// operation that made it from the stages before. Derived from the step's data (the names and shapes of
// what `run` returned), not drawn by hand per step: a step that shows another tensor gets another node.
// step-diagram.js lays the stages out as the step's picture.
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
export function roleOf(name) {
  return name.replace(/\s*\(.*\)$/, '').replace(/\.weight$/, '');
}

// The operation that made a node, in the diagram's notation (· W_q, Q·Kᵀ, / √d_k, + mask, softmax, · V).
function operationOf(view, inputs, byRole) {
  const ops = STRINGS.views.flowOps;
  const role = roleOf(view.name);
  const from = new Set(inputs.map((v) => roleOf(v.name)));
  if (inputs.length === 0) return '';
  if (role === 'output' && !from.has('weights') && !from.has('dropped')) return ops.average;
  if (role === 'output' && !from.has('value') && !from.has('W_value')) return ops.outputOfX;
  if (role === 'scores' && !from.has('query')) return ops.scoresOfX;
  if (role === 'weights' && !from.has('scores') && !from.has('scaled') && !from.has('masked')) {
    const shape = view.tensor.shape;
    if (view.panels && shape.length >= 3 && byRole.has('W_query')) {
      const H = shape[shape.length - 3];
      const wq = byRole.get('W_query'); // (d_in, d_out), or nn.Linear's (d_out, d_in)
      const dOut = wq.tensor.shape[wq.axes?.[0] === 'd_out' ? 0 : 1];
      return `${format(ops.split, { H, dHead: dOut / H })}; ${ops.headWeights}`;
    }
    return ops.headWeights;
  }
  return ops[role] ?? '';
}

/**
 * The stages of a step's shown tensors, in reading order.
 * @param {object[]} views the step's `tensors`
 * @returns {{views: object[], inputs: object[][], op: string}[]} each stage: its tensors, what each was
 *   made from, and the operation that made them (one name per kind of operation, joined)
 */
export function flowStages(views) {
  const byRole = new Map();
  for (const view of views) if (!byRole.has(roleOf(view.name))) byRole.set(roleOf(view.name), view);
  const depth = new Map();
  const stages = [];
  for (const view of views) {
    let inputs = [];
    for (const slots of SOURCES[roleOf(view.name)] ?? []) {
      for (const slot of slots) {
        const found = slot.map((role) => byRole.get(role)).find((candidate) => candidate && candidate !== view && depth.has(candidate.name));
        if (found && !inputs.includes(found)) inputs.push(found);
      }
      if (inputs.length) break;
      inputs = [];
    }
    const level = inputs.length ? 1 + Math.max(...inputs.map((v) => depth.get(v.name))) : 0;
    depth.set(view.name, level);
    const stage = (stages[level] ??= { views: [], inputs: [], ops: [] });
    stage.views.push(view);
    stage.inputs.push(inputs);
    const op = operationOf(view, inputs, byRole);
    if (op && !stage.ops.includes(op)) stage.ops.push(op);
  }
  return stages.filter(Boolean).map(({ views: shown, inputs, ops }) => ({ views: shown, inputs, op: joinOps(ops) }));
}

// "· W_q", "· W_k", "· W_v" read as one arrow: "· W_q, W_k, W_v".
function joinOps(ops) {
  const products = ops.filter((op) => op.startsWith('· W_'));
  const rest = ops.filter((op) => !op.startsWith('· W_'));
  const joined = products.length > 1 ? [`· ${products.map((op) => op.slice(2)).join(', ')}`] : products;
  return [...joined, ...rest].join('; ');
}
