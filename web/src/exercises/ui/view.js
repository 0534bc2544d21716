// One exercise on the page: prompt, the entry function's contract, an editor (write, fix) or answer
// controls (predict), Check / Hint / Reveal solution, the outcome, and on a failure the first differing
// cell with a heatmap of the difference. Loaded with a dynamic import when an exercise opens.
import { DEFAULT_TOLERANCE } from '../bank/index.js';
import { judge, prepareCases } from '../grade-core.js';
import { referenceCore } from '../core.js';
import { createAnswer } from './answers.js';
import { differenceHeatmap } from './heatmap.js';
import { emitExerciseEvent } from './events.js';
import { progressOf, updateProgress } from './progress.js';
import { createSandbox } from './sandbox.js';
import { EXERCISE_STRINGS as S, fill } from './strings.js';

const TIME_LIMIT_MS = 3000;

const element = (tag, attributes = {}, text = null) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
};

const formatNumber = (v) => (typeof v === 'number' ? (Number.isFinite(v) ? Number(v.toPrecision(6)).toString() : String(v)) : String(v));

let sandbox = null;

/**
 * Renders `exercise` into `container`.
 * @param {{allowedOrigins: string[], onClose: () => void, onProgress: () => void}} options
 */
export async function renderExercise(container, exercise, { allowedOrigins, onClose, onProgress }) {
  sandbox ??= createSandbox(document.body);
  const core = referenceCore();
  const prepared = prepareCases(exercise, core);
  let progress = progressOf(exercise.id);

  const headingId = `exercise-title-${exercise.id.replace(/[^a-z0-9]/g, '-')}`;
  const article = element('article', { class: 'exercise', 'data-exercise': exercise.id, 'data-kind': exercise.kind, 'aria-labelledby': headingId });
  const header = element('div', { class: 'exercise-header' });
  const title = element('h3', { id: headingId }, exercise.title);
  const kind = element('span', { class: 'exercise-kind' }, `${S.kinds[exercise.kind]}${exercise.seed ? ` · ${exercise.seed}` : ''}`);
  const close = element('button', { type: 'button', class: 'exercise-close' }, S.close);
  close.addEventListener('click', onClose);
  header.append(title, kind, close);
  const prompt = element('p', { class: 'exercise-prompt' }, exercise.prompt);
  const params = [...exercise.entry.params, ...(exercise.entry.options ? [exercise.entry.options] : [])].join(', ');
  const signature = element('p', { class: 'exercise-signature' }, fill(S.signature, { name: exercise.entry.name, params, returns: exercise.entry.returns }));

  const work = element('div', { class: 'exercise-work' });
  let editor = null;
  let answer = null;
  if (exercise.kind === 'predict') {
    answer = createAnswer(exercise, progress.draft, { core, inputs: prepared[0].inputs });
    work.append(answer.node);
  } else {
    const { createEditor } = await import('./editor.js');
    editor = createEditor(work, {
      doc: typeof progress.draft === 'string' ? progress.draft : exercise.starter,
      label: fill(S.editorLabel, { title: exercise.title }),
      onChange: (text) => { progress = updateProgress(exercise.id, { draft: text }); },
    });
  }

  const actions = element('div', { class: 'exercise-actions' });
  const check = element('button', { type: 'button', class: 'exercise-check' }, S.check);
  const hint = element('button', { type: 'button', class: 'exercise-hint' }, S.hint);
  const reveal = element('button', { type: 'button', class: 'exercise-reveal' }, S.reveal);
  actions.append(check, hint, reveal);
  const outcome = element('p', { class: 'exercise-outcome', role: 'status', 'aria-live': 'polite' });
  const hints = element('ol', { class: 'exercise-hints', 'aria-label': S.hint });
  const result = element('div', { class: 'exercise-result' });
  const solution = element('section', { class: 'exercise-solution', 'aria-label': S.solutionTitle });
  solution.hidden = true;

  article.append(header, prompt, signature, work, actions, outcome, hints, result, solution);
  container.replaceChildren(article);

  const showOutcome = () => {
    outcome.dataset.outcome = progress.outcome;
    outcome.textContent = fill(S.progressLine, { outcome: S.outcomes[progress.outcome], attempts: progress.attempts, hints: progress.hintsUsed });
  };
  const showHints = () => {
    hints.replaceChildren(...exercise.hints.slice(0, progress.hintsUsed).map((text, i) => element('li', {}, `${fill(S.hintOf, { level: i + 1, count: exercise.hints.length })}: ${text}`)));
    hint.disabled = progress.hintsUsed >= exercise.hints.length;
    hint.textContent = hint.disabled ? S.noMoreHints : S.hint;
  };
  const showSolution = () => {
    const pre = element('pre', {}, exercise.solution);
    const children = [element('h4', {}, S.solutionTitle), pre];
    if (editor) {
      const use = element('button', { type: 'button', class: 'exercise-use-solution' }, S.useSolution);
      use.addEventListener('click', () => { editor.value = exercise.solution; });
      children.push(use);
    } else {
      answer.show(prepared[0].expected);
    }
    solution.replaceChildren(...children);
    solution.hidden = false;
  };
  const event = (action) => {
    emitExerciseEvent(allowedOrigins, { id: exercise.id, action, outcome: progress.outcome, attempts: progress.attempts });
    onProgress?.();
  };
  showOutcome();
  showHints();
  if (progress.solutionRevealed) showSolution();

  hint.addEventListener('click', () => {
    progress = updateProgress(exercise.id, { hintsUsed: Math.min(exercise.hints.length, progress.hintsUsed + 1) });
    showHints();
    showOutcome();
    event('hint');
  });
  reveal.addEventListener('click', () => {
    progress = updateProgress(exercise.id, { solutionRevealed: true });
    showSolution();
    event('solution');
  });
  check.addEventListener('click', async () => {
    check.disabled = true;
    check.textContent = S.checking;
    const source = editor ? editor.value : answer.source();
    if (answer) progress = updateProgress(exercise.id, { draft: answer.values() });
    let reply;
    try {
      reply = await sandbox.run(source, prepared.map((c) => ({ args: c.args, options: c.options })), { timeoutMs: TIME_LIMIT_MS });
    } catch (error) {
      reply = { error: fill(S.sandboxFailed, { reason: error.message }) };
    }
    const run = reply.timedOut ? { error: fill(S.timeLimit, { seconds: TIME_LIMIT_MS / 1000 }) } : reply;
    const verdict = judge(exercise, prepared, run);
    progress = updateProgress(exercise.id, { attempts: progress.attempts + 1, outcome: verdict.outcome, passed: progress.passed || verdict.outcome === 'pass' });
    renderVerdict(result, exercise, prepared, verdict, run);
    showOutcome();
    check.disabled = false;
    check.textContent = S.check;
    event('check');
  });
  return article;
}

function renderVerdict(result, exercise, prepared, verdict, run) {
  const nodes = [];
  if (verdict.error) nodes.push(element('p', { class: 'exercise-error', role: 'alert' }, fill(S.stopped, { reason: verdict.error })));
  const list = element('ul', { class: 'exercise-cases' });
  for (const c of verdict.cases) {
    const text = c.pass ? fill(S.casePass, { error: formatNumber(c.maxAbsError) }) : c.error ? `${S.caseFail}: ${c.error}` : S.caseFail;
    list.append(element('li', { 'data-pass': String(c.pass) }, fill(S.caseResult, { input: c.input, result: text })));
  }
  if (!verdict.error) nodes.push(list);
  const first = verdict.firstMismatch;
  const caseVerdict = first ? verdict.cases[first.case] : null;
  if (caseVerdict?.firstMismatch) {
    const tolerance = exercise.tolerance ?? DEFAULT_TOLERANCE;
    const m = caseVerdict.firstMismatch;
    nodes.push(element('p', { class: 'exercise-mismatch' }, fill(S.firstMismatch, {
      input: caseVerdict.input, position: m.position.join(', '), actual: formatNumber(m.actual), expected: formatNumber(m.expected), atol: tolerance.atol, rtol: tolerance.rtol,
    })));
    const label = fill(S.heatmapLabel, { input: caseVerdict.input });
    const figure = element('figure', { class: 'exercise-diff' });
    figure.append(differenceHeatmap(run.results[first.case].output, prepared[first.case].expected, m.index, label), element('figcaption', {}, label));
    nodes.push(figure);
  }
  result.replaceChildren(...nodes);
}
