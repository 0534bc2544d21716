// The picture's weights switch: "the book's random weights | a trained model", two toggle buttons at the top of
// the step's main figure on every step the `model` state parameter changes (steps 6–11). It writes the
// same `model` parameter as the URL and the element's attribute; `lock=model` disables it. With the trained
// model it carries the notes shown under the formula on a wide page (what x and W are, why sizes are locked) in
// a one-line fold, shown on a phone, where those notes would push the picture off the first screen.
import { element } from './dom-sync.js';
import { STRINGS } from './strings.js';

const VALUES = ['random', 'trained'];

/** onChange(changes) writes the page's state. */
export function createModelSwitch(onChange) {
  const words = STRINGS.modelSwitch;
  const node = element('div', { class: 'model-switch', role: 'group', 'aria-labelledby': 'model-switch-label', 'data-model-switch': '' });
  const label = element('span', { class: 'model-switch-label', id: 'model-switch-label' }, words.label);
  const buttons = VALUES.map((value) => {
    const button = element('button', { type: 'button', 'data-model': value, 'aria-pressed': 'false' }, words[value]);
    button.addEventListener('click', () => onChange({ model: value }));
    return button;
  });
  const locked = element('span', { class: 'locked', hidden: '' }, STRINGS.locked);
  const choices = element('span', { class: 'model-switch-choices' });
  choices.append(...buttons);
  const notesText = element('div', { class: 'model-notes-text' });
  const notes = element('details', { class: 'model-notes', hidden: '' });
  notes.append(element('summary', {}, words.notesSummary), notesText);
  node.append(label, ' ', choices, ' ', locked, notes);
  let shownNotes = '';
  return {
    node,
    /** The trained model's notes ([{note, text}], trained/walk-inputs.js trainedNotes); none with the book's weights. */
    showNotes(list) {
      const key = JSON.stringify(list.map(({ text }) => text));
      if (key === shownNotes) return;
      shownNotes = key;
      notesText.replaceChildren(...list.map(({ text }) => element('p', {}, text)));
      notes.hidden = list.length === 0;
      if (notes.hidden) notes.open = false;
    },
    /** Shows the state's value and lock; writes only what differs. */
    sync(state) {
      const lock = state.lock.includes('model');
      for (const button of buttons) {
        const pressed = String(button.dataset.model === state.model);
        if (button.getAttribute('aria-pressed') !== pressed) button.setAttribute('aria-pressed', pressed);
        if (button.disabled !== lock) button.disabled = lock;
      }
      if (locked.hidden === lock) locked.hidden = !lock;
    },
  };
}
