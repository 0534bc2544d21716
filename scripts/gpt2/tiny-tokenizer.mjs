// Writes tests/fixtures/gpt2/vocab.json and merges.txt: a GPT-2-style byte-level BPE vocabulary small enough
// to reason about by hand (the 256 byte symbols in GPT-2's id order, the merges below, '<|endoftext|>' last).
// The merges are chosen so the tests can derive the tokens on paper: rank order deciding between two
// candidate pairs ("b c" before "a b"), left-to-right merging of repeats ("a a"), merges building on merges
// ("Ġt" + "he"), whitespace runs ("Ġ Ġ", "Ċ Ċ") and digits. The tiny GPT-2 checkpoint of the fixtures
// (tests/fixtures/gpt2/make_fixtures.py) uses this vocabulary.
// Usage: node scripts/gpt2/tiny-tokenizer.mjs [outDir]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BYTE_TO_CHAR } from '../../web/src/gpt2/byte-unicode.js';

export const TINY_MERGES = [
  'Ġ t', 'h e', 'Ġt he', 'i n', 'Ġ a', 'e r', 'o n', 'r e', 'a t', 'e n', 'in g', 'Ġ s', 'Ġ c',
  'b c', 'a b', 'a a', 'Ġ Ġ', 'Ċ Ċ', '1 2', 'o u', "' s", 'Ġ w', 'Ġw h', 'a n', 'Ġ he', 'l l',
  'Ġ o', 'Ġo n', 'Ġ m', 'a y',
];

// GPT-2's ids for the bytes: the order of bytes_to_unicode's list (printable bytes first, then the rest).
function byteSymbolsInIdOrder() {
  const printable = (b) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const bytes = [];
  for (let b = 0; b < 256; b++) if (printable(b)) bytes.push(b);
  for (let b = 0; b < 256; b++) if (!printable(b)) bytes.push(b);
  return bytes.map((b) => BYTE_TO_CHAR[b]);
}

export function tinyVocabulary() {
  const symbols = byteSymbolsInIdOrder();
  for (const merge of TINY_MERGES) symbols.push(merge.replace(' ', ''));
  symbols.push('<|endoftext|>');
  return Object.fromEntries(symbols.map((symbol, id) => [symbol, id]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '../../tests/fixtures/gpt2');
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'vocab.json'), `${JSON.stringify(tinyVocabulary())}\n`);
  fs.writeFileSync(path.join(outDir, 'merges.txt'), `#version: 0.2\n${TINY_MERGES.join('\n')}\n`);
  console.log(`wrote ${outDir}/vocab.json (${Object.keys(tinyVocabulary()).length} tokens) and merges.txt (${TINY_MERGES.length} merges)`);
}
