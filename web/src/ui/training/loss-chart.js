// The loss curve: uPlot, log-scaled y, training loss at every step and the held-out loss where it was
// measured. The legend shows the values at the last step (hover: at the step under the pointer; the held-out
// loss is the last one measured at or before it), plus a table of the same numbers for screen readers, built
// when opened.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { STRINGS } from '../strings.js';
import { element } from '../dom-sync.js';

const S = STRINGS.training;

const fmt = (v) => (v == null ? '—' : v.toPrecision(4));
/** The series' value at idx, or the last one measured before it (the held-out loss is measured every few steps). */
function valueAt(values, idx) {
  if (!values || idx == null) return null;
  for (let i = Math.min(idx, values.length - 1); i >= 0; i--) if (values[i] != null) return values[i];
  return null;
}
const legendValue = (u, v, seriesIndex, idx) => fmt(v ?? valueAt(u.data[seriesIndex], idx));

export function createLossChart({ width = 560, height = 220 } = {}) {
  const node = element('figure', { class: 'loss-chart' });
  const caption = element('figcaption', {}, S.lossTitle);
  const plotBox = element('div', { class: 'loss-plot', role: 'img', 'aria-label': S.lossTitle });
  const details = element('details', { class: 'loss-table' });
  details.append(element('summary', {}, S.lossTable));
  node.append(caption, plotBox, details);
  let steps = [];
  let train = [];
  let held = [];
  let loaded = null;
  let plot = null;

  function series() {
    const list = [
      {},
      { label: S.lossTrain, stroke: '#3b6fd8', width: 1.5, value: legendValue },
      { label: S.lossHeld, stroke: '#d8703b', width: 2, spanGaps: true, points: { show: true, size: 4 }, value: legendValue },
    ];
    if (loaded) list.push({ label: 'loaded run', stroke: '#888', dash: [4, 4], width: 1, value: legendValue });
    return list;
  }

  function data() {
    const positive = (v) => (v == null ? null : Math.max(v, 1e-6)); // a log scale has no 0
    const out = [steps, train.map(positive), held.map(positive)];
    if (loaded) out.push(steps.map((s) => positive(loaded[s - 1] ?? null)));
    return out;
  }

  function build(w) {
    plot?.destroy();
    plot = new uPlot({
      width: w, height,
      scales: { x: { time: false }, y: { distr: 3 } },
      axes: [{ label: S.lossStep }, { values: (u, vals) => vals.map((v) => (v == null ? '' : String(+v.toPrecision(2)))) }],
      series: series(),
      cursor: { drag: { x: false, y: false } },
    }, data(), plotBox);
  }

  function fillTable() {
    const table = element('table');
    const head = element('tr');
    for (const title of [S.lossStep, S.lossTrain, S.lossHeld]) head.append(element('th', { scope: 'col' }, title));
    table.append(element('thead'), element('tbody'));
    table.tHead.append(head);
    // Every held-out point and the training loss there; at most ~200 rows.
    const every = Math.max(1, Math.ceil(steps.length / 200));
    steps.forEach((s, i) => {
      if (held[i] == null && i % every !== 0) return;
      const row = element('tr');
      row.append(element('td', {}, String(s)), element('td', {}, fmt(train[i])), element('td', {}, fmt(held[i])));
      table.tBodies[0].append(row);
    });
    details.querySelector('table')?.remove();
    details.append(table);
  }
  details.addEventListener('toggle', () => { if (details.open) fillTable(); });

  // Not hovering: the legend shows the last step's values (uPlot's own shows none without a pointer).
  let hovering = false;
  plotBox.addEventListener('mouseenter', () => { hovering = true; });
  plotBox.addEventListener('mouseleave', () => { hovering = false; setTimeout(showLast, 0); }); // after uPlot's own leave
  function showLast() {
    if (plot && !hovering && steps.length) plot.setLegend({ idx: steps.length - 1 });
  }

  let scheduled = false;
  function redraw() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      if (!plot) build(Math.max(260, Math.min(width, plotBox.clientWidth || width)));
      else plot.setData(data());
      showLast();
      if (details.open) fillTable();
    });
  }

  return {
    node,
    /** Replaces the whole history: losses[i] is step i+1's training loss; evals: [[step, loss]]. */
    setHistory(losses, evals) {
      steps = losses.map((_, i) => i + 1);
      train = [...losses];
      held = new Array(losses.length).fill(null);
      for (const [s, l] of evals) if (s >= 1 && s <= losses.length) held[s - 1] = l;
      redraw();
    },
    setLoaded(losses) {
      loaded = losses;
      plot?.destroy();
      plot = null;
      redraw();
    },
    resize(w) {
      if (plot) plot.setSize({ width: Math.max(260, Math.min(width, w)), height });
    },
  };
}
