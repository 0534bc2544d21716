// One spec, every backend: each case of every PyTorch fixture runs through the public API on the JS
// reference and both WASM builds, and every expected result must match within tolerance. The functions are
// the registry's (web/src/core/registry.js `fixture: true`): a new function is one more entry, not one more line here. The worst
// absolute error per function and backend is written to test-results/worst-errors.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { attentionFor, BACKENDS, TOLERANCE } from './backends.js';
import { loadFixture } from './fixtures.js';
import { compareTensors, isTensor } from './tolerance.js';
import { FIXTURE_FUNCTIONS } from '../../web/src/core/registry.js';

const worstErrors = {};

/** Keeps, per function and backend, the largest absolute error and the case and result it came from. */
function recordError(fn, backend, error, where) {
  worstErrors[fn] ??= {};
  const worst = worstErrors[fn][backend];
  if (!worst || error > worst.maxAbsError) worstErrors[fn][backend] = { maxAbsError: error, where };
}

/** Checks one case's results; returns the problems found (empty when the case passes). */
function checkCase(fn, backend, testCase, results) {
  const problems = [];
  const tolerance = { atol: testCase.atol ?? TOLERANCE[backend].atol, rtol: testCase.rtol ?? TOLERANCE[backend].rtol };
  // The fixtures list every result a call produces; an extra one (say `masked` without causal) is a bug.
  const extra = Object.keys(results).filter((name) => !(name in testCase.expected));
  if (extra.length) problems.push(`unexpected results ${extra.join(', ')} (expected only ${Object.keys(testCase.expected).join(', ')})`);
  const check = (name, actual, expected) => {
    if (Array.isArray(expected) || (expected && typeof expected === 'object' && !isTensor(expected))) {
      // Nested results: a backward's gradients of weights.heads[h] ({query, key, …} per head).
      const names = Object.keys(expected);
      const got = actual && typeof actual === 'object' ? Object.keys(actual) : [];
      if (got.length !== names.length || got.some((key) => !names.includes(key))) {
        problems.push(`${name}: results ${got.join(', ') || 'none'} (expected ${names.join(', ')})`);
      }
      for (const key of names) check(`${name}.${key}`, actual?.[key], expected[key]);
      return;
    }
    if (isTensor(expected)) {
      const { ok, maxAbsError, report } = compareTensors(actual, expected, tolerance);
      const where = `${testCase.name} / ${name}${testCase.atol !== undefined ? ` (case atol ${testCase.atol})` : ''}`;
      recordError(fn, backend, maxAbsError, where);
      if (!ok) problems.push(`${name}: ${report}`);
    } else if (typeof expected === 'number' && !Number.isInteger(expected)) {
      // compare's maxAbsError and maxRelError: plain numbers, checked with the same tolerance.
      if (!(Math.abs(actual - expected) <= tolerance.atol + tolerance.rtol * Math.abs(expected))) {
        problems.push(`${name}: ${actual} instead of ${expected}`);
      }
    } else if (!Object.is(actual, expected)) {
      problems.push(`${name}: ${JSON.stringify(actual)} instead of ${JSON.stringify(expected)}`);
    }
  };
  for (const [name, expected] of Object.entries(testCase.expected)) check(name, results[name], expected);
  return problems;
}

afterAll(() => {
  mkdirSync('test-results', { recursive: true });
  writeFileSync('test-results/worst-errors.json', `${JSON.stringify(worstErrors, null, 2)}\n`);
});

for (const backend of BACKENDS) {
  describe(`${backend} backend matches PyTorch`, () => {
    let attention;
    beforeAll(async () => {
      attention = await attentionFor(backend);
    });

    for (const fn of FIXTURE_FUNCTIONS) {
      let fixture;
      let loadError;
      try {
        fixture = loadFixture(fn);
      } catch (error) {
        loadError = error;
      }
      if (loadError) {
        test(`${fn}: fixture loads`, () => {
          throw loadError;
        });
        continue;
      }
      test.each(fixture.cases.map((testCase) => [testCase.name, testCase]))(`${fn}: %s`, async (name, testCase) => {
        const results = await attention[fn](...testCase.args);
        const problems = checkCase(fn, backend, testCase, results);
        expect(problems, `${backend} ${fn} "${name}":\n  ${problems.join('\n  ')}`).toEqual([]);
      });
    }
  });
}
