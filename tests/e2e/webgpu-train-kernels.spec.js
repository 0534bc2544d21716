// The training kernels of web/src/gpu/train, each on SwiftShader (headless Chromium's WebGPU) against the
// JS trainer's math (web/src/train): |gpu − js| ≤ 1e-5 + 1e-5·|js| for gradients, optimiser state and
// parameters. Shapes are small and odd (not multiples of the workgroup sizes) so the spec stays short.
import { test, expect } from '@playwright/test';

test.describe('WebGPU training kernels', () => {
  test.beforeEach(async ({ page }) => {
    await page.goto('/tests/e2e/pages/webgpu-train.html');
    await page.waitForFunction(() => window.harnessReady === true);
  });

  async function expectWithin(page, name, cases) {
    const results = await page.evaluate(async ({ name, cases }) => {
      const out = [];
      for (const c of cases) out.push(await window.harness[name](c));
      return out;
    }, { name, cases });
    cases.forEach((c, i) => expect(results[i].excess, `${name} ${JSON.stringify(c)}: max |gpu − js| ${results[i].maxAbs}`).toBeLessThanOrEqual(0));
  }

  test('AdamW with clip_grad_norm_ equals torch.optim.AdamW as the JS trainer runs it, clipped or not', async ({ page }) => {
    await expectWithin(page, 'checkAdamw', [
      { lengths: [1] },
      { lengths: [7, 300, 1031], steps: 4 },
      { lengths: [7, 300, 1031], steps: 4, maxNorm: 1 }, // clipped (the norm is ~30)
      { lengths: [513, 5], steps: 2, maxNorm: 1e3, weightDecay: 0 }, // not clipped
    ]);
  });

  test('cross-entropy ignores −100 targets and gives (softmax − onehot)/count as the JS trainer', async ({ page }) => {
    await expectWithin(page, 'checkCrossEntropy', [
      { rows: 1, vocab: 1, ignoreEvery: 2 },
      { rows: 13, vocab: 131 },
      { rows: 5, vocab: 7, allIgnored: true }, // no counted row: loss 0, gradient 0
      { rows: 37, vocab: 256, ignoreEvery: 5 },
    ]);
  });

  test('LayerNorm forward, backward (added to the residual gradient) and γ/β gradients equal the JS trainer', async ({ page }) => {
    await expectWithin(page, 'checkLayerNorm', [{ rows: 1, d: 1 }, { rows: 7, d: 13 }, { rows: 33, d: 96 }, { rows: 5, d: 200 }]);
  });

  test('embedding gradients: the token scatter-add without atomics and the positional column sum', async ({ page }) => {
    await expectWithin(page, 'checkEmbeddingGrad', [{ B: 1, T: 1, vocab: 1, d: 1 }, { B: 3, T: 7, vocab: 11, d: 5 }, { B: 4, T: 16, vocab: 37, d: 24 }]);
  });

  test('bias gradients are column sums over the rows', async ({ page }) => {
    await expectWithin(page, 'checkBiasGrad', [{ rows: 1, cols: 1 }, { rows: 67, cols: 13 }, { rows: 130, cols: 257 }]);
  });

  test('causal attention: forward with lse, and the backward recomputing the weights from lse, equal the JS trainer', async ({ page }) => {
    await expectWithin(page, 'checkAttention', [
      { B: 1, T: 1, H: 1, headDim: 1 },
      { B: 2, T: 7, H: 3, headDim: 5 },
      { B: 1, T: 67, H: 2, headDim: 16 }, // more rows than one workgroup
      { B: 2, T: 9, H: 2, headDim: 32 },
      { B: 1, T: 130, H: 1, headDim: 8 }, // three workgroups, the last one partial; the key tiles past its rows
      { B: 1, T: 19, H: 1, headDim: 150 }, // d_head above 128: 8 keys per tile
    ]);
  });

  test('linear layers: y = x·Wᵀ + b, dx = dy·W, gW = dyᵀ·x (transpose, then the GEMM) and gb, on both GEMM variants', async ({ page }) => {
    await expectWithin(page, 'checkLinear', [
      { rows: 1, dIn: 1, dOut: 1 },
      { rows: 37, dIn: 13, dOut: 7 },
      { rows: 70, dIn: 24, dOut: 33, staged: true },
      { rows: 64, dIn: 16, dOut: 16 },
      { rows: 200, dIn: 12, dOut: 9 }, // dW split over the rows: 3 chunks of 64 and a remainder of 8
      { rows: 128, dIn: 8, dOut: 20 }, // 2 chunks, no remainder
    ]);
  });
});
