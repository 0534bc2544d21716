// Most visitors' browsers have no WebGPU adapter. The other specs run Chromium with
// --enable-unsafe-webgpu; this one launches it without, as such a browser is, and walks every step:
// the page computes on WASM SIMD and says nothing on the console. The one exception is step 9, whose
// WebGPU row has to ask for an adapter: Chromium itself then logs "No available adapters.", and the
// row must say why WebGPU is missing instead of showing numbers.
import { chromium, expect, test } from '@playwright/test';
import { CHROMIUM_ARGS } from '../../playwright.config.js';
import { openPage, PAGE, watchConsole } from './page-helpers.js';

const STEPS_THAT_NEVER_ASK_FOR_A_GPU = [
  'framing', 'loop', 'matmul', 'softmax', 'self-attention', 'weights', 'causal', 'dropout', 'multihead', 'cross',
];
const CHROMIUM_NO_ADAPTER = 'warning: No available adapters.';

test.describe('in a browser without a WebGPU adapter', () => {
  let browser;
  test.beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: CHROMIUM_ARGS.filter((flag) => flag !== '--enable-unsafe-webgpu'),
    });
  });
  test.afterAll(async () => browser?.close());

  test('every step but the check runs on WASM SIMD with a clean console', async ({ baseURL }) => {
    const page = await browser.newPage({ baseURL });
    const problems = watchConsole(page);
    for (const id of STEPS_THAT_NEVER_ASK_FOR_A_GPU) {
      await openPage(page, `?step=${id}`, PAGE);
      expect(await page.evaluate(() => window.attentionPlayground.lastRun().backend)).toBe('wasm-simd');
    }
    expect(problems).toEqual([]);
  });

  test("step 9's WebGPU row says why it is missing; Chromium's own adapter message is the only one", async ({ baseURL }) => {
    const page = await browser.newPage({ baseURL });
    const problems = watchConsole(page);
    await openPage(page, '?step=check', PAGE);
    const rows = await page.evaluate(() => window.attentionPlayground.lastRun().result.backends.rows);
    const webgpu = rows.find((row) => row.backend === 'webgpu');
    expect(webgpu.output).toBeUndefined();
    expect(webgpu.error).toMatch(/adapter/i);
    expect(rows.filter((row) => row.comparison?.allclose).map((row) => row.backend)).toEqual(['wasm-simd', 'wasm-baseline', 'js']);
    expect(problems.filter((problem) => problem !== CHROMIUM_NO_ADAPTER)).toEqual([]);
  });
});
