// No silent non-finite values (docs/api.md "Errors"): finite inputs whose results overflow float32 raise an
// Error naming the function, the option or argument and the overflow, the same on every backend; the naive
// softmax's overflow is returned and flagged. WebGPU and the workers run the same cases in Chromium
// (tests/e2e/webgpu-backend.spec.js, threads.spec.js).
import { describe, expect, test } from 'vitest';
import { attentionFor, BACKENDS } from './backends.js';
import { expectOverflowAnswers, overflowCases, runOverflowCases } from './overflow-cases.js';
import { ApiError } from '../../web/src/core/registry-errors.js';

describe.each(BACKENDS)('results that overflow float32 on %s', (backend) => {
  test('raise an Error naming the function, the cause and the stage; naive softmax returns and flags it', async () => {
    const attention = await attentionFor(backend);
    expectOverflowAnswers(expect, await runOverflowCases(attention), backend);
  });

  test('the Error is data: {fn, argument, value, expected, kind: overflow}', async () => {
    const attention = await attentionFor(backend);
    const [[, fn, args]] = overflowCases();
    let caught;
    try {
      attention[fn](...args);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect(caught).toMatchObject({ fn: 'selfAttention', argument: 'temperature', value: 1e-45, expected: 'finite results', kind: 'overflow', stage: 'scaled scores', reached: 'Infinity' });
  });
});
