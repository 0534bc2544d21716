// Finite inputs whose results leave float32's range, and the Error each must raise: the same list on every
// backend (tests/unit/overflow.test.js in Node for js, wasm-simd and wasm-baseline; tests/e2e/webgpu-backend.spec.js
// and threads.spec.js import it in Chromium). Plain data and typed arrays only, so a page can import it.

const sizeOf = (shape) => shape.reduce((a, b) => a * b, 1);
const filled = (shape, value) => ({ data: new Float32Array(sizeOf(shape)).fill(value), shape });
/** Small positive values: every score positive, so an overflowing q·k/τ reaches +∞. */
const ramp = (shape, from) => ({ data: Float32Array.from({ length: sizeOf(shape) }, (_, i) => from + 0.05 * (i % 7)), shape });

/** [what, function, arguments, the message expected] */
export function overflowCases() {
  const x = ramp([2, 5, 3], 0.1);
  const weights = { query: ramp([3, 4], 0.2), key: ramp([3, 4], 0.3), value: ramp([3, 4], -0.2) };
  const huge = { ...weights, query: filled([3, 4], 1e20), key: filled([3, 4], 1e20) };
  return [
    ['a temperature of 1e-45', 'selfAttention', [x, weights, { temperature: 1e-45 }],
      'selfAttention: the scaled scores overflow float32 (temperature=1e-45 makes q·k/τ reach Infinity)'],
    ['weights of 1e20', 'selfAttention', [x, huge],
      'selfAttention: the scores overflow float32 (|weights| up to 1e+20 makes q·k reach Infinity)'],
    ['the fused path, which returns no intermediates (the stage is found by running again)', 'multiheadAttentionSplit',
      [x, huge, { heads: 2, causal: true, intermediates: false }],
      'multiheadAttentionSplit: the scores overflow float32 (|weights| up to 1e+20 makes q·k reach Infinity)'],
    // every score −∞ with nothing masked: the fused path's rows are NaN, not a masked row's zeros
    ['the fused path, every score overflowing to −∞', 'multiheadAttentionSplit',
      [x, { ...weights, query: filled([3, 4], 1e20), key: filled([3, 4], -1e20) }, { heads: 2, causal: true, intermediates: false }],
      'multiheadAttentionSplit: the scores overflow float32 (|weights| up to 1e+20 makes q·k reach -Infinity)'],
    ["scaledDotProductAttention's fused path, every score overflowing to −∞", 'scaledDotProductAttention',
      [filled([2, 3, 2], 2e19), filled([2, 4, 2], -2e19), ramp([2, 4, 2], 0.1), { isCausal: true, intermediates: false }],
      'scaledDotProductAttention: the scores overflow float32 (|query| up to 2e+19 makes q·k reach -Infinity)'],
    // the teaching path asked for the output alone keeps its stages when a score overflowed, so it is named too
    ['the teaching path without intermediates (dropout), every score overflowing to −∞', 'multiheadAttentionSplit',
      [x, { ...weights, query: filled([3, 4], 1e20), key: filled([3, 4], -1e20) }, { heads: 2, dropout: 0.1, seed: 3, intermediates: false }],
      'multiheadAttentionSplit: the scores overflow float32 (|weights| up to 1e+20 makes q·k reach -Infinity)'],
    ["scaledDotProductAttention's teaching path without intermediates (attnMask), every score overflowing to −∞", 'scaledDotProductAttention',
      [filled([2, 3, 2], 2e19), filled([2, 4, 2], -2e19), ramp([2, 4, 2], 0.1),
        { attnMask: { data: new Uint8Array(12).fill(1), shape: [3, 4] }, intermediates: false }],
      'scaledDotProductAttention: the scores overflow float32 (|query| up to 2e+19 makes q·k reach -Infinity)'],
    ['a product of 1e20s', 'matmul', [filled([1, 2, 3], 1e20), filled([3, 2], 1e20)],
      'matmul: the output overflows float32 (|a| up to 1e+20 makes a·b reach Infinity)'],
    ['dropout scaling 3e38', 'attentionDropout', [filled([4, 4], 3e38), { dropout: 0.5, seed: 1 }],
      'attentionDropout: the output overflows float32 (dropout=0.5 makes x/(1−p) reach Infinity)'],
    ['a backward whose forward overflows', 'selfAttentionBackward', [x, weights, filled([2, 5, 4], 1), { temperature: 1e-45 }],
      'selfAttentionBackward: the scaled scores overflow float32 (temperature=1e-45 makes q·k/τ reach Infinity)'],
    ['a backward whose gradient overflows', 'selfAttentionBackward', [x, weights, filled([2, 5, 4], 3e38)],
      'selfAttentionBackward: the gradient of weights.value overflows float32 (|gradOutput| up to 3e+38 makes ∂loss/∂weights.value reach Infinity)'],
  ];
}

/** The naive softmax's overflow, step 5's lesson: returned, with `overflow` (not enumerable) describing it. */
export const NAIVE_OVERFLOW = {
  args: () => [{ data: new Float32Array([0, 1, 2, 3, 100]), shape: [5] }, { normalization: 'naive' }],
  overflow: { fn: 'softmax', kind: 'overflow', argument: 'normalization', value: 'naive', expected: 'finite results',
    message: "softmax: the output overflows float32 (normalization='naive' makes exp(s)/Σ exp(s) reach NaN)" },
};

/** Runs every case on an Attention object: [what, the message it threw (or 'no error'), the fields]. */
export async function runOverflowCases(attention) {
  const out = [];
  for (const [what, fn, args, expected] of overflowCases()) {
    try {
      await attention[fn](...args);
      out.push({ what, expected, message: 'no error' });
    } catch (error) {
      const { fn: name, argument, value, kind } = error;
      out.push({ what, expected, message: error.message, fields: { fn: name, argument, value, kind } });
    }
  }
  const naive = await attention.softmax(...NAIVE_OVERFLOW.args());
  const flag = naive.overflow ?? null;
  out.push({ what: "the naive softmax's overflow is returned and flagged", naive: {
    keys: Object.keys(naive), nan: Number.isNaN(naive.output.data[4]),
    overflow: flag && { fn: flag.fn, kind: flag.kind, argument: flag.argument, value: flag.value, expected: flag.expected, message: flag.message },
  } });
  // the module works as before after an error
  const after = await attention.selfAttention(...overflowCases()[0][2].slice(0, 2));
  out.push({ what: 'the next call works', finite: after.output.data.every(Number.isFinite) });
  return out;
}

/** The checks on runOverflowCases' answers, for any test runner's `expect`. */
export function expectOverflowAnswers(expect, answers, backend) {
  for (const answer of answers) {
    const label = `${backend}: ${answer.what}`;
    if (answer.expected) {
      expect(answer.message, label).toBe(answer.expected);
      expect(answer.fields.kind, label).toBe('overflow');
      expect(answer.message.startsWith(`${answer.fields.fn}: `), label).toBe(true);
    } else if (answer.naive) {
      expect(answer.naive.nan, label).toBe(true);
      expect(answer.naive.keys, label).toEqual(['output']);
      expect(answer.naive.overflow, label).toEqual(NAIVE_OVERFLOW.overflow);
    } else {
      expect(answer.finite, label).toBe(true);
    }
  }
}
