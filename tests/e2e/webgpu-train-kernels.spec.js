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
});
