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
  const modelTab = element('a', { href: '?view=model', 'data-view': 'model' }, STRINGS.realModel.tab);
  tabs.append(playgroundTab, trainingTab, modelTab);
  if (benchmarkUrl) tabs.append(element('a', { href: benchmarkUrl }, STRINGS.benchmark));
  // The backend, its GPU crossover and how it runs live in a settings panel; the header keeps the badge that
  // says which backend computed the step and how long it took.
  const backendBox = element('div', { class: 'backend' });
  const settings = element('details', { class: 'settings', 'data-settings': '' });
  const settingsBody = element('div', { class: 'settings-body' });
  const backendSelect = element('select', { id: 'backend-select', 'data-control': 'backend' });
  for (const name of BACKENDS) backendSelect.append(element('option', { value: name }, STRINGS.backendNames[name]));
  const backendField = element('p', { class: 'settings-field' });
  backendField.append(element('label', { for: 'backend-select' }, STRINGS.backendLabel), ' ', backendSelect);
  settingsBody.append(backendField);
  settings.append(element('summary', {}, STRINGS.settings), settingsBody);
  // Escape closes it, back on its summary; an open panel inside it (the GPU crossover) closes first. Heard on the
  // way down, before that panel's own handler closes it.
  settings.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !settings.open) return;
    const inner = event.target.closest('details');
    if (inner !== settings && inner?.open) return;
    settings.open = false;
    settings.querySelector(':scope > summary').focus();
  }, true);
  const badge = element('output', { class: 'badge', 'aria-live': 'polite', for: 'backend-select' }, STRINGS.loading);
  backendBox.append(badge, settings);
  header.append(brand, tabs, backendBox);

  const notices = element('div', { class: 'notices', role: 'status', 'aria-label': STRINGS.notices });

  const toc = element('nav', { class: 'toc', 'aria-label': STRINGS.contents });
  const tocTitle = element('h2', { class: 'toc-title' }, STRINGS.contents);
  const tocList = element('ol');
  const tocLinks = STEP_IDS.map((id) => {
    // The number on every chip; the title beside it on the current step's chip (and always to a screen reader).
    const link = element('a', { href: `?step=${id}`, 'data-step': id, title: STRINGS.steps[id].title });
    link.append(element('span', { class: 'toc-number' }, String(STEP_IDS.indexOf(id) + 1)), element('span', { class: 'toc-name' }, STRINGS.steps[id].title));
    const item = element('li');
    item.append(link);
    tocList.append(item);
    return link;
  });
  toc.append(tocTitle, tocList);

  const main = element('main', { id: 'step', tabindex: '-1' });
  const heading = element('div', { class: 'step-heading' });
  const stepCount = element('p', { class: 'step-count' });
  const title = element('h2', { class: 'step-title' });
  heading.append(stepCount, title);
  // The explanation's first sentences; the rest behind "read more" (app.js splits the text).
  const intro = element('div', { class: 'intro' });
  const explanation = element('div', { class: 'explanation' });
  const explanationLead = element('p', { class: 'explanation-lead' });
  const readMore = element('details', { class: 'read-more' });
  const readMoreText = element('p');
  readMore.append(element('summary', {}, STRINGS.readMore), readMoreText);
  explanation.append(explanationLead, readMore);
  // Wide formulas and code scroll sideways inside named regions a keyboard can reach (and scroll).
  const formula = element('div', { class: 'formula', role: 'region', tabindex: '0', 'aria-label': STRINGS.views.formulaRegion });
  const symbols = element('p', { class: 'symbols' });
  // A trained model's notes (what x and W are, why sizes are locked), under the formula where the page is wide;
  // on a phone the Weights switch's fold holds them (model-switch.js).
  const trainedNotes = element('div', { class: 'trained-notes' });
  intro.append(explanation, formula, symbols, trainedNotes);
  const cellMath = createCellMath();
  // The code, under the picture, in tabs (C++ | PyTorch), one shown at a time; folded on a phone.
  const code = element('details', { class: 'code' });
  code.append(element('summary', { class: 'code-summary' }, STRINGS.views.codeSummary));
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
  const tabList = element('div', { class: 'code-tabs', role: 'tablist', 'aria-label': STRINGS.views.codeTabs });
  const codeTabs = [];
  for (const [key, label, pre, extra] of [['cpp', STRINGS.codeCpp, cpp, null], ['torch', STRINGS.codeTorch, torch, copyTorch]]) {
    const tab = element('button', { type: 'button', role: 'tab', id: `code-tab-${key}`, 'aria-controls': `code-panel-${key}`, 'data-code-tab': key }, STRINGS.views.codeTabNames[key]);
    const figure = element('figure', { role: 'tabpanel', id: `code-panel-${key}`, 'aria-labelledby': `code-tab-${key}` });
    const caption = element('figcaption', {}, label);
    if (extra) caption.append(' ', extra);
    figure.append(caption, pre);
    tabList.append(tab);
    code.append(figure);
    codeTabs.push({ key, tab, figure });
  }
  code.insertBefore(tabList, code.children[1]);
  const selectCodeTab = (key, focus = false) => {
    for (const entry of codeTabs) {
      const selected = entry.key === key;
      entry.tab.setAttribute('aria-selected', String(selected));
      entry.tab.tabIndex = selected ? 0 : -1;
      entry.figure.hidden = !selected;
      if (selected && focus) entry.tab.focus();
    }
  };
  selectCodeTab('cpp');
  tabList.addEventListener('click', (event) => {
    const tab = event.target.closest?.('[data-code-tab]');
    if (tab) selectCodeTab(tab.dataset.codeTab);
  });
  // The tab pattern's keys: ←/→ move between the two tabs (and never turn the page).
  tabList.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    event.stopPropagation();
    const current = codeTabs.findIndex((entry) => entry.tab.getAttribute('aria-selected') === 'true');
    selectCodeTab(codeTabs[(current + 1) % codeTabs.length].key, true);
  });
  // Open on a wide screen, folded on a phone (the picture comes first there).
  code.open = typeof matchMedia !== 'function' || matchMedia('(min-width: 861px)').matches;
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
  // The controls fold on a phone (closed), so that the picture is on the first screen; open elsewhere.
  const controlsFold = element('details', { class: 'controls-fold' });
  controlsFold.append(element('summary', { class: 'controls-summary' }, STRINGS.controls));
  const controls = element('div', { class: 'controls-slot' });
  controlsFold.append(controls);
  controlsFold.open = typeof matchMedia !== 'function' || matchMedia('(min-width: 861px)').matches;
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
  // Reading order, which is also the tab order: explanation, controls, picture, code.
  // The step list sits in the heading row, a strip of numbered chips; the controls beside the explanation.
  heading.append(toc);
  const top = element('div', { class: 'step-top' });
  top.append(intro, controlsFold);
  // Step 10 with model=trained: the English model's heads (trained/heads-panel.js).
  const headsSlot = element('div', { class: 'heads-slot' });
  main.append(heading, top, error, results, viewTools, headsSlot, learnSlot, code, exercises, pager);

  const layout = element('div', { class: 'layout' });
  layout.append(main);
  // The Training tab (view=train), filled in when first opened.
  const trainingRoot = element('main', { class: 'training-root', id: 'training', tabindex: '-1' });
  trainingRoot.hidden = true;
  // The Real model view (view=model), filled in when first opened.
  const modelRoot = element('main', { class: 'model-root', id: 'real-model', tabindex: '-1' });
  modelRoot.hidden = true;
  root.append(skip, header, notices, layout, trainingRoot, modelRoot);
  const writeTorch = (snippet) => writeLines(torch, snippet);
  return { playgroundTab, trainingTab, modelTab, modelRoot, learnSlot, headsSlot, trainingRoot, header, backendSelect, badge, settings, settingsBody, notices, toc, tocLinks, main, stepCount, title, explanation, explanationLead, readMore, readMoreText, formula, symbols, trainedNotes, selectCodeTab, cellMath, cpp, torch, writeTorch, code, controls, error, viewTools, scaleSelect, scaleField, figureSvgButton, figurePngButton, results, exercises, previous, next };
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

/**
 * A step's explanation as its lead (its first sentences: at most three, and no more than about four lines
 * beside the controls) and the rest, behind "read more". A sentence ends at ". ", "! " or "? " before a
 * capital, a digit or an opening bracket or quote.
 */
export function splitExplanation(text, sentences = 3, characters = 300) {
  const ends = [...text.matchAll(/[.!?](?=\s+[A-Z0-9“"(−])/g)].map((m) => m.index + 1);
  let cut = text.length;
  for (let i = 0; i < Math.min(sentences, ends.length + 1); i++) {
    const end = ends[i] ?? text.length;
    if (i > 0 && end > characters) break;
    cut = end;
    if (i === sentences - 1) break;
  }
  return { lead: text.slice(0, cut), more: text.slice(cut).trim() };
}
