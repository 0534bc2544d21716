// Reads the PyTorch golden files (tests/fixtures/<function>.json, format in tests/fixtures/README.md)
// into the JS API's own values: tensors become { data: Float32Array | Int32Array, shape }, and the
// strings JSON cannot hold as numbers ("Infinity", "-Infinity", "NaN") become those numbers.
import { readFileSync } from 'node:fs';
import { decodeValue } from './fixture-values.js';

export { decodeValue };

export const FIXTURE_DIR = new URL('../fixtures/', import.meta.url);

/**
 * Loads tests/fixtures/<fn>.json → { function, generator, cases: [{ name, args, expected, atol, rtol }] }.
 * A missing or empty file throws: the suite must fail, not skip, when its reference data is gone.
 */
export function loadFixture(fn) {
  const url = new URL(`${fn}.json`, FIXTURE_DIR);
  let text;
  try {
    text = readFileSync(url, 'utf8');
  } catch (error) {
    throw new Error(`fixture ${url.pathname} is missing (${error.code}); generate it with npm run fixtures`);
  }
  const fixture = JSON.parse(text);
  if (fixture.function !== fn) throw new Error(`fixture ${url.pathname} is for ${fixture.function}, not ${fn}`);
  if (!Array.isArray(fixture.cases) || fixture.cases.length === 0) throw new Error(`fixture ${url.pathname} has no cases`);
  return {
    ...fixture,
    cases: fixture.cases.map((testCase) => ({
      ...testCase,
      args: testCase.args.map(decodeValue),
      expected: decodeValue(testCase.expected),
    })),
  };
}
