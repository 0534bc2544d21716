// Writes docs/book-numbers.md from tests/fixtures/bookNumbers.json: every tensor seed 003 (Raschka, ch. 3,
// §3.3–3.6) prints, with the step and tensor that shows it on the page, and those the page does not show, with why.
// tests/e2e/book-numbers.spec.js compares each shown one with the page at four decimals;
// tests/unit/book-numbers.test.js checks this file is up to date.   Run: node scripts/book-numbers.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const TABLE = new URL('../tests/fixtures/bookNumbers.json', import.meta.url);
const DOC = new URL('../docs/book-numbers.md', import.meta.url);

const number = (v) => (v === '-inf' ? '−∞' : v.toFixed(4).replace('-', '−'));
const matrix = (values) => values.map((row) => `[${row.map(number).join(' ')}]`).join('<br>');
const where = ({ step, query, tensor, rows, cols }) => {
  const link = `?step=${step}${Object.entries(query ?? {}).map(([k, v]) => `&${k}=${v}`).join('')}`;
  const part = rows ? ` row${rows.length > 1 ? 's' : ''} ${rows.join(', ')}${cols ? `, column ${cols.join(', ')}` : ''}` : '';
  return `\`${link}\` “${tensor}”${part}`;
};

/** The Markdown page for the table. */
export function bookNumbersMarkdown(table = JSON.parse(readFileSync(TABLE, 'utf8'))) {
  const lines = [
    '# The book’s numbers on the page',
    '',
    `Every tensor printed in ${table.source}, and where the page shows it at that link's state`,
    `(steps open on these numbers at their defaults; a link names only what differs). The page's numbers equal the`,
    `book's at ${table.precision} decimals: \`tests/e2e/book-numbers.spec.js\` compares each one, stepping through one page.`,
    'Rows and columns count from 0; the book prints a batch of two copies of the sentence where the page has one.',
    'Generated from `tests/fixtures/bookNumbers.json` by `node scripts/book-numbers.mjs`.',
    '',
    '| § | The book prints | Values | On the page |',
    '|---|---|---|---|',
    ...table.shown.map((entry) => `| ${entry.section} | ${entry.printed}${entry.note ? ` (${entry.note})` : ''} | ${matrix(entry.values)} | ${where(entry)} |`),
    '',
    '## Printed, but not on the page',
    '',
    '| § | The book prints | Why not |',
    '|---|---|---|',
    ...table.notShown.map((entry) => `| ${entry.section} | ${entry.printed} | ${entry.why} |`),
    '',
  ];
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(DOC, bookNumbersMarkdown());
  console.log(`wrote ${fileURLToPath(DOC)}`);
}
