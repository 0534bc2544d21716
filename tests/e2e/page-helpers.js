// Shared by the page's Playwright specs: open the built page, wait for a repaint, read the numbers the
// page shows (its screen-reader tables), and compute the same tensor independently with the core API.
import { expect } from '@playwright/test';

export const PAGE = '/dist/index.html';

/** Collects console errors and warnings and page errors; assert it is empty at the end of a test. */
export function watchConsole(page) {
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  return problems;
}

/** Opens the page (or `url`) and waits until it has drawn its first step. */
export async function openPage(page, query = '', url = PAGE) {
  await page.goto(`${url}${query}`);
  await page.waitForFunction(() => window.attentionPlayground?.lastRun()?.result || window.attentionPlayground?.lastRun()?.error);
}

/** Runs `action` and waits for the repaint that follows it. */
export async function afterRender(page, action) {
  await page.evaluate(() => {
    window.__nextRender = new Promise((resolve) => {
      const stop = window.attentionPlayground.onRender((run) => {
        stop();
        resolve(run.state.step);
      });
    });
  });
  await action();
  await page.evaluate(() => window.__nextRender);
}

/** The numbers of a shown tensor, read from its table (all panels, in order). */
export async function shownValues(page, name) {
  return page.evaluate((tensorName) => {
    const tables = [...document.querySelectorAll('table[data-tensor]')].filter((t) => t.dataset.tensor === tensorName);
    return tables.flatMap((table) => [...table.querySelectorAll('tbody td')].map((cell) => {
      const text = cell.textContent.replace('−', '-');
      return text === '-∞' ? -Infinity : Number(text);
    }));
  }, name);
}

/**
 * The tensor each step's check compares, computed in the page by a separately loaded core
 * (`backend`) from the page's own inputs and state: the oracle for "numbers on the page".
 */
export async function expectedValues(page, backend = null) {
  return page.evaluate(async (wanted) => {
    const run = window.attentionPlayground.lastRun();
    const api = await window.attentionPlayground.loadAttention({ backend: wanted ?? run.backend });
    const { inputs: i, state: s } = run;
    const attention = { scale: s.scale, temperature: s.temperature };
    const plain = (t) => Array.from(t.data);
    switch (s.step) {
      case 'loop': return { name: 'output', values: plain(api.causalAverageLoop(i.x).output) };
      case 'matmul': return { name: 'output', values: plain(api.causalAverageMatmul(i.x).output) };
      case 'softmax': return { name: 'weights', values: plain(api.causalAverageSoftmax(i.x).weights) };
      case 'self-attention': return { name: 'weights', values: plain(api.attentionWithoutWeights(i.x, { normalization: s.normalization }).weights) };
      case 'weights': return { name: 'weights', values: plain(await api.selfAttention(i.x, i.projection, attention).weights) };
      case 'causal': return { name: 'weights', values: plain(api.selfAttention(i.x, i.projection, { ...attention, causal: true, mask: s.mask }).weights) };
      case 'dropout': {
        const result = api.selfAttention(i.x, i.projection, { ...attention, causal: s.causal, dropout: s.dropout, seed: s.dropoutSeed, dropoutRng: s.dropoutRng });
        return { name: 'dropped', values: plain(result.dropped ?? result.weights) };
      }
      case 'multihead': return { name: 'context (split heads)', values: plain(api.multiheadAttentionSplit(i.x, i.projection, { ...attention, causal: s.causal, heads: s.heads }).context) };
      case 'cross': return { name: 'output', values: plain(api.crossAttention(i.x, i.xContext, i.crossProjection, { ...attention, heads: s.heads }).output) };
      default: return null;
    }
  }, backend);
}

/** The page's numbers equal the core's for the current state (to the 4 decimals the page writes). */
export async function expectPageMatchesCore(page, backend = null, tolerance = 6e-5) {
  const expected = await expectedValues(page, backend);
  if (!expected) return;
  const shown = await shownValues(page, expected.name);
  expect(shown.length, `${expected.name}: number of values shown`).toBe(expected.values.length);
  shown.forEach((value, index) => {
    if (!Number.isFinite(expected.values[index])) expect(value).toBe(expected.values[index]);
    else expect(Math.abs(value - expected.values[index]), `${expected.name}[${index}]`).toBeLessThanOrEqual(tolerance);
  });
}

/** Opens the page's settings panel (the backend, its GPU crossover) if it is closed. */
export async function openSettings(page) {
  const settings = page.locator('details[data-settings]');
  if (!(await settings.evaluate((details) => details.open))) await settings.locator(':scope > summary').click();
}
