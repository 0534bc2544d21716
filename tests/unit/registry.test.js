// The registry (web/src/core/registry.js) is the one list of functions: index.d.ts, written by hand,
// must declare each of them on Attention and Backend with the registry's arguments and options, and every
// list derived from it must hold exactly its functions.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { createReferenceBackend } from '../../web/src/core/reference/index.js';
import { POOL_FUNCTIONS } from '../../web/src/core/backends/thread-plan.js';
import { ENTRIES, FIXTURE_FUNCTIONS, FUNCTION_NAMES, REGISTRY, functionsFor } from '../../web/src/core/registry.js';
import { CHECKS } from '../../web/src/core/reference/checks.js';
import { gpuReferenceReason } from '../../web/src/core/planner.js';

const declarations = readFileSync(new URL('../../web/src/core/index.d.ts', import.meta.url), 'utf8');

/** The body of `export interface <name> … { … }` in index.d.ts. */
function interfaceBody(name) {
  const start = declarations.search(new RegExp(`export interface ${name}\\b[^{]*\\{`));
  expect(start, `interface ${name}`).toBeGreaterThanOrEqual(0);
  const open = declarations.indexOf('{', start);
  let depth = 0;
  for (let i = open; i < declarations.length; i++) {
    if (declarations[i] === '{') depth++;
    if (declarations[i] === '}' && --depth === 0) return declarations.slice(open + 1, i);
  }
  throw new Error(`interface ${name} does not close`);
}

/** Option names of an options interface, with those of the interfaces it extends. */
function optionNames(name) {
  const header = declarations.match(new RegExp(`export interface ${name}(?: extends ([\\w, ]+))? \\{`));
  const own = [...interfaceBody(name).matchAll(/^\s*(\w+)\?:/gm)].map((m) => m[1]);
  const inherited = header?.[1] ? header[1].split(',').map((s) => s.trim()).flatMap(optionNames) : [];
  return [...inherited, ...own];
}

describe('index.d.ts declares what the registry holds', () => {
  for (const iface of ['Attention', 'Backend']) {
    test(`${iface} has one method per registry function, with its arguments and options`, () => {
      const body = interfaceBody(iface);
      const declared = [...body.matchAll(/^ {2}(\w+)\(([^)]*)\)/gm)].map(([, name, params]) => [name, params]);
      const functions = declared.filter(([name]) => ENTRIES[name]);
      expect(functions.map(([name]) => name).sort()).toEqual([...FUNCTION_NAMES].sort());
      for (const [name, params] of functions) {
        const names = params.split(',').map((p) => p.trim().split(/\??:/)[0]).filter(Boolean);
        const entry = ENTRIES[name];
        expect(names, name).toEqual([...entry.args.map((arg) => arg.name), ...(entry.options ? ['options'] : [])]);
        if (!entry.options || iface !== 'Attention') continue;
        const type = params.match(/options\?: (\w+|\{[^}]*\})/)[1];
        const declaredOptions = type.startsWith('{') ? [...type.matchAll(/(\w+)\?:/g)].map((m) => m[1]) : optionNames(type);
        expect(new Set(declaredOptions), `${name} options`).toEqual(new Set(Object.keys(entry.options)));
      }
    });
  }
});

describe('every list of functions is the registry', () => {
  test('the reference backend, the checks, the workers and the fixtures', () => {
    const reference = createReferenceBackend();
    expect(Object.keys(reference).filter((key) => typeof reference[key] === 'function')).toEqual([...FUNCTION_NAMES]);
    expect(Object.keys(CHECKS).sort()).toEqual([...FUNCTION_NAMES].sort());
    expect(POOL_FUNCTIONS).toEqual(functionsFor('workers'));
    expect(FIXTURE_FUNCTIONS.every((fn) => ENTRIES[fn].fixture)).toBe(true);
  });

  test('the public CAPABILITIES are the registry\'s, one per function', async () => {
    const { CAPABILITIES } = await import('../../web/src/core/index.js');
    expect(Object.keys(CAPABILITIES)).toEqual([...FUNCTION_NAMES]);
    expect(CAPABILITIES.multiheadAttentionSplit.paths).toEqual(['teaching', 'fused', 'workers', 'webgpu']);
    expect(CAPABILITIES.compare).toMatchObject({ gpu: 'reference', options: ['atol', 'rtol'] });
    expect(CAPABILITIES.causalAverageLoop.options).toEqual([]);
  });

  test("the webgpu backend's reason for each function it leaves to the JS reference is true of that function", () => {
    const reference = REGISTRY.filter((entry) => entry.gpu === 'reference').map((entry) => entry.name);
    // only these five lack matrix work; every other one (the backwards, scaledDotProductAttention) says what it has
    const withoutMatrixWork = ['nextTokenPairs', 'causalAverageLoop', 'attentionDropout', 'compare', 'layerNorm', 'gelu'];
    for (const fn of reference) {
      const reason = gpuReferenceReason(fn);
      if (withoutMatrixWork.includes(fn)) expect(reason).toBe(`${fn} has no matrix work; the JS reference computes it`);
      else expect(reason, fn).toMatch(new RegExp(`^${fn} does matrix work .*; the JS reference computes it$`));
    }
    expect(gpuReferenceReason('crossAttentionBackward')).toBe("crossAttentionBackward does matrix work (the gradients' products), but the API's WGSL passes are forward only (the trainer's WebGPU engine, web/src/gpu/train/, has its own backward); the JS reference computes it");
  });

  test("every size the planner's terms name is an axis of the entry's shapes or one of its sizes", () => {
    for (const entry of REGISTRY) {
      const axes = (entry.shapes ?? [entry.args[0].name]).flatMap((shape) => {
        if (typeof shape !== 'string') return shape.axes.map((axis) => axis.replace('…', ''));
        const [name, ...keys] = shape.split('.');
        const arg = entry.args.find((candidate) => candidate.name === name);
        return (keys.length ? arg.shapes[keys.join('.')] : arg.axes ?? ['size']).map((axis) => axis.replace(/^\d+·/, ''));
      });
      const known = new Set([...axes, ...Object.keys(entry.sizes ?? {}), 'kept']);
      const { work = [], gpuFootprint = { largest: [], matrices: [] }, stages = [] } = entry;
      for (const [, ...names] of [...work, ...gpuFootprint.largest, ...gpuFootprint.matrices, ...stages]) {
        for (const name of names) expect(known.has(name), `${entry.name}: ${name}`).toBe(true);
      }
      if (gpuFootprint.headDim) expect(known.has(gpuFootprint.headDim), entry.name).toBe(true);
    }
  });

  test('the registry is plain data: it survives a JSON round trip unchanged', () => {
    expect(JSON.parse(JSON.stringify(REGISTRY))).toEqual(REGISTRY);
  });
});
