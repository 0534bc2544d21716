// The two embeds of examples/course-page.html (an iframe with URL parameters, the custom element),
// their postMessage API, the origin check, the exports, and the single-file page from file://.
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { test, expect } from '@playwright/test';
import { startServer } from '../../scripts/serve.mjs';
import { afterRender, expectPageMatchesCore, openPage, watchConsole, openSettings } from './page-helpers.js';
import { elementParameters } from '../../scripts/embedding-docs.mjs';
import { STATE_TABLE } from '../../web/src/ui/state.js';
import { EXERCISES } from '../../web/src/exercises/bank/index.js';

test('course page: the iframe shows one idea, hides what the instructor hid, and sizes itself', async ({ page }) => {
  const problems = watchConsole(page);
  await page.goto('/examples/course-page.html');
  const frame = page.frameLocator('#causal-frame');
  await expect(frame.locator('.step-title')).toHaveText('Causal mask');
  await expect(frame.locator('.code')).toBeHidden();
  await expect(frame.locator('.explanation')).toBeHidden();
  await expect(frame.locator('.top')).toBeHidden();
  await expect(frame.locator('[data-control="sentence"]')).toBeDisabled();
  await expect(frame.locator('table[data-tensor="weights"]')).toHaveCount(1);
  // The page reported its height and the course page applied it (the frame started at 600 px).
  await expect.poll(async () => page.locator('#causal-frame').evaluate((f) => f.style.height)).toMatch(/^\d+px$/);
  const frameHeight = await page.locator('#causal-frame').evaluate((f) => f.getBoundingClientRect().height);
  const contentHeight = await frame.locator('body').evaluate((b) => b.getBoundingClientRect().height);
  expect(Math.abs(frameHeight - contentHeight)).toBeLessThanOrEqual(4);
  expect(problems).toEqual([]);
});

test('course page: the custom element renders its step and answers its API', async ({ page }) => {
  const problems = watchConsole(page);
  await page.goto('/examples/course-page.html');
  const element = page.locator('attention-playground');
  await expect(element.frameLocator('iframe').locator('.step-title')).toHaveText('Multi-head attention');
  const read = () => element.evaluate((el) => el.getTensors());
  await expect.poll(async () => (await read()).tensors.weights?.shape).toEqual([2, 6, 6]);
  const before = await read();
  expect(before.step).toBe('multihead');
  expect(before.backend).toMatch(/^wasm-/);

  const notices = await element.evaluate((el) => el.setState({ heads: 4, T: 99 }));
  expect(notices).toHaveLength(1);
  expect(notices[0]).toContain('T');
  await expect.poll(async () => (await read()).tensors.weights?.shape).toEqual([4, 6, 6]);
  expect((await element.evaluate((el) => el.getState())).heads).toBe(4);

  await element.evaluate((el) => el.next());
  await expect.poll(async () => (await read()).step).toBe('cross');
  await element.evaluate((el) => el.previous());
  await expect.poll(async () => (await read()).step).toBe('multihead');
  expect(problems).toEqual([]);
});

test('messages from origins the embedding page did not allow are ignored', async ({ page, baseURL }) => {
  // The course page comes from a second server on another port (another origin, served like a plain
  // static host); the playground frames come from the test server: they are cross-origin to it.
  const other = await startServer({ root: '.', port: 0, isolated: false });
  try {
    await page.goto(`${other.url}examples/course-page.html`);
    const ask = (query) => page.evaluate(([base, search]) => new Promise((done) => {
      const frame = document.createElement('iframe');
      frame.src = `${base}dist/index.html?embed=1${search}`;
      window.addEventListener('message', (event) => {
        if (event.source === frame.contentWindow && event.data?.type === 'attention-playground:state') done('answered');
      });
      frame.addEventListener('load', () => {
        const post = () => frame.contentWindow.postMessage({ type: 'attention-playground:get-state', id: 'q' }, '*');
        setTimeout(post, 1500);
        setTimeout(() => done('ignored'), 3000);
      });
      document.body.append(frame);
    }), [baseURL, query]);
    expect(await ask('')).toBe('ignored');
    expect(await ask(`&origin=${encodeURIComponent(new URL(other.url).origin)}`)).toBe('answered');
  } finally {
    await other.close();
  }
});

test('every heatmap exports as PNG, SVG, CSV and JSON', async ({ page }) => {
  await openPage(page, '?step=causal');
  const figure = page.locator('figure[data-tensor="masked"]');
  const save = async (kind) => {
    await figure.locator('.export-menu summary').click(); // one menu per tensor
    const [download] = await Promise.all([page.waitForEvent('download'), figure.locator(`[data-export="${kind}"]`).click()]);
    expect(download.suggestedFilename()).toBe(`masked.${kind}`);
    return readFileSync(await download.path());
  };
  const png = await save('png');
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  const svg = (await save('svg')).toString();
  expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  expect(svg).toContain('masked (T=6, T=6)');
  const csv = (await save('csv')).toString().trim().split('\n');
  expect(csv[0]).toBe(',"Your","journey","starts","with","one","step"');
  expect(csv[1].split(',').slice(2)).toEqual(['-Infinity', '-Infinity', '-Infinity', '-Infinity', '-Infinity']);
  const json = JSON.parse((await save('json')).toString());
  expect(json.shape).toEqual([6, 6]);
  expect(json.data[1]).toBe('-Infinity');
  const shown = await page.evaluate(() => Array.from(window.attentionPlayground.lastRun().result.tensors.find((t) => t.name === 'masked').tensor.data));
  expect(json.data[0]).toBe(shown[0]);
});

test('the page works from a plain static host (no COOP/COEP) and never leaves it (no CDN)', async ({ page }) => {
  const problems = watchConsole(page);
  const plain = await startServer({ root: 'dist', port: 0, isolated: false });
  const outside = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === new URL(plain.url).origin || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    outside.push(url.href);
    return route.abort();
  });
  try {
    await openPage(page, '?step=weights', plain.url);
    expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(false);
    expect(await page.evaluate(() => window.attentionPlayground.lastRun().backend)).toMatch(/^wasm-/);
    await expect(page.locator('.formula .katex')).toBeVisible();
    await expectPageMatchesCore(page, 'js');
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
  } finally {
    await plain.close();
  }
});

test('the single-file page works opened from file://, WASM included', async ({ page }) => {
  const problems = watchConsole(page);
  const url = pathToFileURL(resolve('dist/playground-single.html')).href;
  await openPage(page, '?step=causal&T=7', url);
  const run = await page.evaluate(() => ({ backend: window.attentionPlayground.lastRun().backend, error: window.attentionPlayground.lastRun().error }));
  expect(run.error).toBeNull();
  expect(run.backend).toMatch(/^wasm-/);
  await expect(page.locator('.formula .katex')).toBeVisible();
  await expectPageMatchesCore(page, 'js');
  await openSettings(page);
  await afterRender(page, () => page.locator('#backend-select').selectOption('wasm-baseline'));
  await expect(page.locator('.badge')).toHaveText(/^WASM · /);
  await expectPageMatchesCore(page, 'js');
  expect(problems).toEqual([]);
});

// A valid value other than the default for each parameter of the state table, generated from the table; the few
// that depend on one another are set together (multi-head, d_out 4, four heads, head 3).
function attributeValues() {
  const exercise = EXERCISES.find((e) => e.step === 'multihead').id; // an exercise opens its own step
  const chosen = { step: 'multihead', dOut: 4, heads: 4, head: 3, view: 'walk', lock: ['T'], hide: ['code'], edits: 'x.0.0:0.5', exercise };
  const values = {};
  for (const [attribute, name] of Object.entries(elementParameters())) {
    const p = STATE_TABLE.find((entry) => entry.name === name);
    let value = chosen[name];
    if (value === undefined) {
      if (p.type === 'int') value = p.default + 1 <= p.max ? p.default + 1 : p.default - 1;
      else if (p.type === 'number') value = Math.round((p.default + (p.step ?? 0.01) * 2) * 1e6) / 1e6;
      else if (p.type === 'bool') value = !p.default;
      else if (p.type === 'enum') value = p.values.find((v) => v !== p.default && v !== '');
      else if (p.type === 'text') value = 'one two three';
      else if (p.type === 'set') value = [p.values[0]];
    }
    values[attribute] = { name, value, text: Array.isArray(value) ? value.join(',') : typeof value === 'boolean' ? (value ? '1' : '0') : String(value) };
  }
  return values;
}

test('the element takes every state parameter as an attribute; setState resolves with the frame\'s notices; hide= takes exercises', async ({ page }) => {
  const problems = watchConsole(page);
  await page.goto('/examples/course-page.html');
  const values = attributeValues();
  await page.evaluate((attributes) => {
    const element = document.createElement('attention-playground');
    element.id = 'every-attribute';
    for (const [attribute, { text }] of Object.entries(attributes)) element.setAttribute(attribute, text);
    document.body.append(element);
  }, values);
  const element = page.locator('#every-attribute');
  const frame = element.frameLocator('iframe');
  await expect(frame.locator('.step-title')).toHaveText('Multi-head attention');
  const state = await element.evaluate((el) => el.getState());
  for (const { name, value } of Object.values(values)) {
    if (name === 'edits') expect(state.edits, name).toEqual([{ matrix: 'x', row: 0, col: 0, value: 0.5 }]);
    else if (typeof value === 'number') expect(state[name], name).toBeCloseTo(value, 6);
    else expect(state[name], name).toEqual(value);
  }
  // No notice: every value was taken.
  await expect(frame.locator('.notice')).toHaveCount(0);
  // heads = 3 does not divide d_out = 4: the frame moves it (and head 3 with it) and says so, and setState
  // resolves with the same notices.
  const notices = await element.evaluate((el) => el.setState({ heads: 3 }));
  expect(notices[0]).toContain('heads=3');
  const shown = await frame.locator('.notice').allTextContents();
  expect(shown.length).toBe(notices.length);
  notices.forEach((notice, i) => expect(shown[i]).toContain(notice));
  expect(problems).toEqual([]);
});

test('an embedded step with the code, explanation and exercises hidden is as tall as its picture and controls need', async ({ page }) => {
  await openPage(page, '?embed=1&step=causal&hide=code,explanation,exercises,nav');
  await expect(page.locator('.exercises')).toBeHidden();
  const sizes = await page.evaluate(() => {
    const height = (selector) => document.querySelector(selector)?.getBoundingClientRect().height ?? 0;
    return {
      body: document.body.getBoundingClientRect().height,
      parts: height('.step-heading') + height('.step-top') + height('.results') + height('.view-tools'),
    };
  });
  // The page's own padding and gaps between the parts, and nothing else.
  expect(sizes.body).toBeLessThanOrEqual(sizes.parts + 120);
  expect(sizes.body).toBeLessThan(1100);
});
