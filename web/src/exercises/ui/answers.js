// The answer controls of predict exercises. Each returns {node, source(), show(expected)}: source() is
// the learner's answer written as a submission module (so a prediction is checked by the same sandbox
// and the same comparison as code), show() puts the expected answer in place when the solution is revealed.
import { EXERCISE_STRINGS as S, fill } from './strings.js';
import { valueHeatmap } from './heatmap.js';

const element = (tag, attributes = {}, text = null) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
};

const module = (values, shape) => `export default () => ({ data: Float32Array.from(${JSON.stringify(values)}), shape: ${JSON.stringify(shape)} });\n`;

/** A grid of toggle buttons, one per cell: pressed means "this cell is masked". */
function cellsAnswer(exercise, saved) {
  const [rows, cols] = exercise.answer.shape;
  const grid = element('div', { class: 'exercise-cells', role: 'group', 'aria-label': exercise.answer.label });
  grid.style.gridTemplateColumns = `repeat(${cols}, 2.2rem)`;
  const buttons = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const button = element('button', { type: 'button', 'aria-pressed': 'false', 'aria-label': fill(S.cellLabel, { row: r, col: c }), 'data-cell': `${r}.${c}` });
      button.addEventListener('click', () => button.setAttribute('aria-pressed', button.getAttribute('aria-pressed') === 'true' ? 'false' : 'true'));
      buttons.push(button);
      grid.append(button);
    }
  }
  // Arrow keys move between cells (and stay in the grid: the page's ←/→ would change the step).
  const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  grid.addEventListener('keydown', (event) => {
    const move = moves[event.key];
    const at = buttons.indexOf(event.target);
    if (!move || at < 0) return;
    event.preventDefault();
    const row = Math.min(rows - 1, Math.max(0, Math.floor(at / cols) + move[0]));
    const col = Math.min(cols - 1, Math.max(0, (at % cols) + move[1]));
    buttons[row * cols + col].focus();
  });
  const set = (values) => values.forEach((v, i) => buttons[i]?.setAttribute('aria-pressed', v ? 'true' : 'false'));
  if (Array.isArray(saved)) set(saved);
  const values = () => buttons.map((b) => (b.getAttribute('aria-pressed') === 'true' ? 1 : 0));
  return { node: grid, values, source: () => module(values(), [rows, cols]), show: (expected) => set(Array.from(expected.data)) };
}

/** Radio buttons, one per heatmap (the shown tensor first). */
function choiceAnswer(exercise, saved, { core, inputs }) {
  const box = element('div', { class: 'exercise-choice' });
  const shown = exercise.answer.shown(core, inputs);
  const shownFigure = element('figure');
  shownFigure.append(valueHeatmap(shown, fill(S.shownLabel, { label: 'scores' })), element('figcaption', {}, fill(S.shownLabel, { label: 'scores' })));
  const fieldset = element('fieldset');
  fieldset.append(element('legend', {}, S.choicesLabel));
  const radios = exercise.answer.choices(core, inputs).map((choice, i) => {
    const label = element('label', { class: 'exercise-choice-option' });
    const radio = element('input', { type: 'radio', name: `choice-${exercise.id}`, value: String(i) });
    if (saved === i) radio.checked = true;
    label.append(radio, valueHeatmap(choice.tensor, choice.label), element('span', {}, choice.label));
    fieldset.append(label);
    return radio;
  });
  box.append(shownFigure, fieldset);
  const values = () => radios.findIndex((r) => r.checked);
  return { node: box, values, source: () => module([values()], [1]), show: (expected) => { radios[expected.data[0]].checked = true; } };
}

/** One number input. */
function estimateAnswer(exercise, saved) {
  const label = element('label', { class: 'exercise-estimate' });
  const input = element('input', { type: 'number', step: 'any', inputmode: 'decimal' });
  if (typeof saved === 'number') input.value = String(saved);
  label.append(element('span', {}, fill(S.estimateLabel, { label: exercise.answer.label })), input);
  const values = () => (input.value.trim() === '' ? NaN : Number(input.value));
  return { node: label, values, source: () => module([values()], [1]), show: (expected) => { input.value = String(expected.data[0]); } };
}

export function createAnswer(exercise, saved, context) {
  if (exercise.answer.type === 'cells') return cellsAnswer(exercise, saved);
  if (exercise.answer.type === 'choice') return choiceAnswer(exercise, saved, context);
  return estimateAnswer(exercise, saved);
}
