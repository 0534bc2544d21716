// The exercises of the current step, under the step's results: a progress view (each exercise's outcome,
// attempts and hints), an Open button per exercise, the export of all progress as JSON, and the open
// exercise itself. The exercise view and its editor load with a dynamic import when an exercise opens.
// With `?exercise=ID&embed=1` the page shows that one exercise and nothing else (the app's
// `exercise-only` class).
import './exercises.css';
import { EXERCISE_BY_ID, exercisesOfStep } from '../bank/index.js';
import { exportProgress, progressOf } from './progress.js';
import { EXERCISE_STRINGS as S, fill } from './strings.js';

const element = (tag, attributes = {}, text = null) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
};

/**
 * @param {HTMLElement} section the shell's exercises slot
 * @param {{openExercise: (id: string) => void, showStep: (step: string) => void}} actions how the slot
 *   changes the page's state: open (or with '' close) an exercise; go to a step
 */
export function createExerciseSlot(section, { openExercise, showStep }) {
  const heading = element('h2', { id: 'exercises-title' }, S.section);
  const intro = element('p', { class: 'exercises-intro' }, S.sectionIntro);
  const list = element('ul', { class: 'exercises-list' });
  const exportButton = element('button', { type: 'button', class: 'exercises-export' }, S.exportProgress);
  const open = element('div', { class: 'exercise-open' });
  section.setAttribute('aria-labelledby', 'exercises-title');
  section.append(heading, intro, open, list, exportButton);
  exportButton.addEventListener('click', () => {
    const url = URL.createObjectURL(new Blob([exportProgress()], { type: 'application/json' }));
    const link = element('a', { href: url, download: 'attention-playground-progress.json' });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });

  let shownStep = null;
  let openId = '';
  let allowedOrigins = [];

  function renderList(step) {
    const items = exercisesOfStep(step).map((exercise) => {
      const progress = progressOf(exercise.id);
      const item = element('li', { 'data-exercise': exercise.id, 'data-outcome': progress.outcome });
      const name = element('span', { class: 'exercises-name' }, exercise.title);
      const kind = element('span', { class: 'exercise-kind' }, S.kinds[exercise.kind]);
      const status = element('span', { class: 'exercises-status' }, fill(S.progressLine, { outcome: S.outcomes[progress.outcome], attempts: progress.attempts, hints: progress.hintsUsed }));
      const button = element('button', { type: 'button', 'aria-label': `${S.open}: ${exercise.title}` }, S.open);
      button.addEventListener('click', () => openExercise(exercise.id));
      item.append(name, kind, status, button);
      return item;
    });
    list.replaceChildren(...items);
    section.hidden = items.length === 0 && !openId;
  }

  async function renderOpen(id) {
    const exercise = EXERCISE_BY_ID.get(id);
    if (!exercise) {
      open.replaceChildren();
      return;
    }
    const { renderExercise } = await import('./view.js');
    if (openId !== id) return; // another exercise was opened meanwhile
    await renderExercise(open, exercise, {
      allowedOrigins,
      onClose: () => openExercise(''),
      onProgress: () => renderList(shownStep),
    });
    section.dataset.ready = id;
  }

  return {
    /** Shows the step's exercises and the open one, as the state says; idempotent. */
    render(state) {
      allowedOrigins = state.origin;
      // An exercise belongs to its step: a link to it opens that step; leaving the step closes it. (After
      // this render: the page is in the middle of applying the state that got here.)
      const exercise = EXERCISE_BY_ID.get(state.exercise);
      const first = shownStep === null;
      if (exercise && exercise.step !== state.step) queueMicrotask(() => (first ? showStep(exercise.step) : openExercise('')));
      if (state.step !== shownStep) {
        shownStep = state.step;
        renderList(shownStep);
      }
      if (state.exercise !== openId) {
        openId = state.exercise;
        delete section.dataset.ready;
        renderOpen(openId);
        renderList(shownStep);
      }
    },
  };
}
