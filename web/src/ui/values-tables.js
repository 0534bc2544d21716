// A tensor's values as tables for screen readers: small tensors carry them hidden in their figure, big
// ones behind a disclosure that builds them when opened.
import { formatValue } from './heatmap-draw.js';
import { setText } from './dom-sync.js';
import { shapeText } from './tensor-labels.js';
import { STRINGS, format } from './strings.js';

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

// The screen-reader table of one panel, as HTML: tens of thousands of cells parse far faster than
// they can be created node by node, and the text says whether anything changed since the last repaint.
export function valuesTableHtml(view, panel, className = 'sr-only') {
  const label = (labels, i) => escapeHtml(labels ? labels[i] : String(i));
  const parts = [`<table class="${className}" data-tensor="${escapeHtml(view.name)}" data-panel="${panel.index}">`,
    `<caption>${escapeHtml(`${view.name} ${shapeText(view)}${panel.title ? `, ${panel.title}` : ''}`)}</caption><thead><tr><th scope="col">${panel.rowLabels ? 'token' : 'row'}</th>`];
  for (let c = 0; c < panel.cols; c++) parts.push(`<th scope="col">${label(panel.colLabels, c)}</th>`);
  parts.push('</tr></thead><tbody>');
  for (let r = 0; r < panel.rows; r++) {
    parts.push(`<tr><th scope="row">${label(panel.rowLabels, r)}</th>`);
    for (let c = 0; c < panel.cols; c++) parts.push(`<td>${formatValue(panel.values[r * panel.cols + c])}</td>`);
    parts.push('</tr>');
  }
  parts.push('</tbody></table>');
  return parts.join('');
}

// The screen-reader tables of a small tensor. Tables of the same shape and labels as the last repaint's keep
// their elements, and only the cells whose text changed are written: writing them anew as HTML parsed, styled
// and laid out a few hundred elements per repaint (the largest share of a temperature change's frame at T=6).
export function updateEagerTables(entry, view, panels) {
  const shape = JSON.stringify([view.name, shapeText(view), panels.map((p) => [p.index, p.title, p.rows, p.cols]), panels[0]?.rowLabels, panels[0]?.colLabels]);
  if (entry.tablesShape !== shape) {
    entry.tables.innerHTML = panels.map((panel) => valuesTableHtml(view, panel, 'values-sr')).join('');
    entry.tablesShape = shape;
    entry.tableCells = [...entry.tables.querySelectorAll('table')].map((table) => [...table.querySelectorAll('tbody td')]);
    return;
  }
  panels.forEach((panel, p) => {
    const cells = entry.tableCells[p];
    for (let i = 0; i < cells.length; i++) {
      setText(cells[i], formatValue(panel.values[i]));
    }
  });
}

export function updateLazyTables(entry, view, valuesChanged) {
  setText(entry.summary, format(STRINGS.valuesTable, { count: entry.current.panels.reduce((n, p) => n + p.rows * p.cols, 0) }));
  if (!valuesChanged) return;
  for (const table of [...entry.details.querySelectorAll('table')]) table.remove();
  if (entry.details.open) {
    entry.details.insertAdjacentHTML('beforeend', entry.current.panels.map((panel) => valuesTableHtml(view, panel, 'values-table')).join(''));
  }
}
