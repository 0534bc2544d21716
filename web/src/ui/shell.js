// The page's fixed frame, built once: header (title, tabs, backend choice and badge), notices, the
// table of contents, the step's article with slots the stepper fills, and the pager. Text only goes
// in through textContent.
import { BACKENDS, STEP_IDS } from './state.js';
import { STRINGS, format } from './strings.js';
import { createCellMath } from './cell-math.js';
import { SCALE_MODES } from './colormap.js';
import { element } from './dom-sync.js';

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
  // Wide formulas and code scroll sideways inside named regions a keyboard can reach (and scroll).
  const formula = element('div', { class: 'formula', role: 'region', tabindex: '0', 'aria-label': STRINGS.views.formulaRegion });
  const cellMath = createCellMath();
  const code = element('div', { class: 'code' });
  const cpp = element('pre', { tabindex: '0', role: 'region', 'aria-label': format(STRINGS.views.codeRegion, { language: STRINGS.codeCpp }) });
  const torch = element('pre', { tabindex: '0', role: 'region', 'aria-label': format(STRINGS.views.codeRegion, { language: STRINGS.codeTorch }) });
  const copyTorch = element('button', { type: 'button', class: 'copy', 'data-action': 'copy-torch' }, STRINGS.copy);
  copyTorch.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(torch.textContent);
      copyTorch.textContent = STRINGS.copied;
    } catch {
      // No clipboard (an insecure origin, a refused permission): select the text for Ctrl+C instead.
      getSelection().selectAllChildren(torch);
      copyTorch.textContent = STRINGS.copySelected;
    }
    setTimeout(() => { copyTorch.textContent = STRINGS.copy; }, 2000);
  });
  for (const [label, pre, extra] of [[STRINGS.codeCpp, cpp, null], [STRINGS.codeTorch, torch, copyTorch]]) {
    const figure = element('figure');
    const caption = element('figcaption', {}, label);
    if (extra) caption.append(' ', extra);
    figure.append(caption, pre);
    code.append(figure);
  }
  // The results' tools: the weights' colour scale and the whole step as one picture for slides.
  const viewTools = element('div', { class: 'view-tools' });
  const scaleField = element('label', { class: 'scale-field' });
  const scaleSelect = element('select', { 'data-view-control': 'colour-scale' });
  for (const mode of SCALE_MODES) scaleSelect.append(element('option', { value: mode }, STRINGS.views.scaleModes[mode]));
  scaleField.append(element('span', {}, STRINGS.views.colourScale), scaleSelect);
  const figureExport = element('span', { class: 'figure-export', role: 'group', 'aria-label': STRINGS.views.exportFigure });
  const figureSvgButton = element('button', { type: 'button', 'data-export-figure': 'svg' }, STRINGS.views.exportFigureSvg);
  const figurePngButton = element('button', { type: 'button', 'data-export-figure': 'png' }, STRINGS.views.exportFigurePng);
  figureExport.append(element('span', { class: 'figure-export-label' }, STRINGS.views.exportFigure), figureSvgButton, figurePngButton);
  viewTools.append(scaleField, figureExport);
  const controls = element('div', { class: 'controls-slot' });
  const error = element('p', { class: 'error', role: 'alert' });
  error.hidden = true;
  const results = element('div', { class: 'results' });
  const pager = element('nav', { class: 'pager', 'aria-label': STRINGS.stepNavigation });
  const previous = element('button', { type: 'button', class: 'previous', 'data-action': 'previous' }, STRINGS.previous);
  const next = element('button', { type: 'button', class: 'next', 'data-action': 'next' }, STRINGS.next);
  pager.append(previous, element('span', { class: 'keys-hint' }, STRINGS.arrowKeys), next);
  const exercises = element('section', { class: 'exercises' });
  // Step 12's live demo (training/view.js) sits below the results.
  const learnSlot = element('div', { class: 'learn-slot' });
  // Step 10 with model=trained: the English model's heads (trained/heads-panel.js).
  const headsSlot = element('div', { class: 'heads-slot' });
  main.append(stepCount, title, explanation, formula, cellMath.node, code, controls, error, viewTools, results, headsSlot, learnSlot, exercises, pager);

  const layout = element('div', { class: 'layout' });
  layout.append(toc, main);
  // The Training tab (view=train), filled in when first opened.
  const trainingRoot = element('main', { class: 'training-root', id: 'training', tabindex: '-1' });
  trainingRoot.hidden = true;
  root.append(skip, header, notices, layout, trainingRoot);
  const writeTorch = (snippet) => writeLines(torch, snippet);
  return { playgroundTab, trainingTab, learnSlot, headsSlot, trainingRoot, header, backendSelect, badge, notices, toc, tocLinks, main, stepCount, title, explanation, formula, cellMath, cpp, torch, writeTorch, code, controls, error, viewTools, scaleSelect, scaleField, figureSvgButton, figurePngButton, results, exercises, previous, next };
}

// A code panel's text, one element per line, each with its line break: the panel's text is the snippet as written
// (the copy button copies it), and a new snippet rewrites only the lines that differ. At T=32, d=64 the PyTorch
// panel holds x's 2,048 values; a T change leaves its other rows' text nodes as they were, so the browser keeps
// their shaped text, where one text node for the whole panel had all of it shaped and laid out again.
function writeLines(pre, text) {
  const lines = text.split('\n');
  if (pre.childNodes.length !== pre.children.length) pre.replaceChildren(); // text written some other way
  lines.forEach((line, i) => {
    const wanted = i < lines.length - 1 ? `${line}\n` : line;
    const node = pre.children[i];
    if (!node) pre.append(element('span', {}, wanted));
    else if (node.textContent !== wanted) node.textContent = wanted;
  });
  while (pre.children.length > lines.length) pre.lastElementChild.remove();
}

/** Writes the step's count line. */
export function stepCountText(number) {
  return format(STRINGS.stepOf, { number, count: STEP_IDS.length });
}
