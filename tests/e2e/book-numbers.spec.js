// Every tensor seed 003 (Raschka, ch. 3, §3.3–3.6) prints that the page shows (tests/fixtures/bookNumbers.json,
// docs/book-numbers.md), compared with the page's own tables at four decimals. One page, stepped through with
// setState: each entry's step and the parameters it names; what the previous entry named goes back to the default.
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { afterRender, openPage, watchConsole } from './page-helpers.js';
import { defaultsFor } from '../../web/src/ui/state.js';

const TABLE = JSON.parse(readFileSync(new URL('../fixtures/bookNumbers.json', import.meta.url), 'utf8'));

/** The rows of a shown tensor's table, as numbers (−∞ as -Infinity). */
async function tableRows(page, tensor) {
  return page.locator(`table[data-tensor="${tensor}"]`).first().evaluate((table) => [...table.querySelectorAll('tbody tr')]
    .map((tr) => [...tr.querySelectorAll('td')].map((td) => {
      const text = td.textContent.trim().replace('−', '-');
      return text === '-∞' ? -Infinity : Number(text);
    })));
}

test('every number seed 003 prints in §3.3–3.6 that the page shows, at four decimals', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, `?step=${TABLE.shown[0].step}`);
  let named = {};
  const checked = [];
  for (const entry of TABLE.shown) {
    const defaults = defaultsFor(entry.step);
    const wanted = { step: entry.step, ...Object.fromEntries(Object.keys(named).map((key) => [key, defaults[key]])), ...entry.query };
    named = entry.query ?? {};
    const current = await page.evaluate(() => window.attentionPlayground.getState());
    if (Object.entries(wanted).some(([key, value]) => current[key] !== value)) {
      await afterRender(page, () => page.evaluate((changes) => window.attentionPlayground.setState(changes), wanted));
    }
    const rows = await tableRows(page, entry.tensor);
    const what = `§${entry.section} ${entry.printed}: ${entry.step} “${entry.tensor}”`;
    entry.values.forEach((bookRow, i) => {
      const shown = rows[entry.rows?.[i] ?? i];
      expect(shown, `${what}: row ${entry.rows?.[i] ?? i}`).toBeDefined();
      const columns = entry.cols ?? bookRow.map((_, j) => j);
      expect(columns.map((j) => shown[j]), what).toEqual(bookRow.map((v) => (v === '-inf' ? -Infinity : v)));
    });
    checked.push(what);
  }
  expect(checked).toHaveLength(TABLE.shown.length);
  expect(problems).toEqual([]);
});
