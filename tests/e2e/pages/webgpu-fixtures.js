// The PyTorch fixtures (tests/fixtures/<function>.json) through the public API on the webgpu backend, with
// the checks of tests/unit/steps.test.js: every expected result within atol + rtol·|expected|, −∞ exact,
// no result beyond the expected ones.
import { createAttention } from '/web/src/core/api.js';
import { loadWebGpuBackend } from '/web/src/core/backends/webgpu.js';

const NON_FINITE = { Infinity: Infinity, '-Infinity': -Infinity, NaN: NaN };
const number = (value) => (typeof value === 'number' ? value : NON_FINITE[value]);

/** A fixture value as the API takes it: tensors become typed arrays, "-Infinity" becomes −∞. */
function decode(value) {
  if (value !== null && typeof value === 'object' && Array.isArray(value.shape) && Array.isArray(value.data)) {
    const numbers = value.data.map(number);
    return { data: value.dtype === 'int32' ? Int32Array.from(numbers) : Float32Array.from(numbers), shape: value.shape };
  }
  if (Array.isArray(value)) return value.map(decode);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decode(v)]));
  return typeof value === 'string' && value in NON_FINITE ? NON_FINITE[value] : value;
}

const close = (a, e, atol, rtol) => (Number.isFinite(e) && Number.isFinite(a) ? Math.abs(a - e) <= atol + rtol * Math.abs(e) : Object.is(a, e));

let attentionPromise;

/**
 * Runs every case of one fixture; returns {cases, problems: [...], worst: {maxAbsError, where}}.
 * With lean, each call gets `intermediates: false` (the fused path of the multi-head functions) and
 * only `output` is expected back.
 * @param {object} fixture the parsed JSON of tests/fixtures/<function>.json
 * @param {{atol: number, rtol: number}} tolerance
 * @param {{lean?: boolean}} [how]
 */
export async function runFixture(fixture, { atol, rtol }, { lean = false } = {}) {
  attentionPromise ??= loadWebGpuBackend().then((backend) => createAttention(backend));
  const attention = await attentionPromise;
  const problems = [];
  const worst = { maxAbsError: 0, where: '' };
  for (const testCase of fixture.cases) {
    const tolerance = { atol: testCase.atol ?? atol, rtol: testCase.rtol ?? rtol };
    const expected = lean ? { output: decode(testCase.expected.output) } : decode(testCase.expected);
    const args = decode(testCase.args);
    if (lean) args[args.length - 1] = { ...args[args.length - 1], intermediates: false };
    let results;
    try {
      results = await attention[fixture.function](...args);
    } catch (error) {
      problems.push(`${testCase.name}: threw ${error.message}`);
      continue;
    }
    for (const name of Object.keys(results)) if (!(name in expected)) problems.push(`${testCase.name}: unexpected result ${name}`);
    for (const [name, want] of Object.entries(expected)) {
      const got = results[name];
      if (want && ArrayBuffer.isView(want.data)) {
        if (!got || JSON.stringify(got.shape) !== JSON.stringify(want.shape)) {
          problems.push(`${testCase.name} / ${name}: shape ${JSON.stringify(got?.shape)} instead of ${JSON.stringify(want.shape)}`);
          continue;
        }
        for (let i = 0; i < want.data.length; i++) {
          const [a, e] = [got.data[i], want.data[i]];
          if (Number.isFinite(a) && Number.isFinite(e) && Math.abs(a - e) > worst.maxAbsError) {
            Object.assign(worst, { maxAbsError: Math.abs(a - e), where: `${testCase.name} / ${name}[${i}]` });
          }
          if (!close(a, e, tolerance.atol, tolerance.rtol)) {
            problems.push(`${testCase.name} / ${name}[${i}]: ${a} vs ${e}`);
            break;
          }
        }
      } else if (typeof want === 'number' && !Number.isInteger(want)) {
        if (!close(got, want, tolerance.atol, tolerance.rtol)) problems.push(`${testCase.name} / ${name}: ${got} vs ${want}`);
      } else if (!Object.is(got, want)) {
        problems.push(`${testCase.name} / ${name}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
      }
    }
  }
  return { cases: fixture.cases.length, problems, worst };
}
