// Reads the PyTorch golden files (tests/fixtures/<function>.json, format in tests/fixtures/README.md)
// into the JS API's own values: tensors become { data: Float32Array | Int32Array, shape }, and the
// strings JSON cannot hold as numbers ("Infinity", "-Infinity", "NaN") become those numbers.
import { readFileSync } from 'node:fs';

export const FIXTURE_DIR = new URL('../fixtures/', import.meta.url);

const NON_FINITE = { Infinity: Infinity, '-Infinity': -Infinity, NaN: NaN };

function decodeNumber(value) {
  if (typeof value === 'number') return value;
  if (value in NON_FINITE) return NON_FINITE[value];
  throw new Error(`fixture value ${JSON.stringify(value)} is neither a number nor one of ${Object.keys(NON_FINITE).join(', ')}`);
}

const isEncodedTensor = (value) =>
  value !== null && typeof value === 'object' && Array.isArray(value.shape) && Array.isArray(value.data);

/** Decodes one fixture value: a tensor, an array of values, an object of values, or a plain value. */
export function decodeValue(value) {
  if (isEncodedTensor(value)) {
    const numbers = value.data.map(decodeNumber);
    const data = value.dtype === 'int32' ? Int32Array.from(numbers) : Float32Array.from(numbers);
    return { data, shape: value.shape };
  }
  if (Array.isArray(value)) return value.map(decodeValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, decodeValue(inner)]));
  }
  return typeof value === 'string' && value in NON_FINITE ? NON_FINITE[value] : value;
}

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
