// The page's fixed frame, built once: header (title, tabs, backend choice and badge), notices, the
// table of contents, the step's article with slots the stepper fills, and the pager. Text only goes
// in through textContent.
import { BACKENDS, STEP_IDS } from './state.js';
import { STRINGS, format } from './strings.js';

function element(tag, attributes = {}, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

/**
 * Builds the frame into `root`.
 * @param {{benchmarkUrl: string|null}} options where the Benchmark tab points (null: no tab)
 * @returns {object} the nodes the app fills in
 */
export function createShell(root, { benchmarkUrl }) {
  root.replaceChildren();
  const skip = element('a', { class: 'skip', href: '#step' }, STRINGS.skipToStep);

  const header = element('header', { class: 'top' });
  const brand = element('div', { class: 'brand' });
  brand.append(element('h1', {}, STRINGS.title), element('p', { class: 'subtitle' }, STRINGS.subtitle));
  const tabs = element('nav', { class: 'tabs', 'aria-label': STRINGS.sections });
  const playgroundTab = element('a', { href: '?', 'aria-current': 'page', 'data-view': 'walk' }, STRINGS.playground);
  const trainingTab = element('a', { href: '?view=train', 'data-view': 'train' }, STRINGS.training.tab);
  tabs.append(playgroundTab, trainingTab);
  if (benchmarkUrl) tabs.append(element('a', { href: benchmarkUrl }, STRINGS.benchmark));
  const backendBox = element('div', { class: 'backend' });
  const backendSelect = element('select', { id: 'backend-select', 'data-control': 'backend' });
  for (const name of BACKENDS) backendSelect.append(element('option', { value: name }, STRINGS.backendNames[name]));
  const badge = element('output', { class: 'badge', 'aria-live': 'polite', for: 'backend-select' }, STRINGS.loading);
  backendBox.append(element('label', { for: 'backend-select' }, STRINGS.backendLabel), backendSelect, badge);
  header.append(brand, tabs, backendBox);

  const notices = element('div', { class: 'notices', role: 'status', 'aria-label': STRINGS.notices });

  const toc = element('nav', { class: 'toc', 'aria-label': STRINGS.contents });
  const tocTitle = element('h2', { class: 'toc-title' }, STRINGS.contents);
  const tocList = element('ol');
  const tocLinks = STEP_IDS.map((id) => {
    const link = element('a', { href: `?step=${id}`, 'data-step': id }, STRINGS.steps[id].title);
    const item = element('li');
    item.append(link);
    tocList.append(item);
    return link;
  });
  toc.append(tocTitle, tocList);

  const main = element('main', { id: 'step', tabindex: '-1' });
  const stepCount = element('p', { class: 'step-count' });
  const title = element('h2', { class: 'step-title' });
  const explanation = element('p', { class: 'explanation' });
  const formula = element('div', { class: 'formula', 'aria-label': STRINGS.formula });
  const code = element('div', { class: 'code' });
  const cpp = element('pre');
  const torch = element('pre');
  for (const [label, pre] of [[STRINGS.codeCpp, cpp], [STRINGS.codeTorch, torch]]) {
    const figure = element('figure');
    figure.append(element('figcaption', {}, label), pre);
    code.append(figure);
  }
  const controls = element('div', { class: 'controls-slot' });
  const error = element('p', { class: 'error', role: 'alert' });
  error.hidden = true;
  const results = element('div', { class: 'results' });
  const pager = element('nav', { class: 'pager', 'aria-label': STRINGS.stepNavigation });
  const previous = element('button', { type: 'button', class: 'previous', 'data-action': 'previous' }, STRINGS.previous);
  const next = element('button', { type: 'button', class: 'next', 'data-action': 'next' }, STRINGS.next);
  pager.append(previous, next);
  // Step 12's live demo (training/view.js) sits below the results.
  const learnSlot = element('div', { class: 'learn-slot' });
  main.append(stepCount, title, explanation, formula, code, controls, error, results, learnSlot, pager);

  const layout = element('div', { class: 'layout' });
  layout.append(toc, main);
  // The Training tab (view=train), filled in when first opened.
  const trainingRoot = element('main', { class: 'training-root', id: 'training', tabindex: '-1' });
  trainingRoot.hidden = true;
  root.append(skip, header, notices, layout, trainingRoot);
  return { playgroundTab, trainingTab, learnSlot, trainingRoot, header, backendSelect, badge, notices, toc, tocLinks, main, stepCount, title, explanation, formula, cpp, torch, code, controls, error, results, previous, next };
}

/** Writes the step's count line. */
export function stepCountText(number) {
  return format(STRINGS.stepOf, { number, count: STEP_IDS.length });
}
