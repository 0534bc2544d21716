// What repaints the picture without changing the state: the column's width, the colour scheme, the colour
// scale switch; and the picture's export buttons and the pointed cell's computation under the formula.
import { STEP_BY_ID } from '../steps.js';
import { setScaleMode } from '../tensor-view.js';
import { onInspect } from '../cell-inspection.js';
import { exportStepFigure } from '../figure-export.js';
import { STRINGS } from '../strings.js';

// The width heatmaps may use (page.availableWidth), kept up to date by a ResizeObserver: reading clientWidth
// while drawing would force a layout of the whole page in the middle of every repaint.
// The content box, as the observer reports it: clientWidth counts main's padding (56 px at 1280), and
// that difference alone once made the observer's first report schedule a second full repaint about
// 200 ms after start-up, which closed a cell editor opened by then (the repaint replaced its panel).
export function watchWidth(page) {
  const { shell } = page;
  const mainStyle = getComputedStyle(shell.main);
  page.availableWidth = (shell.main.clientWidth - parseFloat(mainStyle.paddingLeft) - parseFloat(mainStyle.paddingRight)) || 800;
  let resizeTimer = null;
  new ResizeObserver(([entry]) => {
    const width = entry.contentRect.width;
    if (!width || Math.abs(width - page.availableWidth) < 24) return;
    page.availableWidth = width;
    // Heatmaps are sized to the column: redraw once the window has settled (a phone turned sideways).
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (page.latestRun) page.repaint(); }, 200);
  }).observe(shell.main);
}

export function attachViewTools(page) {
  const { shell } = page;
  // Colour maps follow the colour scheme; redraw when the reader switches it.
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => page.repaint());
  // Values in the formula: the inspected weight's computation under the formula.
  // The pointed cell's computation goes into the box beside the cell (cell-inspection.js).
  onInspect((view, panel, row, col) => (shell.cellMath.show(view, panel, row, col) ? shell.cellMath.node : null));
  shell.scaleSelect.addEventListener('change', () => {
    setScaleMode(shell.scaleSelect.value);
    if (page.latestRun) page.repaint();
  });
  for (const [button, kind] of [[shell.figureSvgButton, 'svg'], [shell.figurePngButton, 'png']]) {
    button.addEventListener('click', () => {
      const step = STEP_BY_ID.get(page.state.step);
      exportStepFigure(`${step.number}. ${STRINGS.steps[step.id].title}`, kind, `step-${step.number}-${step.id}`).catch(page.showError);
    });
  }
}
