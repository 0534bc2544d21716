// Each WGSL kernel on its own, in headless Chromium's WebGPU (SwiftShader), against the plain loop of its
// math in float64: GEMM (scalar and vec4 loads, transposed B, bias, batches), the row softmax (every mask
// mode and normalisation, −∞ inputs), fused attention (online softmax, causal, dropout). Sizes include 1,
// primes and sizes that are not multiples of the 64 × 64 × 16 tile.
import { test, expect } from '@playwright/test';

const TOLERANCE = 1e-4;

test.describe('WebGPU kernels', () => {
  test.beforeEach(async ({ page }) => {
    await page.goto('/tests/e2e/pages/webgpu.html');
    await page.waitForFunction(() => window.harnessReady === true);
  });

  test('the adapter is WebGPU through SwiftShader, labelled CPU-emulated', async ({ page }) => {
    const info = await page.evaluate(() => window.harness.adapterInfo());
    expect(info.label).toContain('SwiftShader (CPU-emulated)');
    expect(info.emulated).toBe(true);
  });

  const gemmCases = [
    { M: 1, N: 1, K: 1 },
    { M: 2, N: 3, K: 5 },
    { M: 7, N: 13, K: 3 },
    { M: 64, N: 64, K: 16 },
    { M: 67, N: 131, K: 37, batch: 3 },
    { M: 67, N: 132, K: 36, batch: 2 }, // K and N multiples of 4: vec4 loads
    { M: 65, N: 1, K: 17, transposeB: true },
    { M: 29, N: 71, K: 20, transposeB: true, batch: 2 }, // vec4 loads of Bᵀ
    { M: 31, N: 33, K: 129, bias: true, alpha: 0.25 },
  ];
  // One page for all the shapes: SwiftShader makes each new page and device cost seconds.
  for (const staged of [true, false]) {
    const variant = staged ? 'variant 1 (workgroup-memory tiles)' : 'variant 2 (direct loads)';
    test(`GEMM ${variant} matches the loop for sizes of 1, primes and non-multiples of the tile, with and without vec4 loads`, async ({ page }) => {
      const differences = await page.evaluate(async ({ cases, staged }) => {
        const out = [];
        for (const shape of cases) out.push(await window.harness.checkGemm({ ...shape, staged }));
        return out;
      }, { cases: gemmCases, staged });
      gemmCases.forEach((shape, i) => expect(differences[i], JSON.stringify(shape)).toBeLessThanOrEqual(TOLERANCE));
    });
  }

  test('row softmax matches the loop for every mask mode and normalisation, keeping −∞ exact', async ({ page }) => {
    const results = await page.evaluate(async () => {
      const out = [];
      for (const causal of [false, true]) {
        for (const maskMode of [0, 1, 2]) {
          for (const normalization of [0, 1, 2]) {
            const shape = causal ? { matrices: 3, rowsPerMatrix: 7, cols: 11 } : { matrices: 2, rowsPerMatrix: 5, cols: 131 };
            const result = await window.harness.checkRowSoftmax({ ...shape, causal, maskMode, normalization, scale: 0.7 });
            out.push({ causal, maskMode, normalization, ...result });
          }
        }
      }
      out.push({ single: true, ...(await window.harness.checkRowSoftmax({ matrices: 1, rowsPerMatrix: 1, cols: 1, causal: true, maskMode: 0, normalization: 0, scale: 1 })) });
      return out;
    });
    for (const result of results) {
      expect(result.maxAbsDifference, JSON.stringify(result)).toBeLessThanOrEqual(TOLERANCE);
      expect(result.infinitiesMatch, JSON.stringify(result)).toBe(true);
    }
  });

  const fusedCases = [
    { batch: 1, heads: 1, Tq: 1, Tk: 1, headDim: 1, causal: false },
    { batch: 2, heads: 3, Tq: 7, Tk: 7, headDim: 5, causal: true },
    { batch: 2, heads: 2, Tq: 13, Tk: 29, headDim: 8, causal: true, maskMode: 2 },
    { batch: 1, heads: 3, Tq: 67, Tk: 67, headDim: 16, causal: true, maskMode: 1, dropout: 0.3, seed: 42 },
    { batch: 2, heads: 1, Tq: 5, Tk: 131, headDim: 64, causal: false, dropout: 0.1, seed: 7 },
    { batch: 1, heads: 2, Tq: 70, Tk: 33, headDim: 96, causal: true },
    // d_head above 128: 8 keys per tile, so both tiles fit the 16 KiB of workgroup memory every adapter offers
    { batch: 1, heads: 1, Tq: 19, Tk: 21, headDim: 200, causal: true },
  ];
  test('fused attention (online softmax) matches the unfused loop, causal or not, with dropout', async ({ page }) => {
    const differences = await page.evaluate(async (cases) => {
      const out = [];
      for (const shape of cases) out.push(await window.harness.checkFusedAttention(shape));
      return out;
    }, fusedCases);
    fusedCases.forEach((shape, i) => expect(differences[i], JSON.stringify(shape)).toBeLessThanOrEqual(TOLERANCE));
  });
});
