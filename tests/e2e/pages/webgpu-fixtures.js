// The PyTorch fixtures (tests/fixtures/<function>.json) through the public API on the webgpu backend, with
// the checks of tests/unit/steps.test.js and its very helpers (fixture-values.js, tolerance.js): every
// expected result within atol + rtol·|expected|, −∞ exact, no result beyond the expected ones.
// Relative imports: the same module runs in the page and in Node (bench/dawn/checks.js, on Dawn).
import { createAttention } from '../../../web/src/core/api.js';
import { decodeValue } from '../../unit/fixture-values.js';
import { compareTensors, isTensor } from '../../unit/tolerance.js';
import { loadWebGpuBackend } from '../../../web/src/core/backends/webgpu.js';

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
    const expected = lean ? { output: decodeValue(testCase.expected.output) } : decodeValue(testCase.expected);
    const args = decodeValue(testCase.args);
    if (lean) args[args.length - 1] = { ...args[args.length - 1], intermediates: false };
    let results;
    try {
      results = await attention[fixture.function](...args);
    } catch (error) {
      problems.push(`${testCase.name}: threw ${error.message}`);
      continue;
    }
    for (const name of Object.keys(results)) if (!(name in expected)) problems.push(`${testCase.name}: unexpected result ${name}`);
    const check = (name, got, want) => {
      if (want && typeof want === 'object' && !isTensor(want)) {
        // Nested results: a backward's gradients of weights.heads[h] ({query, key, …} per head).
        for (const key of Object.keys(want)) check(`${name}.${key}`, got?.[key], want[key]);
        return;
      }
      if (isTensor(want)) {
        const { ok, maxAbsError, report } = compareTensors(got, want, tolerance);
        if (Number.isFinite(maxAbsError) && maxAbsError > worst.maxAbsError) Object.assign(worst, { maxAbsError, where: `${testCase.name} / ${name}` });
        if (!ok) problems.push(`${testCase.name} / ${name}: ${report}`);
      } else if (typeof want === 'number' && !Number.isInteger(want)) {
        if (!(Math.abs(got - want) <= tolerance.atol + tolerance.rtol * Math.abs(want))) problems.push(`${testCase.name} / ${name}: ${got} vs ${want}`);
      } else if (!Object.is(got, want)) {
        problems.push(`${testCase.name} / ${name}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
      }
    };
    for (const [name, want] of Object.entries(expected)) check(name, results[name], want);
  }
  return { cases: fixture.cases.length, problems, worst };
}
