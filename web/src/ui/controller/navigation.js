// The ways the learner moves through the page: the view tabs, the pager, the steps' list, the backend menu, the
// arrow keys, a sideways swipe, and the browser's back and forward buttons.
import { go, loadStateFromUrl } from './load-state.js';

export function listenForNavigation(page) {
  const { shell } = page;
  for (const [link, view] of [[shell.playgroundTab, 'walk'], [shell.trainingTab, 'train'], [shell.modelTab, 'model']]) {
    link.addEventListener('click', (event) => {
      event.preventDefault();
      page.loadState({ view }, { push: true });
      ({ train: shell.trainingRoot, model: shell.modelRoot }[view] ?? shell.main).focus({ preventScroll: true });
    });
  }
  shell.previous.addEventListener('click', () => go(page, -1));
  shell.next.addEventListener('click', () => go(page, 1));
  shell.backendSelect.addEventListener('change', () => page.loadState({ backend: shell.backendSelect.value }, { fromControl: true }));
  for (const link of shell.tocLinks) {
    link.addEventListener('click', (event) => {
      event.preventDefault();
      page.loadState({ step: link.dataset.step }, { force: true });
    });
  }
  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    // Arrows belong to a focused control or menu (a text box, a select, a tab list, an open Export menu, a
    // button): they turn the page only from the page itself.
    if (event.target.closest?.('input, select, textarea, [contenteditable], button, summary, details[open], [role="tablist"], [role="menu"], [role="slider"], canvas')) return;
    if (page.state.view !== 'walk') return; // the arrows page through the walk's steps only
    if (event.key === 'ArrowLeft') go(page, -1);
    else if (event.key === 'ArrowRight') go(page, 1);
  });
  // Touch: a sideways swipe across the step turns the page, unless it starts on something that scrolls or
  // takes touches itself (a heatmap, the formula, the code, a control, the step chips).
  let swipe = null;
  shell.main.addEventListener('pointerdown', (event) => {
    const own = event.target.closest?.('canvas, input, select, textarea, button, summary, pre, .formula, .panels, .toc, .backends, .tooltip');
    swipe = event.pointerType === 'touch' && !own ? { x: event.clientX, y: event.clientY, at: event.timeStamp } : null;
  });
  shell.main.addEventListener('pointerup', (event) => {
    if (!swipe || event.pointerType !== 'touch' || page.state.embed) return;
    const dx = event.clientX - swipe.x;
    const dy = event.clientY - swipe.y;
    const quick = event.timeStamp - swipe.at < 800;
    swipe = null;
    if (quick && Math.abs(dx) > 70 && Math.abs(dx) > 2 * Math.abs(dy)) go(page, dx < 0 ? 1 : -1);
  });
  shell.main.addEventListener('pointercancel', () => { swipe = null; });

  window.addEventListener('popstate', () => loadStateFromUrl(page));
}
