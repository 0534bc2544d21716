// The exercise views on the built page: solve, fail, hint and reveal; an infinite loop stopped; learner
// code that reaches for the network, the page, the storage or the postMessage channel gets nothing;
// progress survives a reload; axe finds nothing on the exercise views.
import { createServer } from 'node:http';
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { PAGE, watchConsole } from './page-helpers.js';
import { check, openExercise, setCode } from './exercise-helpers.js';

const SOFTMAX = 'self-attention/stable-softmax';

test('solve: the revealed solution passes every case', async ({ page }) => {
  const problems = watchConsole(page);
  const view = await openExercise(page, SOFTMAX, '&step=self-attention');
  await expect(view.locator('.exercise-outcome')).toHaveAttribute('data-outcome', 'unattempted');
  await expect(view.locator('.exercise-outcome')).toContainText('Not attempted');
  await view.locator('.exercise-reveal').click();
  await expect(view.locator('.exercise-solution pre')).toContainText('export default function softmax');
  await view.locator('.exercise-use-solution').click();
  await check(view, 'pass');
  await expect(view.locator('.exercise-outcome')).toContainText('Passed · 1 attempts');
  await expect(view.locator('.exercise-cases li[data-pass="true"]')).toHaveCount(5);
  await expect(view.locator('.exercise-cases')).toContainText('a fully masked row: passed');
  expect(problems).toEqual([]);
});

test('fail: a naive softmax fails at large logits, with the first differing cell and a heatmap of the difference', async ({ page }) => {
  const view = await openExercise(page, SOFTMAX);
  await setCode(page, view, `export default function softmax(x) {
  const N = x.shape[x.shape.length - 1];
  const data = new Float32Array(x.data.length);
  for (let r = 0; r < x.data.length / N; r++) {
    let sum = 0;
    for (let j = 0; j < N; j++) sum += Math.exp(x.data[r * N + j]);
    for (let j = 0; j < N; j++) data[r * N + j] = Math.exp(x.data[r * N + j]) / sum;
  }
  return { data, shape: [...x.shape] };
}`);
  await check(view, 'fail');
  await expect(view.locator('.exercise-outcome')).toContainText('Failed');
  await expect(view.locator('.exercise-mismatch')).toContainText('case “large logits”, position [0, 0]');
  await expect(view.locator('.exercise-diff canvas[role="img"]')).toBeVisible();
  await expect(view.locator('.exercise-cases li[data-pass="false"]').first()).toContainText('large logits');
});

test('hints come one level at a time, then run out', async ({ page }) => {
  const view = await openExercise(page, 'causal/mask-with-zero');
  await expect(view.locator('.exercise-kind')).toHaveText('Fix the bug');
  await expect(view.locator('.cm-content')).toContainText('? 0 :');
  for (let level = 1; level <= 2; level++) {
    await view.locator('.exercise-hint').click();
    await expect(view.locator('.exercise-hints li')).toHaveCount(level);
  }
  await expect(view.locator('.exercise-hints li').last()).toContainText('Hint 2 of 2: Mask with -Infinity');
  await expect(view.locator('.exercise-hint')).toBeDisabled();
  await expect(view.locator('.exercise-outcome')).toContainText('2 hints');
  await check(view, 'fail'); // the buggy starter as it is
});

test('an infinite loop is stopped and reported; the next check runs again', async ({ page }) => {
  const view = await openExercise(page, SOFTMAX);
  await setCode(page, view, 'export default function softmax(x) { for (;;) {} }');
  await check(view, 'error');
  await expect(view.locator('.exercise-error')).toContainText('time limit of 3 s');
  await view.locator('.exercise-reveal').click();
  await view.locator('.exercise-use-solution').click();
  await check(view, 'pass');
});

test('a result past the size limit is refused, and a module without a default export is an error', async ({ page }) => {
  const view = await openExercise(page, SOFTMAX);
  await setCode(page, view, 'export default () => ({ data: new Float32Array(2000000), shape: [2000000] });');
  await check(view, 'error');
  await expect(view.locator('.exercise-cases')).toContainText('returned 2000000 values; the limit is 1000000');
  await setCode(page, view, 'export const softmax = (x) => x;');
  await check(view, 'error');
  await expect(view.locator('.exercise-error')).toContainText('default export is missing');
});

// Hostile learner code. What reaches for the network, the page or its storage must throw inside the
// Worker: one check tries each and reports "NAME: blocked (ErrorName)" for each. What speaks on the
// Worker's channel must reach nobody: the check ends with the learner's own error, not a forged reply.
// Nothing reaches a server, the page hears no message, the page's storage is unchanged.
// The URLs are absolute, to a server of the test's own that counts what reaches it (a relative URL would
// fail to parse against the Worker's blob: URL before any policy is tested).
const BLOCKED = (url) => ({
  'fetch': `await fetch('${url}/fetch')`,
  'XMLHttpRequest': `const r = new XMLHttpRequest(); r.open('GET', '${url}/xhr', false); r.send()`,
  'WebSocket': `await new Promise((ok, no) => { const w = new WebSocket('${url.replace('http', 'ws')}/socket'); w.onopen = ok; w.onerror = () => no(new Error('no socket')); })`,
  'parent.postMessage': "parent.postMessage('hi', '*')",
  'localStorage': "localStorage.getItem('secret')",
  'indexedDB': "indexedDB.open('x')",
  'document': "document.cookie",
  'importScripts': `importScripts('${url}/importScripts.js')`,
  'eval of network code': `eval("fetch('${url}/eval')")`,
  'new Function': `new Function("return fetch('${url}/function')")()`,
  'import of network code': `await import('${url}/import.js')`,
  'a nested Worker': `await new Promise((ok, no) => { const w = new Worker('${url}/worker.js'); w.onerror = () => no(new Error('no worker')); setTimeout(ok, 500); })`,
});
const SILENCED = {
  'postMessage': "postMessage({ results: [] })",
  'the Worker\'s own postMessage, from its prototype': "DedicatedWorkerGlobalScope.prototype.postMessage.call(self, { results: [] })",
  'the runner\'s names': "post({ results: [] })",
};

/**
 * A submission that makes every attempt, then throws what became of them (short enough for the verdict's
 * 300 characters): "GOT blocked 12 of 12 (TypeError, …); reached: none" or the names of those that got through.
 */
const attempting = (attempts) => `export default async function softmax(x) {
  const blocked = [];
  const reached = [];
${Object.entries(attempts).map(([name, attempt]) => `  try { ${attempt}; reached.push(${JSON.stringify(name)}); } catch (e) { blocked.push(e.name); }`).join('\n')}
  throw new Error('GOT blocked ' + blocked.length + ' of ${Object.keys(attempts).length} (' + blocked.join(', ') + '); reached: ' + (reached.join(', ') || 'none'));
}`;

test('hostile learner code is contained: each attempt fails in the Worker with a clear verdict', async ({ page }) => {
  const requests = [];
  const server = createServer((request, response) => { requests.push(request.url); response.end('self.reached = 1;'); }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.on('listening', resolve));
  const blocked = BLOCKED(`http://127.0.0.1:${server.address().port}`);
  const view = await openExercise(page, SOFTMAX);
  await page.evaluate(() => {
    window.__heard = [];
    window.addEventListener('message', (event) => window.__heard.push(JSON.stringify(event.data).slice(0, 200)));
    localStorage.setItem('secret', 'page-only');
  });
  const firstCase = view.locator('.exercise-cases li').first();
  await setCode(page, view, attempting(blocked));
  await check(view, 'error');
  const count = Object.keys(blocked).length;
  await expect(firstCase).toContainText(new RegExp(`GOT blocked ${count} of ${count} \\(.*\\); reached: none`));
  // The silenced posts are harmless calls: the check must end with this submission's own error.
  await setCode(page, view, attempting(SILENCED).replace('GOT blocked', 'GOT silenced; blocked'));
  await view.locator('.exercise-check').click();
  await expect(firstCase).toContainText('GOT silenced; blocked');
  await expect(view.locator('.exercise-outcome')).toHaveAttribute('data-outcome', 'error');
  server.close();
  expect(requests).toEqual([]);
  expect(await page.evaluate(() => window.__heard.filter((m) => m.includes('hi') || m.includes('results')))).toEqual([]);
  expect(await page.evaluate(() => localStorage.getItem('secret'))).toBe('page-only');
});

test('predict: clicking the masked cells passes; the progress view and the reload keep attempts and hints', async ({ page }) => {
  await page.goto(`${PAGE}?step=softmax`);
  const item = page.locator('.exercises-list li[data-exercise="softmax/predict-masked-cells"]');
  await expect(item).toContainText('Not attempted');
  await item.getByRole('button').click();
  await expect(page).toHaveURL(/exercise=softmax%2Fpredict-masked-cells/);
  const view = page.locator('article.exercise[data-exercise="softmax/predict-masked-cells"]');
  await view.locator('.exercise-cells [data-cell="0.1"]').click();
  await check(view, 'fail');
  await view.locator('.exercise-hint').click();
  for (let i = 0; i < 5; i++) for (let j = i + 1; j < 5; j++) if (!(i === 0 && j === 1)) await view.locator(`.exercise-cells [data-cell="${i}.${j}"]`).click();
  await check(view, 'pass');
  await expect(item).toContainText('Passed · 2 attempts · 1 hints');

  await page.reload();
  const again = page.locator('article.exercise[data-exercise="softmax/predict-masked-cells"]');
  await expect(again.locator('.exercise-outcome')).toContainText('Passed · 2 attempts · 1 hints');
  await expect(again.locator('.exercise-hints li')).toHaveCount(1);
  await expect(again.locator('.exercise-cells [data-cell="0.4"]')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('.exercises-list li[data-exercise="softmax/predict-masked-cells"]')).toHaveAttribute('data-outcome', 'pass');

  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.exercises-export').click()]);
  const exported = JSON.parse(await (await download.createReadStream()).toArray().then((chunks) => Buffer.concat(chunks).toString()));
  expect(exported.exercises['softmax/predict-masked-cells']).toMatchObject({ attempts: 2, hintsUsed: 1, passed: true, outcome: 'pass' });
});

test('estimate and choice exercises check like code', async ({ page }) => {
  const estimate = await openExercise(page, 'multihead/gpt2-parameter-count');
  await estimate.getByLabel('Your estimate of parameters').fill('2359296');
  await check(estimate, 'fail');
  await estimate.getByLabel('Your estimate of parameters').fill('2360064');
  await check(estimate, 'pass');
  const choice = await openExercise(page, 'self-attention/which-heatmap-next');
  await choice.getByRole('radio', { name: 'each row sums to 1, all weights positive' }).check();
  await check(choice, 'pass');
});

test('a link to an exercise opens its step; going to another step closes it', async ({ page }) => {
  const view = await openExercise(page, 'dropout/scale-kept');
  await expect(page.locator('.step-title')).toHaveText('Dropout on the attention weights');
  await expect(view).toBeVisible();
  await page.locator('.pager .next').click();
  await expect(page.locator('article.exercise')).toHaveCount(0);
  await expect(page).not.toHaveURL(/exercise=/);
  await expect(page.locator('.exercises-list li[data-exercise="check/max-abs-error"]')).toBeVisible();
});

test('the editor is reachable and leavable by keyboard, and Tab is never trapped', async ({ page }) => {
  const view = await openExercise(page, 'loop/running-mean');
  await view.locator('.cm-content').focus();
  await expect(view.locator('.cm-content')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(view.locator('.cm-content')).not.toBeFocused();
  await expect(view.locator('.cm-content')).toHaveAttribute('aria-label', /Code editor for/);

  // Enter indents, Ctrl+Z undoes.
  await view.locator('.cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText('\nfunction extra() {');
  await page.keyboard.press('Enter');
  await page.keyboard.insertText('return 1;');
  await expect(view.locator('.cm-line').last()).toHaveText(/^\s+return 1;$/);
  await page.keyboard.press('Control+z');
  await expect(view.locator('.cm-content')).not.toContainText('return 1;');

  const cells = await openExercise(page, 'softmax/predict-masked-cells');
  await cells.locator('[data-cell="0.0"]').focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await expect(cells.locator('[data-cell="1.1"]')).toBeFocused();
  await page.keyboard.press('Space');
  await expect(cells.locator('[data-cell="1.1"]')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('.step-title')).toHaveText(/softmax/i); // the arrows stayed in the grid
});

for (const id of ['loop/running-mean', 'softmax/predict-masked-cells', 'self-attention/which-heatmap-next', 'matmul/estimate-weight']) {
  test(`axe finds no violations on the exercise view: ${id}`, async ({ page }) => {
    const view = await openExercise(page, id);
    await view.locator('.exercise-hint').click();
    await check(view, 'fail');
    const results = await new AxeBuilder({ page }).include('.exercises').analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);
  });
}
