// Every JavaScript block of README.md and docs/*.md runs as a user would paste it: read from the markdown at
// test time (an edited doc is retested), run by Node from the repository root, where 'attention-playground' and
// its subpaths resolve to this package through package.json "exports". A value a block states is asserted: a
// line `console.log(value); // → expected…` must log `expected` (a JS literal; a number to the digits written,
// the words after it are prose). A block that cannot run in Node is skipped for the reason listed below.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = ['README.md', ...readdirSync(`${ROOT}docs`).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

// Blocks that do not run in Node, each found by a line of it: why, and what tests the same calls instead.
const SKIPPED = [
  { doc: 'docs/api.md', line: "loadGpt2FromUrl(hubUrl('gpt2')",
    why: 'downloads gpt2 from the Hugging Face hub; tests/unit/gpt2-loader.test.js loads a tiny checkpoint from a local server' },
  { doc: 'docs/exercise-authoring.md', line: "id: 'causal/mask-with-zero',",
    why: 'the shape of a bank entry, with … for the parts every entry writes its own way' },
  { doc: 'docs/exercises.md', line: "{type: 'attention-playground:exercise', id, action:",
    why: 'the shape of a postMessage event the page posts (tests/e2e/exercises-embed.spec.js checks them)' },
];
// Lines dropped from a block that otherwise runs in Node.
const DROPPED_LINES = [
  { doc: 'README.md', line: "import 'attention-playground/element';",
    why: 'the element needs a browser (customElements); tests/e2e/package.spec.js imports it there' },
];

function jsBlocks(doc) {
  const lines = readFileSync(`${ROOT}${doc}`, 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i += 1) {
    if (!/^```(js|javascript|mjs)\s*$/.test(lines[i])) continue;
    const start = i + 1;
    while (i + 1 < lines.length && lines[i + 1] !== '```') i += 1;
    blocks.push({ doc, line: start + 1, source: lines.slice(start, i + 1).join('\n') });
    i += 1;
  }
  return blocks;
}

// The JS literal at the start of `text` (an array, object, string, number, boolean or null) and its source.
function leadingLiteral(text) {
  const open = { '[': ']', '{': '}' }[text[0]];
  let end;
  if (open) {
    let depth = 0;
    let quote = null;
    for (end = 0; end < text.length; end += 1) {
      const c = text[end];
      if (quote) { if (c === quote) quote = null; continue; }
      if (c === "'" || c === '"') quote = c;
      else if (c === text[0]) depth += 1;
      else if (c === open && (depth -= 1) === 0) break;
    }
    end += 1;
  } else if (text[0] === "'" || text[0] === '"') {
    end = text.indexOf(text[0], 1) + 1;
  } else {
    end = text.search(/[\s:,;]|$/);
  }
  return text.slice(0, end);
}

const EXPECTATION = /^(\s*)console\.log\((.*)\);\s*\/\/ → (.*)$/;

// The block as Node runs it: each stated value turned into an assertion of the logged one.
function instrument(block) {
  const dropped = DROPPED_LINES.filter((d) => d.doc === block.doc);
  const expectations = [];
  const source = block.source.split('\n').filter((line) => !dropped.some((d) => line.includes(d.line))).map((line, i) => {
    const match = EXPECTATION.exec(line);
    if (!match) {
      if (line.includes('// →')) throw new Error(`${block.doc}:${block.line + i}: a stated value (// →) must follow console.log(value);`);
      return line;
    }
    const expected = leadingLiteral(match[3]);
    expectations.push(expected);
    return `${match[1]}__expectLogged(${match[2]}, ${JSON.stringify(expected)}, ${block.line + i});`;
  });
  return { expectations, source: `${PRELUDE}\n${source.join('\n')}\n` };
}

// Run in the child: a number matches to half a unit of its last written digit; arrays and typed arrays by element.
const PRELUDE = `
globalThis.__expectLogged = (actual, expectedSource, line) => {
  const expected = new Function('return (' + expectedSource + ');')();
  const digits = (s) => (/\\.(\\d+)/.exec(s) ?? [, ''])[1].length;
  const numbers = expectedSource.match(/-?\\d+(\\.\\d+)?(e[-+]?\\d+)?/g) ?? [];
  const close = (a, e, tolerance) => typeof e === 'number' ? typeof a === 'number' && Math.abs(a - e) <= tolerance
    : Array.isArray(e) ? a != null && typeof a.length === 'number' && a.length === e.length && e.every((v, i) => close(a[i], v, tolerance))
    : e !== null && typeof e === 'object' ? a !== null && typeof a === 'object' && Object.keys(e).every((k) => close(a[k], e[k], tolerance))
    : Object.is(a, e);
  const tolerance = Math.max(0, ...numbers.map((n) => 0.5 * 10 ** -digits(n))) + 1e-12;
  if (!close(actual, expected, tolerance)) {
    const shown = ArrayBuffer.isView(actual) ? Array.from(actual) : actual;
    throw new Error('line ' + line + ': logged ' + JSON.stringify(shown) + ', the doc states ' + expectedSource);
  }
  console.log('checked line ' + line);
};`;

function runBlock(block) {
  const { source } = instrument(block);
  try {
    return execFileSync(process.execPath, ['--input-type=module', '-e', source], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    throw new Error(`${block.doc}:${block.line}: the block failed:\n${error.stderr || error.message}`);
  }
}

const blocks = DOCS.flatMap(jsBlocks);
const skipOf = (block) => SKIPPED.find((s) => s.doc === block.doc && block.source.includes(s.line));
const runnable = blocks.filter((block) => !skipOf(block));

describe('the docs\' JavaScript blocks', () => {
  test('every skipped block and dropped line still stands in its doc, with a reason', () => {
    for (const entry of [...SKIPPED, ...DROPPED_LINES]) {
      expect(entry.why.length, entry.line).toBeGreaterThan(20);
      expect(blocks.some((b) => b.doc === entry.doc && b.source.includes(entry.line)), `${entry.doc}: ${entry.line}`).toBe(true);
    }
    expect(runnable.length).toBeGreaterThanOrEqual(4);
  });

  test.each(runnable.map((b) => [`${b.doc}:${b.line}`, b]))('%s runs in Node and logs what it states', (_, block) => {
    const { expectations } = instrument(block);
    const output = runBlock(block);
    expect(output.match(/^checked line \d+$/gm) ?? []).toHaveLength(expectations.length);
  });
});

describe('the README', () => {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  const scripts = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).scripts;

  test('every npm command it gives is a script of package.json', () => {
    const commands = [...readme.matchAll(/npm (?:run )?([\w:-]+)/g)].map((m) => m[1])
      .filter((name) => !['install', 'pack', 'run'].includes(name));
    expect(commands).toContain('start');
    for (const name of new Set(commands)) expect(Object.keys(scripts), `npm ${name}`).toContain(name);
  });

  test('every file of the repository it or docs/api.md names exists', () => {
    const api = readFileSync(`${ROOT}docs/api.md`, 'utf8');
    const named = [...`${readme}\n${api}`.matchAll(/`((?:web|cpp|tests|scripts|bench|docs|examples)\/[\w.\-/]*)`/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(40);
    for (const path of new Set(named)) expect(existsSync(`${ROOT}${path}`), path).toBe(true);
  });

  test('links only to files of the repository, and stays short', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(150);
    for (const [, target] of readme.matchAll(/\]\(([^)]+)\)/g)) {
      expect(target, target).not.toMatch(/^[a-z]+:/);
      expect(() => readFileSync(`${ROOT}${target.replace(/#.*/, '')}`), target).not.toThrow();
    }
  });
});
