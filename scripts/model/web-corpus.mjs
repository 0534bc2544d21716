// The training corpus: the World English Bible (Debian package sword-text-web, module engWEB2015eb), public
// domain by its own terms (docs/model.md quotes them). The SWORD zText module stores each book as one
// zlib-compressed block of OSIS markup; this reads the blocks and strips the markup to running text, one
// document per book. No libsword is needed: the format is three files (see readBlocks).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';

export const PACKAGE = 'sword-text-web';
const MODULE_DIR = 'usr/share/sword/modules/texts/ztext/engWEB2015eb';
export const COPYRIGHT_FILE = 'usr/share/doc/sword-text-web/copyright';

/**
 * The package's files: the installed copy under / if there is one, else the package unpacked under cacheDir
 * (apt-get download + dpkg-deb -x: no install, no root needed). Returns the root they sit under.
 */
export function corpusRoot(cacheDir) {
  if (existsSync(join('/', MODULE_DIR, 'ot.bzz'))) return '/';
  const root = join(cacheDir, 'root');
  if (existsSync(join(root, MODULE_DIR, 'ot.bzz'))) return root;
  mkdirSync(root, { recursive: true });
  execFileSync('apt-get', ['download', PACKAGE], { cwd: cacheDir, stdio: 'inherit' });
  const deb = readdirSync(cacheDir).find((f) => f.startsWith(`${PACKAGE}_`) && f.endsWith('.deb'));
  if (!deb) throw new Error(`web-corpus: apt-get download ${PACKAGE} left no .deb in ${cacheDir}`);
  execFileSync('dpkg-deb', ['-x', join(cacheDir, deb), root], { stdio: 'inherit' });
  return root;
}

/** A zText testament: .bzs holds 12-byte entries (offset, compressed size, size: u32 LE) into .bzz. */
function readBlocks(dir, testament) {
  const index = readFileSync(join(dir, `${testament}.bzs`));
  const data = readFileSync(join(dir, `${testament}.bzz`));
  const blocks = [];
  for (let i = 0; i < index.length / 12; i++) {
    const offset = index.readUInt32LE(i * 12);
    const size = index.readUInt32LE(i * 12 + 4);
    blocks.push(inflateSync(data.subarray(offset, offset + size)).toString('utf8'));
  }
  return blocks;
}

/** OSIS markup → running text: words keep their punctuation, notes go, titles and paragraphs end lines. */
export function osisToText(osis) {
  return osis
    .replace(/<note\b[\s\S]*?<\/note>/g, '\u0001')
    .replace(/<\/w>\u0001+<w\b/g, '</w> <w') // a footnote between two words stood for a space
    .replace(/\u0001/g, '')
    .replace(/<\/?w\b[^>]*>/g, '')
    .replace(/<\/title>|<div\b[^>]*type="x-p"[^>]*\/>|<l\b[^>]*\/>|<lb\b[^>]*\/>/g, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n[ \n]*/g, '\n')
    .trim();
}

/**
 * [{name, text}]: the module's blocks in canonical order, one document per book: a block is a book (its name in
 * the OSIS milestone x-usfm-toc2, several names where a block holds several, e.g. "Preface + Genesis"), and a block
 * without a name (a part of a book stored apart, such as the additions to Esther) continues the document before it.
 */
export function loadDocuments(cacheDir) {
  const dir = join(corpusRoot(cacheDir), MODULE_DIR);
  const documents = [];
  for (const testament of ['ot', 'nt']) {
    for (const osis of readBlocks(dir, testament)) {
      const text = osisToText(osis);
      if (text.length === 0) continue;
      const names = [...osis.matchAll(/<milestone\b[^>]*\bn="([^"]*)"[^>]*type="x-usfm-toc2"/g)].map((m) => m[1]);
      const last = documents[documents.length - 1];
      if (names.length === 0 && last) last.text += `\n${text}`;
      else documents.push({ name: names.join(' + ') || testament, text });
    }
  }
  return documents;
}
