// Property-based (fast-check): random valid calls — every float step, matmul, and the multi-head functions
// with and without intermediates (the fused kernel) on up to 40 tokens — give the same numbers on the
// JS reference, wasm-simd and wasm-baseline, and on wasm-simd with the relaxed-SIMD tiles (in a flagged child
// Node, property-relaxed.mjs): every result present on one is present on all, same shape, within
// atol = rtol = 1e-5 (−∞ exactly). Random invalid calls (property-invalid.js: bad shapes, ranks, data, values,
// weights and options) throw the same Error on all three: an Error with the same {fn, argument, value,
// expected, kind} and the same message. Seeded, so a run is reproducible; a failure prints the shrunk call.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { attentionFor } from './backends.js';
import { deserialiseResult, materialise, validCall } from './property-calls.js';
import { applyMutation, invalidCall } from './property-invalid.js';
import { compareTensors, isTensor } from './tolerance.js';

const SEED = 20261123;
const RUNS = 150;
const INVALID_RUNS = 400;
const TOLERANCE = { atol: 1e-5, rtol: 1e-5 };

/** '' when two results of one call agree, else what differs. */
function difference(actual, expected) {
  const names = (r) => Object.keys(r).sort().join(', ');
  if (names(actual) !== names(expected)) return `results ${names(actual)} instead of ${names(expected)}`;
  for (const [name, want] of Object.entries(expected)) {
    const got = actual[name];
    if (isTensor(want)) {
      const { report } = compareTensors(got, want, TOLERANCE);
      if (report) return `${name}: ${report}`;
    } else if (typeof want === 'number' && !Number.isInteger(want)) {
      if (!(Math.abs(got - want) <= TOLERANCE.atol + TOLERANCE.rtol * Math.abs(want))) return `${name}: ${got} instead of ${want}`;
    } else if (!Object.is(got, want)) {
      return `${name}: ${JSON.stringify(got)} instead of ${JSON.stringify(want)}`;
    }
  }
  return '';
}

const describeCall = ({ fn, args }) => `${fn}(${JSON.stringify(args, (key, value) => (key === 'values' ? `[${value.length} values]` : value))})`;

/** JSON for a message, with BigInts, NaN and ±∞ written as JS writes them. */
const show = (value) => JSON.stringify(value, (key, inner) => (typeof inner === 'bigint' ? `${inner}n`
  : typeof inner === 'number' && !Number.isFinite(inner) ? String(inner) : inner));

/** What a call did: {ok: true}, or the Error's fields and message (anything not an Error as it was thrown). */
function outcome(run) {
  try {
    run();
    return { ok: true };
  } catch (error) {
    if (!(error instanceof Error)) return { thrown: error };
    const { fn, argument, value, expected, kind } = error;
    return { error: { fn, argument, value, expected, kind }, message: error.message };
  }
}

describe('random valid calls give the same numbers on every backend', () => {
  it('js, wasm-simd and wasm-baseline agree', async () => {
    const [js, simd, baseline] = await Promise.all(['js', 'wasm-simd', 'wasm-baseline'].map(attentionFor));
    await fc.assert(fc.asyncProperty(validCall, async (call) => {
      const expected = await js[call.fn](...materialise(call.args));
      for (const [name, backend] of [['wasm-simd', simd], ['wasm-baseline', baseline]]) {
        const problem = difference(await backend[call.fn](...materialise(call.args)), expected);
        if (problem) throw new Error(`${name} differs from js on ${describeCall(call)}: ${problem}`);
      }
    }), { seed: SEED, numRuns: RUNS });
  });

  it('wasm-simd with the relaxed-SIMD tiles agrees with js (child Node)', async () => {
    const calls = fc.sample(validCall, { seed: SEED + 1, numRuns: RUNS });
    const tile = readFileSync(new URL('../../web/src/core/wasm/relaxed-tile.wasm', import.meta.url));
    const flags = WebAssembly.validate(tile) ? [] : ['--experimental-wasm-relaxed-simd'];
    const script = fileURLToPath(new URL('./property-relaxed.mjs', import.meta.url));
    const child = spawnSync(process.execPath, [...flags, script], { input: JSON.stringify(calls), encoding: 'utf8', maxBuffer: 1 << 28 });
    expect(child.status, child.stderr).toBe(0);
    const { reason, defaultVariant, results } = JSON.parse(child.stdout);
    expect(reason).toBe('');
    expect([6, 7]).toContain(defaultVariant);
    const js = await attentionFor('js');
    const problems = [];
    calls.forEach((call, i) => {
      if (results[i].error) {
        problems.push(`${describeCall(call)} threw ${results[i].error}`);
        return;
      }
      const problem = difference(deserialiseResult(results[i]), js[call.fn](...materialise(call.args)));
      if (problem) problems.push(`${describeCall(call)}: ${problem}`);
    });
    expect(problems).toEqual([]);
  });
});

describe('random invalid calls give the same Error on every backend', () => {
  it('js, wasm-simd and wasm-baseline throw the same structured Error and message', async () => {
    const backends = await Promise.all(['js', 'wasm-simd', 'wasm-baseline'].map(attentionFor));
    await fc.assert(fc.property(invalidCall, (call) => {
      const [js, ...others] = backends.map((attention) => outcome(() => attention[call.fn](...applyMutation(materialise(call.args), call.mutation))));
      const where = `${describeCall(call)} broken by ${show(call.mutation)}`;
      if (!js.error) throw new Error(`js did not throw an Error on ${where}: ${show(js)}`);
      expect(js.error.fn, where).toBe(call.fn);
      expect(typeof js.error.argument === 'string' && typeof js.error.expected === 'string' && typeof js.error.kind === 'string', where).toBe(true);
      expect(js.message.startsWith(`${call.fn}: `), js.message).toBe(true);
      others.forEach((other, i) => expect(other, `${['wasm-simd', 'wasm-baseline'][i]} on ${where}`).toEqual(js));
    }), { seed: SEED + 2, numRuns: INVALID_RUNS });
  });
});
