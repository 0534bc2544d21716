// The types the package ships (package.json "exports" → "types") declare what each entry point exports: every
// function, constant and class a .d.ts declares exists in its module, and the module exports nothing else.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { exports } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));

/** The runtime names a .d.ts declares, following its `export * from` and `export {…} from` lines. */
function declaredNames(path) {
  const text = readFileSync(`${ROOT}${path}`, 'utf8');
  const names = [...text.matchAll(/^export (?:declare )?(?:async )?(?:function|const|class) (\w+)/gm)].map((m) => m[1]);
  for (const [, list] of text.matchAll(/^export \{([^}]*)\} from/gm)) names.push(...list.split(',').map((n) => n.trim().split(/\s+as\s+/).pop()));
  for (const [, from] of text.matchAll(/^export \* from '([^']+)'/gm)) {
    names.push(...declaredNames(`${path.replace(/[^/]+$/, '')}${from.replace(/^\.\//, '').replace(/\.js$/, '.d.ts')}`));
  }
  return names;
}

// The element's entry defines a custom element (a browser's customElements): tests/e2e/package.spec.js imports it.
const ENTRIES = Object.entries(exports).filter(([name, target]) => typeof target === 'object' && name !== './element');

describe('each entry point\'s types', () => {
  test.each(ENTRIES)('%s', async (name, target) => {
    const module = await import(`${ROOT}${(target.import ?? target.node).replace(/^\.\//, '')}`);
    expect([...new Set(declaredNames(target.types.replace(/^\.\//, '')))].sort()).toEqual(Object.keys(module).sort());
  });
});
