// The WASM fast path (cpp/kernels/, chosen in cpp/paths/fast_attention.cpp): the multi-head functions with
// `intermediates: false` return only the output, equal to PyTorch's on every fixture case (also on the JS
// reference), the relaxed-SIMD tiles' too (relaxed-tile-check.mjs), and to the
// teaching path on larger, awkward shapes (tiles of 32 queries × 64 keys, heads of odd width), in
// both WASM builds. Also: every numbered GEMM variant equals the reference variant, with the plain tiles
// and with the relaxed-SIMD ones.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import { installRelaxedTile } from '../../web/src/core/backends/relaxed-tile.js';
import { attentionFor } from './backends.js';
import { loadFixture } from './fixtures.js';
import { randomTensor } from './make-tensors.js';
import { compareTensors } from './tolerance.js';

const BUILDS = ['wasm-simd', 'wasm-baseline'];
const MULTIHEAD_FUNCTIONS = ['multiheadAttentionSplit', 'multiheadAttentionFused', 'multiheadAttentionStacked', 'crossAttention'];
const CONTRACT = { atol: 1e-5, rtol: 1e-5 };

function expectClose(actual, expected, tolerance = CONTRACT) {
  const { ok, report } = compareTensors(actual, expected, tolerance);
  expect(ok, report).toBe(true);
}

/**
 * A (rows, cols) weight matrix uniform in ±1/√rows, as torch.nn.Linear initialises it: outputs stay of
 * order 1, so float32 rounding stays far below the contract's 1e-5 (with ±1 weights and d=48 the
 * projections alone reach |values| ≈ 5 and summation order shows at 2e-5).
 */
function weightMatrix(rows, cols, seed) {
  const matrix = randomTensor([rows, cols], seed);
  const bound = 1 / Math.sqrt(rows);
  for (let i = 0; i < matrix.data.length; i++) matrix.data[i] *= bound;
  return matrix;
}

function splitWeights(dIn, dOut, seed, { biases = true, out = true } = {}) {
  const weights = {
    query: weightMatrix(dIn, dOut, seed), key: weightMatrix(dIn, dOut, seed + 1), value: weightMatrix(dIn, dOut, seed + 2),
  };
  if (biases) Object.assign(weights, { queryBias: randomTensor([dOut], seed + 3), keyBias: randomTensor([dOut], seed + 4), valueBias: randomTensor([dOut], seed + 5) });
  if (out) Object.assign(weights, { outWeight: weightMatrix(dOut, dOut, seed + 6), outBias: randomTensor([dOut], seed + 7) });
  return weights;
}

// Every fixture case with intermediates: false, on both WASM builds (the fused kernel) and on the JS
// reference (its lean path): the logits-near-1e4 cases (dyadic inputs, exact Q·Kᵀ) hold the fused
// kernel's softmax to the contract where rounding before the max is subtracted would show.
describe.each([...BUILDS, 'js'])('%s with intermediates: false', (build) => {
  describe.each(MULTIHEAD_FUNCTIONS)('%s', (fn) => {
    const fixture = loadFixture(fn);
    it.each(fixture.cases.map((testCase) => [testCase.name, testCase]))('matches PyTorch: %s', async (_, testCase) => {
      const attention = await attentionFor(build);
      const args = [...testCase.args];
      args[args.length - 1] = { ...args[args.length - 1], intermediates: false };
      const result = attention[fn](...args);
      expect(Object.keys(result)).toEqual(['output']);
      expectClose(result.output, testCase.expected.output, { atol: testCase.atol ?? 1e-5, rtol: testCase.rtol ?? 1e-5 });
    });
  });

  // scaledDotProductAttention: q, k, v given directly. On js the planner's fused path (the reference's
  // row-at-a-time form) wherever it applies (no attnMask, no dropoutP); on the WASM builds the fused kernel
  // where it also has Ev = E (and scale > 0), the near-1e4 cases with Ev = E among them.
  describe('scaledDotProductAttention', () => {
    const fixture = loadFixture('scaledDotProductAttention');
    it.each(fixture.cases.map((testCase) => [testCase.name, testCase]))('matches PyTorch: %s', async (_, testCase) => {
      const attention = await attentionFor(build);
      const options = { ...(testCase.args[3] ?? {}), intermediates: false };
      const result = attention.scaledDotProductAttention(...testCase.args.slice(0, 3), options);
      expect(Object.keys(result)).toEqual(['output']);
      expectClose(result.output, testCase.expected.output, { atol: testCase.atol ?? 1e-5, rtol: testCase.rtol ?? 1e-5 });
      const [query, , value] = testCase.args;
      const fusedApplies = !options.attnMask && !(options.dropoutP > 0) && (build === 'js' || query.shape.at(-1) === value.shape.at(-1));
      expect(attention.lastCall.path).toBe(fusedApplies ? 'fused' : 'teaching');
    });
    it('the fixture holds logits near 1e4 on the fused path', () => {
      const near = fixture.cases.filter(({ name }) => name.includes('1e4'));
      expect(near.filter(({ args }) => args[0].shape.at(-1) === args[2].shape.at(-1)).length).toBe(2);
    });
  });

  it('the fixtures hold logits near ±1e4 for every multi-head function', () => {
    for (const fn of MULTIHEAD_FUNCTIONS) expect(loadFixture(fn).cases.some(({ name }) => name.includes('1e4')), fn).toBe(true);
  });
});

describe.each(BUILDS)('fast path on %s', (build) => {

  const SHAPES = [
    { B: 1, T: 1, dIn: 5, dOut: 6, heads: 2 },
    { B: 2, T: 33, dIn: 20, dOut: 24, heads: 3 },
    { B: 1, T: 70, dIn: 48, dOut: 48, heads: 4 },
    { B: 1, T: 131, dIn: 17, dOut: 26, heads: 2 },
  ];
  it.each(SHAPES)('split equals the teaching path, causal and not: B=$B, T=$T, d_out=$dOut, H=$heads', async ({ B, T, dIn, dOut, heads }) => {
    const attention = await attentionFor(build);
    const x = randomTensor([B, T, dIn], 100 + T);
    const weights = splitWeights(dIn, dOut, 200 + T);
    for (const causal of [true, false]) {
      for (const options of [{ heads, causal }, { heads, causal, scale: false, temperature: 3 }]) {
        const teaching = attention.multiheadAttentionSplit(x, weights, options);
        const fast = attention.multiheadAttentionSplit(x, weights, { ...options, intermediates: false });
        expectClose(fast.output, teaching.output);
      }
    }
  });

  it('fused in-projection equals split with the same weights, on a 2-tile sequence', async () => {
    const attention = await attentionFor(build);
    const [T, d, heads] = [90, 32, 4];
    const x = randomTensor([T, d], 7);  // unbatched (T, C): the API adds and removes B
    const inProjection = weightMatrix(d, 3 * d, 8);
    const inBias = randomTensor([3 * d], 9);
    const teaching = attention.multiheadAttentionFused(x, { inProjection, inBias }, { heads, causal: true });
    const fast = attention.multiheadAttentionFused(x, { inProjection, inBias }, { heads, causal: true, intermediates: false });
    expect(fast.output.shape).toEqual([T, d]);
    expectClose(fast.output, teaching.output);
  });

  it('stacked heads of width 5 equal the teaching path', async () => {
    const attention = await attentionFor(build);
    const x = randomTensor([1, 40, 7], 11);
    const heads = [0, 1, 2].map((h) => ({
      query: weightMatrix(7, 5, 20 + h), key: weightMatrix(7, 5, 30 + h), value: weightMatrix(7, 5, 40 + h),
      ...(h === 1 ? { queryBias: randomTensor([5], 50) } : {}),
    }));
    const weights = { heads, outWeight: weightMatrix(15, 15, 60) };
    const teaching = attention.multiheadAttentionStacked(x, weights, { causal: true });
    const fast = attention.multiheadAttentionStacked(x, weights, { causal: true, intermediates: false });
    expectClose(fast.output, teaching.output);
  });

  it('causal cross-attention with Tq ≠ Tk (top-left aligned) equals the teaching path', async () => {
    const attention = await attentionFor(build);
    for (const [Tq, Tk] of [[45, 100], [100, 45]]) {
      const xQuery = randomTensor([2, Tq, 12], Tq);
      const xContext = randomTensor([2, Tk, 9], Tk);
      const weights = {
        query: weightMatrix(12, 16, 1), key: weightMatrix(9, 16, 2), value: weightMatrix(9, 16, 3),
        keyBias: randomTensor([16], 4), outWeight: weightMatrix(16, 16, 5),
      };
      const teaching = attention.crossAttention(xQuery, xContext, weights, { heads: 2, causal: true });
      const fast = attention.crossAttention(xQuery, xContext, weights, { heads: 2, causal: true, intermediates: false });
      expectClose(fast.output, teaching.output);
    }
  });

  it('rejects bad input with the teaching path\'s message', async () => {
    const attention = await attentionFor(build);
    const x = randomTensor([1, 4, 3], 1);
    const weights = splitWeights(3, 10, 2, { biases: false, out: false });
    expect(() => attention.multiheadAttentionSplit(x, weights, { heads: 3, intermediates: false }))
      .toThrow('multiheadAttentionSplit: d_out=10 is not divisible by heads=3');
    const bad = { ...weights, query: weightMatrix(4, 2, 3) };
    let teachingMessage;
    try {
      attention.multiheadAttentionSplit(x, bad, { heads: 2 });
    } catch (error) {
      teachingMessage = error.message;
    }
    expect(teachingMessage).toMatch(/^multiheadAttentionSplit: weights\.query/);
    expect(() => attention.multiheadAttentionSplit(x, bad, { heads: 2, intermediates: false })).toThrow(teachingMessage);
    // And the module keeps working.
    const ok = attention.multiheadAttentionSplit(x, splitWeights(3, 4, 5), { heads: 2, causal: true, intermediates: false });
    expect(ok.output.shape).toEqual([1, 4, 4]);
  });

  it('every numbered GEMM variant equals the reference variant (1), plain and with Bᵀ', async () => {
    const glue = await import(`../../web/src/core/wasm/attention-${build.slice(5)}.mjs`);
    const wasmBinary = readFileSync(new URL(`../../web/src/core/wasm/attention-${build.slice(5)}.wasm`, import.meta.url));
    const core = await glue.default({ wasmBinary });
    const info = core.fastPathInfo();
    expect(info.vocabulary).toBe(build === 'wasm-simd' ? 'wasm_simd128' : 'scalar');
    const a = randomTensor([2, 37, 300], 1);  // B=2 (shared b), M=37, K=300 > one depth block
    for (const transposeB of [false, true]) {
      const b = randomTensor(transposeB ? [29, 300] : [300, 29], 2);
      const reference = core.matmulVariant(a, b, { transposeB, variant: 1 });
      for (const { number } of info.variants) {
        const result = core.matmulVariant(a, b, { transposeB, variant: number });
        expect(result.output.shape).toEqual([2, 37, 29]);
        expectClose(result.output, reference.output, { atol: 1e-4, rtol: 1e-5 });
      }
    }
    const wrong = core.matmulVariant(a, randomTensor([300, 29], 2), { variant: 0 });
    expect(wrong).toBeInstanceOf(Error);
    expect(wrong.message).toBe(`matmul: options.variant=0; expected an integer from 1 to ${info.variants.length}`);
  });
});

describe('relaxed-SIMD tile', () => {
  it('installs where the engine validates it, and otherwise leaves the plain simd128 tile working', async () => {
    const glue = await import('../../web/src/core/wasm/attention-simd.mjs');
    const core = await glue.default({ wasmBinary: readFileSync(new URL('../../web/src/core/wasm/attention-simd.wasm', import.meta.url)) });
    const tile = readFileSync(new URL('../../web/src/core/wasm/relaxed-tile.wasm', import.meta.url));
    const a = randomTensor([67, 300], 1);
    const b = randomTensor([300, 45], 2);
    const reference = core.matmulVariant(a, b, { variant: 1 });
    const reason = await installRelaxedTile(core, tile);
    if (WebAssembly.validate(tile)) {
      expect(reason).toBe('');
      expect(core.fastPathInfo()).toMatchObject({ relaxedTileInstalled: true });
      expect([6, 7]).toContain(core.fastPathInfo().defaultVariant);  // the tile the installer measured faster
    } else {
      expect(reason).toBe('this engine does not support relaxed SIMD (the tile module does not validate)');
      expect(core.fastPathInfo()).toMatchObject({ relaxedTileInstalled: false, defaultVariant: 3 });
    }
    // Whichever tiles run, the default matmul and the replaceable-tile variants give the reference's numbers.
    expectClose(core.matmul(a, b, {}).output, reference.output, { atol: 1e-4, rtol: 1e-5 });
    for (const variant of [5, 6, 7]) {
      expectClose(core.matmulVariant(a, b, { variant }).output, reference.output, { atol: 1e-4, rtol: 1e-5 });
    }
  });

  it('every relaxed-SIMD tile equals the reference on edge shapes, in GEMM and in the fused attention', () => {
    // In a child Node with relaxed SIMD enabled (relaxed-tile-check.mjs says why); a Node that ships it
    // needs no flag.
    const tile = readFileSync(new URL('../../web/src/core/wasm/relaxed-tile.wasm', import.meta.url));
    const flags = WebAssembly.validate(tile) ? [] : ['--experimental-wasm-relaxed-simd'];
    const script = fileURLToPath(new URL('./relaxed-tile-check.mjs', import.meta.url));
    const child = spawnSync(process.execPath, [...flags, script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    const { reason, defaultVariant, failures } = JSON.parse(child.stdout);
    expect(reason).toBe('');
    expect([6, 7]).toContain(defaultVariant);
    expect(failures).toEqual({});
  });
});
