// Every API function through the webgpu backend against the WASM backend (the JS reference for a function
// the WASM binding lacks), on the same arguments, within 1e-4 absolute; −∞ must meet −∞. Sizes include 1,
// primes and sizes that are not multiples of the GEMM tile (64) or of 4 (the vec4 loads).
import { test, expect } from '@playwright/test';
import { expectOverflowAnswers } from '../unit/overflow-cases.js';

const TOLERANCE = 1e-4;

/** [function, sizes for buildCall (tests/e2e/pages/webgpu-cases.js)] */
const CASES = [
  ['matmul', { T: 1, C: 1, dOut: 1 }],
  ['matmul', { T: 7, C: 13, dOut: 5 }],
  ['matmul', { B: 2, T: 67, C: 37, dOut: 65 }],
  ['matmul', { T: 29, C: 20, dOut: 71, options: { transposeB: true } }],
  ['softmax', { options: { shape: [1] } }],
  ['softmax', { options: { shape: [3, 131], normalization: 'naive', scale: 0.5 } }],
  ['softmax', { options: { shape: [2, 3, 5], normalization: 'sum' } }],
  ['causalAverageMatmul', { B: 1, T: 1, C: 1 }],
  ['causalAverageMatmul', { B: 2, T: 67, C: 5 }],
  ['causalAverageSoftmax', { B: 1, T: 1, C: 1 }],
  ['causalAverageSoftmax', { B: 3, T: 13, C: 7 }],
  ['attentionWithoutWeights', { B: 1, T: 1, C: 1 }],
  ['attentionWithoutWeights', { B: 2, T: 13, C: 3, options: { normalization: 'sum' } }],
  ['attentionWithoutWeights', { B: 1, T: 70, C: 7 }],
  ['selfAttention', { T: 1, C: 1, dOut: 1 }],
  ['selfAttention', { B: 2, T: 7, C: 3, dOut: 5, bias: true, options: { causal: true } }],
  ['selfAttention', { T: 13, C: 4, dOut: 2, options: { layout: 'linear', causal: true, mask: 'zero' } }],
  ['selfAttention', { B: 2, T: 11, C: 3, dOut: 4, options: { causal: true, mask: 'renormalize', dropout: 0.25, seed: 5 } }],
  ['selfAttention', { T: 67, C: 17, dOut: 65, bias: true, options: { causal: true, temperature: 2 } }],
  ['selfAttention', { T: 5, C: 3, dOut: 3, options: { scale: false } }],
  ['multiheadAttentionSplit', { B: 2, T: 7, C: 3, dOut: 6, heads: 2, bias: true, out: true, options: { causal: true, dropout: 0.2, seed: 3 } }],
  ['multiheadAttentionSplit', { T: 67, C: 5, dOut: 12, heads: 3 }],
  ['multiheadAttentionSplit', { B: 2, T: 67, C: 5, dOut: 12, heads: 3, out: true, options: { causal: true, intermediates: false } }],
  ['multiheadAttentionStacked', { B: 2, T: 5, C: 3, dOut: 6, heads: 3, bias: true, out: true }],
  ['multiheadAttentionStacked', { T: 1, C: 1, dOut: 1, heads: 1 }],
  ['multiheadAttentionStacked', { T: 19, C: 3, dOut: 8, heads: 2, options: { causal: true, intermediates: false, dropout: 0.1, seed: 9 } }],
  ['multiheadAttentionFused', { B: 1, T: 13, C: 5, dOut: 8, heads: 2, bias: true, out: true, options: { causal: true } }],
  ['multiheadAttentionFused', { B: 2, T: 31, C: 5, dOut: 8, heads: 4, bias: true, out: true, options: { causal: true, intermediates: false } }],
  ['crossAttention', { B: 2, Tq: 3, Tk: 11, C: 4, dOut: 6, heads: 3, out: true, options: { causal: true, mask: 'renormalize' } }],
  ['crossAttention', { Tq: 1, Tk: 1, C: 1, dOut: 1 }],
  ['crossAttention', { Tq: 17, Tk: 5, C: 3, dOut: 4, heads: 2, bias: true, options: { causal: true, intermediates: false } }],
];

test.describe('webgpu backend', () => {
  test.beforeEach(async ({ page }) => {
    await page.goto('/tests/e2e/pages/webgpu.html');
    await page.waitForFunction(() => window.harnessReady === true);
  });

  test('every step matches the WASM backend within 1e-4', async ({ page }) => {
    const results = await page.evaluate(async (cases) => {
      const out = [];
      for (const [fn, sizes] of cases) {
        try {
          out.push(await window.cases.compareCall(fn, sizes));
        } catch (error) {
          out.push({ problems: [`threw: ${error.message}`] });
        }
      }
      return out;
    }, CASES);
    CASES.forEach(([fn, sizes], i) => {
      const label = `${fn} ${JSON.stringify(sizes)} vs ${results[i].oracle}`;
      expect(results[i].problems, label).toEqual([]);
      for (const [name, difference] of Object.entries(results[i].keys)) {
        expect(difference, `${label}: ${name}`).toBeLessThanOrEqual(TOLERANCE);
      }
    });
    // The comparison is against WASM wherever the binding has the function.
    expect(results.filter((r) => r.oracle === 'wasm-simd').length).toBeGreaterThan(CASES.length / 2);
  });

  test('bad arguments are refused with the reference\'s messages', async ({ page }) => {
    const messages = await page.evaluate(async () => {
      const { gpu, reference } = await window.cases.backends();
      const x = { data: new Float32Array(6), shape: [1, 2, 3] };
      const wrong = { data: new Float32Array(8), shape: [4, 2] };
      const calls = [
        (backend) => backend.selfAttention(x, { query: wrong, key: wrong, value: wrong },
          { layout: 'matrix', scale: true, temperature: 1, causal: false, mask: 'neg_inf', dropout: 0, seed: 0 }),
        (backend) => backend.softmax({ data: new Float32Array([1, NaN]), shape: [2] }, { normalization: 'stable', scale: 1 }),
        (backend) => backend.matmul(x, wrong, { transposeB: false }),
      ];
      const out = [];
      for (const call of calls) {
        const texts = [];
        for (const backend of [gpu, reference]) {
          try { await call(backend); texts.push('no error'); } catch (error) { texts.push(error.message); }
        }
        out.push(texts);
      }
      return out;
    });
    expect(messages[0][0]).toBe('selfAttention: weights.query has shape [4, 2]; expected [d_in=3, d_out]'); // docs/api.md's example
    for (const [gpuMessage, referenceMessage] of messages) expect(gpuMessage).toBe(referenceMessage);
  });

  test('supportsOp refuses what the device cannot hold, with a reason, before any GPU work', async ({ page }) => {
    const answers = await page.evaluate(async () => {
      const { gpu } = await window.cases.backends();
      const full = { layout: 'matrix', scale: true, temperature: 1, causal: true, mask: 'neg_inf', dropout: 0, seed: 0, intermediates: true };
      return {
        small: gpu.supportsOp('selfAttention', [[1, 6, 3], [3, 2]], full),
        huge: gpu.supportsOp('multiheadAttentionSplit', [[1, 16384, 64], [64, 64]], { ...full, heads: 8 }),
        hugeFused: gpu.supportsOp('multiheadAttentionSplit', [[1, 16384, 64], [64, 64]], { ...full, heads: 8, intermediates: false }),
        noMatrixWork: gpu.supportsOp('nextTokenPairs', [[1, 4]]),
        emulated: gpu.adapter.emulated,
        prefers512: gpu.prefersGpu('matmul', [[512, 512], [512, 512]], { transposeB: false }),
      };
    });
    expect(answers.small.supported).toBe(true);
    expect(answers.huge.supported).toBe(false);
    expect(answers.huge.reason).toMatch(/needs a \d+-byte buffer; this device binds at most \d+ bytes/);
    expect(answers.hugeFused.supported).toBe(true); // the fused kernel never stores T × T
    expect(answers.noMatrixWork.supported).toBe(true);
    // Measured on SwiftShader (web/src/gpu/crossover.json): WASM wins at every n, so auto keeps WASM.
    expect(answers.emulated).toBe(true);
    expect(answers.prefers512).toBe(false);
  });

  test('loadAttention({backend: "webgpu"}) serves unbatched input through the API; results that overflow raise the CPU backends\' Errors', async ({ page }) => {
    const result = await page.evaluate(async () => {
      const { loadAttention } = await import('/web/src/core/index.js');
      const { runOverflowCases } = await import('/tests/unit/overflow-cases.js');
      const attention = await loadAttention({ backend: 'webgpu' });
      // "Your journey starts with one step": the second token's weights and context (DESIGN.md, step 5).
      const x = { data: new Float32Array([0.43, 0.15, 0.89, 0.55, 0.87, 0.66, 0.57, 0.85, 0.64, 0.22, 0.58, 0.33, 0.77, 0.25, 0.10, 0.05, 0.80, 0.55]), shape: [6, 3] };
      const { weights, output } = await attention.attentionWithoutWeights(x);
      return { backend: attention.backend, fallbackReason: attention.fallbackReason, shape: weights.shape,
        row: Array.from(weights.data.slice(6, 12)), context: Array.from(output.data.slice(3, 6)),
        overflow: await runOverflowCases(attention) };
    });
    expectOverflowAnswers(expect, result.overflow, 'webgpu');
    expect(result.backend).toBe('webgpu');
    expect(result.fallbackReason).toBeNull();
    expect(result.shape).toEqual([6, 6]);
    [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581].forEach((w, j) => expect(result.row[j]).toBeCloseTo(w, 4));
    [0.4419, 0.6515, 0.5683].forEach((c, j) => expect(result.context[j]).toBeCloseTo(c, 4));
  });
});
