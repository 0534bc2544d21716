// The controls of one step, generated from the state table: a labelled input per property, of the
// kind its type asks for. A change reports {name: value} to the app, which validates it against the
// same table (state.js updateState) before anything is recomputed.
import { property } from './state.js';
import { STRINGS } from './strings.js';
import { element } from './dom-sync.js';

// Text is applied after a short pause in typing, so each keystroke does not recompute everything.
function debounce(action, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => action(...args), ms);
  };
}

function numberControl(p, value, id, onChange, name) {
  const group = element('span', { class: 'number-control' });
  const range = element('input', {
    type: 'range', id, min: String(p.min), max: String(p.max), step: String(p.step ?? 1), value: String(value), 'data-control': p.name,
  });
  const box = element('input', {
    type: 'number', min: String(p.min), max: String(p.max), step: String(p.step ?? 1), value: String(value),
    'aria-label': `${name} (number)`, 'data-control-number': p.name,
  });
  range.addEventListener('input', () => {
    box.value = range.value;
    onChange({ [p.name]: Number(range.value) });
  });
  // Typing moves the slider at once (a number inside its range); the value is applied on change, when
  // the reader leaves the box or presses Enter, so a half-typed number recomputes nothing.
  box.addEventListener('input', () => {
    const typed = Number(box.value);
    if (box.value.trim() !== '' && Number.isFinite(typed) && typed >= p.min && typed <= p.max) range.value = String(typed);
  });
  box.addEventListener('change', () => {
    onChange({ [p.name]: box.value });
    range.value = box.value;
  });
  group.append(range, box);
  return group;
}

/** Whether a (possibly large) integer range is better typed than dragged. */
function typedOnly(p) {
  return p.max - p.min > 1000;
}

function controlFor(p, value, id, onChange, name) {
  switch (p.type) {
    case 'int':
    case 'number':
      if (typedOnly(p)) {
        const box = element('input', { type: 'number', id, min: String(p.min), max: String(p.max), step: '1', value: String(value), 'data-control': p.name });
        box.addEventListener('change', () => onChange({ [p.name]: box.value }));
        return box;
      }
      return numberControl(p, value, id, onChange, name);
    case 'bool': {
      const box = element('input', { type: 'checkbox', id, 'data-control': p.name });
      box.checked = value;
      box.addEventListener('change', () => onChange({ [p.name]: box.checked }));
      return box;
    }
    case 'enum': {
      const select = element('select', { id, 'data-control': p.name });
      for (const option of p.values) {
        const label = STRINGS.optionLabels[option] ?? STRINGS.backendNames[option] ?? option;
        const node = element('option', { value: option }, label);
        node.selected = option === value;
        select.append(node);
      }
      select.addEventListener('change', () => onChange({ [p.name]: select.value }));
      return select;
    }
    case 'text': {
      const input = element('input', { type: 'text', id, maxlength: String(p.maxLength), value, 'data-control': p.name, spellcheck: 'false' });
      const apply = debounce(() => onChange({ [p.name]: input.value }), 250);
      input.addEventListener('input', apply);
      input.addEventListener('change', () => onChange({ [p.name]: input.value }));
      return input;
    }
    default:
      throw new Error(`controls: no control for property ${p.name} of type ${p.type}`);
  }
}

// A property whose valid values depend on the state (`choices`: the heads, which must divide d_out)
// is a list of exactly those values.
function choiceControl(p, state, id, onChange) {
  const select = element('select', { id, 'data-control': p.name });
  fillChoices(select, p, state);
  select.addEventListener('change', () => onChange({ [p.name]: Number(select.value) }));
  return select;
}

function fillChoices(select, p, state) {
  select.replaceChildren(...p.choices(state).map((value) => {
    const option = element('option', { value: String(value) }, p.name === 'head' && value === 0 ? STRINGS.allHeads : String(value));
    option.selected = value === state[p.name];
    return option;
  }));
}

/** Brings the choice lists in `container` up to date with `state` (d_out moved: other heads fit). */
export function refreshChoices(container, state) {
  for (const select of container.querySelectorAll('select[data-control]')) {
    const p = property(select.dataset.control);
    if (!p?.choices) continue;
    const wanted = p.choices(state).join(',');
    const shown = Array.from(select.options, (o) => o.value).join(',');
    if (wanted !== shown || select.value !== String(state[p.name])) fillChoices(select, p, state);
  }
}

// A label's words in brackets ("Seed (torch.manual_seed for the weights…)") are for screen readers and the
// tooltip: the controls stay one or two lines above the picture. The accessible name is the whole text.
function controlLabel(id, text) {
  const label = element('label', { for: id });
  const cut = text.indexOf(' (');
  if (cut < 0) {
    label.textContent = text;
    return label;
  }
  label.title = text;
  label.append(text.slice(0, cut), element('span', { class: 'sr-only' }, text.slice(cut)));
  return label;
}

// A list whose choices are phrases ("zero after the softmax, then renormalise") gets a line of its own, its
// label beside it: squeezed into a column, its chosen value was cut off mid-word.
const LONG_CHOICE = 20;
function longChoices(p) {
  return p.type === 'enum' && !p.choices && p.values.some((option) => (STRINGS.optionLabels[option] ?? option).length > LONG_CHOICE);
}

/**
 * The controls panel for the step's control names.
 * @param {string[]} names properties from the state table
 * @param {object} state current state (its `lock` list disables controls)
 * @param {(changes: object) => void} onChange
 * @param {object} [labels] a label per property name that replaces STRINGS.controlLabels' (a step's own words)
 */
export function renderControls(names, state, onChange, labels = {}) {
  if (names.length === 0) return document.createDocumentFragment();
  const fieldset = element('fieldset', { class: 'controls' });
  fieldset.append(element('legend', {}, STRINGS.controls));
  for (const name of names) {
    const p = property(name);
    const id = `control-${name}`;
    const field = element('div', { class: `field field-${p.type}${longChoices(p) ? ' field-wide' : ''}` });
    const text = labels[name] ?? STRINGS.controlLabels[name];
    const label = controlLabel(id, text);
    const control = p.choices ? choiceControl(p, state, id, onChange) : controlFor(p, state[name], id, onChange, text);
    if (state.lock.includes(name)) {
      for (const input of control.matches('input, select') ? [control] : control.querySelectorAll('input')) input.disabled = true;
      label.append(' ', element('span', { class: 'locked' }, STRINGS.locked));
    }
    if (p.type === 'bool') field.append(control, label);
    else field.append(label, control);
    fieldset.append(field);
  }
  return fieldset;
}
