// docs/book-numbers.md is generated from tests/fixtures/bookNumbers.json (scripts/book-numbers.mjs); the page's
// side of the table is tests/e2e/book-numbers.spec.js.
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { bookNumbersMarkdown } from '../../scripts/book-numbers.mjs';
import { STEP_IDS } from '../../web/src/ui/state.js';

const TABLE = JSON.parse(readFileSync(new URL('../fixtures/bookNumbers.json', import.meta.url), 'utf8'));

test('docs/book-numbers.md is the table, regenerated (node scripts/book-numbers.mjs)', () => {
  expect(readFileSync(new URL('../../docs/book-numbers.md', import.meta.url), 'utf8')).toBe(bookNumbersMarkdown(TABLE));
});

test('every shown entry names a step, a tensor and rectangular values; every other one says why', () => {
  for (const entry of TABLE.shown) {
    expect(STEP_IDS).toContain(entry.step);
    expect(entry.tensor.length).toBeGreaterThan(0);
    expect(new Set(entry.values.map((row) => row.length)).size).toBe(1);
    if (entry.rows) expect(entry.rows).toHaveLength(entry.values.length);
  }
  for (const entry of TABLE.notShown) expect(entry.why.length).toBeGreaterThan(20);
});
