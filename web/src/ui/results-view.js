// What a step's `run` returned, on the page: the tensors as heatmaps, the checks as verdicts, step 1's
// context/target table and step 9's table of implementations. Everything shown is a value the core
// returned; the only arithmetic here is counting kept weights for a label.
import { renderTensors } from './tensor-view.js';
import { element, markPatchable, syncChildren } from './dom-sync.js';
import { planDiagram, renderDiagram } from './step-diagram.js';
import { STRINGS, format } from './strings.js';

function verdict(ok) {
  return element('span', { class: ok ? 'verdict ok' : 'verdict bad' }, ok ? `✓ ${STRINGS.yes}` : `✗ ${STRINGS.no}`);
}

function errorText(value) {
  return value === 0 ? '0' : value.toExponential(2);
}

function renderCheck(check) {
  const item = markPatchable(element('li', { 'data-check': check.name }));
  // The mask modes by their learner names; "0 before the softmax" is the mistake step 7 shows on purpose, so it
  // differing is the lesson, not a failed check.
  const mode = check.values?.mode;
  const mistake = check.name === 'maskModes' && mode === 'zero';
  const label = mistake ? STRINGS.checkNames.maskMistake : format(STRINGS.checkNames[check.name], { ...check.values, ...(mode ? { mode: STRINGS.optionLabels[mode] ?? mode } : {}) });
  if (mistake && check.comparison) {
    const { maxAbsError } = check.comparison;
    item.classList.add('mistake');
    item.append(element('span', { class: 'check-label' }, `${label}: `), element('span', { class: 'verdict mistake' }, STRINGS.mistakeShown),
      element('span', { class: 'check-detail', 'data-max-abs-error': String(maxAbsError) }, ` ${STRINGS.maxAbsError} ${errorText(maxAbsError)}`));
  } else if (check.comparison) {
    const { maxAbsError, allclose } = check.comparison;
    item.append(element('span', { class: 'check-label' }, `${label}: `), verdict(allclose),
      element('span', { class: 'check-detail', 'data-max-abs-error': String(maxAbsError) }, ` ${STRINGS.maxAbsError} ${errorText(maxAbsError)}`));
  } else if (check.kept) {
    // Counting nonzero entries is a label for the learner, not part of the attention math.
    let kept = 0;
    let total = 0;
    for (let i = 0; i < check.kept.weights.data.length; i++) {
      if (check.kept.weights.data[i] === 0) continue;
      total++;
      if (check.kept.dropped.data[i] !== 0) kept++;
    }
    item.append(element('span', { class: 'check-label' }, `${label}: `), element('span', { 'data-kept': String(kept), 'data-total': String(total) }, `${kept} / ${total}`));
  }
  return item;
}

// A token as a chip: the word and, small beside it, its id (what the model actually reads).
function tokenChip(id, vocabulary, extraClass = '') {
  const chip = element('span', { class: `token ${extraClass}`.trim(), 'data-id': String(id) });
  chip.append(element('span', { class: 'word' }, vocabulary[id]), element('span', { class: 'id' }, String(id)));
  return chip;
}

function renderPairs({ contexts, targets, vocabulary }) {
  const table = element('table', { class: 'pairs', 'data-view': 'pairs' });
  table.append(element('caption', {}, STRINGS.pairsCaption));
  const head = element('tr');
  head.append(element('th', { scope: 'col' }, STRINGS.position), element('th', { scope: 'col' }, STRINGS.context), element('th', { scope: 'col' }, STRINGS.target));
  const body = element('tbody');
  const L = targets.shape[targets.shape.length - 1];
  for (let t = 0; t < L; t++) {
    const row = element('tr');
    const contextCell = element('td', { class: 'context' });
    for (const id of contexts.data.subarray(0, t + 1)) contextCell.append(tokenChip(id, vocabulary));
    const targetCell = element('td');
    targetCell.append(tokenChip(targets.data[t], vocabulary, 'target'));
    row.append(element('th', { scope: 'row' }, String(t)), contextCell, targetCell);
    body.append(row);
  }
  const thead = element('thead');
  thead.append(head);
  table.append(thead, body);
  // The shapes of what the core returned: L tokens framed as L − 1 (context, target) pairs.
  const wrap = element('div', { class: 'pairs-wrap' });
  const shape = element('p', { class: 'tensor-shape pairs-shape', 'data-view': 'pairs-shape' },
    `contexts (B=${contexts.shape[0]}, T=${L}), targets (B=${targets.shape[0]}, T=${L})`);
  wrap.append(shape, table);
  return wrap;
}

function renderBackends({ fixtureName, reference = 'pytorch', rows }, currentBackend) {
  const wrap = element('div', { class: 'backends', role: 'region', tabindex: '0', 'aria-label': format(STRINGS.views.tableRegion, { name: STRINGS.compareBackends }) });
  const note = reference === 'js' ? STRINGS.againstJsReference : format(STRINGS.fixtureCase, { name: fixtureName });
  wrap.append(element('h3', {}, STRINGS.compareBackends), element('p', { class: 'note', 'data-reference': reference }, note));
  const table = element('table', { 'data-view': 'backends' });
  const head = element('tr');
  for (const title of [STRINGS.implementation, STRINGS.maxAbsError, STRINGS.allclose, 'ms']) head.append(element('th', { scope: 'col' }, title));
  const thead = element('thead');
  thead.append(head);
  const body = element('tbody');
  for (const row of rows) {
    const tr = element('tr', { 'data-backend': row.backend });
    const name = STRINGS.backendNames[row.backend] ?? row.backend;
    tr.append(element('th', { scope: 'row' }, row.name === currentBackend ? `${name} ★` : name));
    if (row.error) {
      // Plain words in the row; the technical reason behind a disclosure.
      const cell = element('td', { colspan: '3', class: 'unavailable' });
      const why = element('details');
      why.append(element('summary', {}, STRINGS.views.backendDetails), element('span', { class: 'reason' }, row.error));
      cell.append(element('span', {}, STRINGS.views.backendUnavailable), ' ', why);
      tr.append(cell);
    } else {
      const verdictCell = element('td');
      verdictCell.append(verdict(row.comparison.allclose));
      tr.append(element('td', { 'data-max-abs-error': String(row.comparison.maxAbsError) }, errorText(row.comparison.maxAbsError)), verdictCell, element('td', {}, row.ms.toFixed(2)));
    }
    body.append(tr);
  }
  table.append(thead, body);
  wrap.append(table);
  return wrap;
}

// The list of checks stays in the page between repaints (see tensor-view.js: the figures are pooled too,
// and step-diagram.js keeps its stages), so a repaint changes only what changed.
let checksList = null;

/**
 * The results area of a step, as the list of nodes it holds in order: the step's main figure (its diagram,
 * with step 1's and step 9's tables under it) and the checks list, the same elements from one repaint to the
 * next; the small tables and the check items are built anew, and syncChildren keeps the old ones where they
 * are equal (or built the same way, taking the new text in place).
 * @param {object} result what the step's run returned
 * @param {{stepId: string, onEdit: Function, hideChecks: boolean, backend: string, maxWidth: number, onChange: Function}} options
 *   onChange: redraw the step (a thumbnail opened, the colour-scale switch)
 * @returns {Node[]}
 */
export function renderResults(result, { stepId, onEdit, hideChecks, backend, maxWidth, head = 0, heads = 0, onChange }) {
  const nodes = [];
  const extras = [];
  if (result.pairs) extras.push(renderPairs(result.pairs));
  if (result.backends) extras.push(renderBackends(result.backends, backend));
  const views = result.tensors ?? [];
  if (views.length || extras.length) {
    const plan = planDiagram(stepId, views);
    const figures = renderTensors(views, { onEdit, maxWidth, head, heads, sizeOf: plan.sizeOf, scaleTop: plan.scaleTop });
    nodes.push(renderDiagram(stepId, views, figures, plan, { extras, onChange }));
  }
  if (result.checks?.length && !hideChecks) {
    checksList ??= element('ul', { class: 'checks', 'aria-label': STRINGS.checks });
    syncChildren(checksList, result.checks.map(renderCheck));
    nodes.push(checksList);
  }
  return nodes;
}
