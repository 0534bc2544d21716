// Exercises in an embed: `?exercise=ID&embed=1` shows that one exercise; `attention-playground:exercise`
// events reach the embedding page only when its origin is allowed (`origin=`), never otherwise; the
// single-file page runs the sandbox opened from file://.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test, expect } from '@playwright/test';
import { startServer } from '../../scripts/serve.mjs';
import { watchConsole } from './page-helpers.js';
import { check, openExercise } from './exercise-helpers.js';

const ID = 'causal/neg-inf-mask';

test('a course page on another origin hears exercise events only when origin= allows it', async ({ page, baseURL }) => {
  const course = await startServer({ root: '.', port: 0, isolated: false });
  try {
    const courseOrigin = new URL(course.url).origin;
    await page.goto(`${course.url}examples/course-page.html`);
    await page.evaluate(() => {
      window.__events = [];
      window.addEventListener('message', (event) => {
        if (event.data?.type !== 'attention-playground:exercise') return;
        const frame = [...document.querySelectorAll('iframe.exercise-test')].find((f) => f.contentWindow === event.source);
        window.__events.push({ frame: frame?.id ?? null, origin: event.origin, data: event.data });
      });
    });
    const addFrame = (id, search) => page.evaluate(([frameId, src]) => {
      const frame = document.createElement('iframe');
      frame.id = frameId;
      frame.className = 'exercise-test';
      frame.title = frameId;
      frame.style.width = '900px';
      frame.style.height = '900px';
      frame.src = src;
      document.body.prepend(frame);
    }, [id, `${baseURL}dist/index.html?embed=1&exercise=${encodeURIComponent(ID)}${search}`]);
    await addFrame('none', '');
    await addFrame('elsewhere', `&origin=${encodeURIComponent('https://course.example')}`);
    await addFrame('allowed', `&origin=${encodeURIComponent(courseOrigin)}`);

    for (const frameId of ['none', 'elsewhere', 'allowed']) {
      const frame = page.frameLocator(`#${frameId}`);
      const view = frame.locator(`article.exercise[data-exercise="${ID}"]`);
      await expect(view).toBeVisible({ timeout: 20_000 });
      // Exactly one exercise, and nothing else of the page.
      await expect(frame.locator('article.exercise')).toHaveCount(1);
      await expect(frame.locator('.step-title')).toBeHidden();
      await expect(frame.locator('.exercises-list')).toBeHidden();
      await expect(frame.locator('.top')).toBeHidden();
      await view.locator('.exercise-hint').click();
      await check(view, 'fail');
      await view.locator('.exercise-reveal').click();
    }
    const expected = [
      { action: 'hint', outcome: 'unattempted', attempts: 0 },
      { action: 'check', outcome: 'fail', attempts: 1 },
      { action: 'solution', outcome: 'fail', attempts: 1 },
    ];
    await expect.poll(() => page.evaluate(() => window.__events.length)).toBe(expected.length);
    const events = await page.evaluate(() => window.__events);
    expect(events.map((e) => e.frame)).toEqual(['allowed', 'allowed', 'allowed']);
    expect(events.map((e) => e.origin)).toEqual(Array(3).fill(new URL(baseURL).origin));
    expect(events.map((e) => e.data)).toEqual(expected.map((e) => ({ type: 'attention-playground:exercise', id: ID, ...e })));
  } finally {
    await course.close();
  }
});

test('the custom element shows one exercise and turns its messages into exercise events', async ({ page }) => {
  await page.goto('/examples/course-page.html');
  await page.evaluate((id) => {
    window.__exerciseEvents = [];
    const element = document.createElement('attention-playground');
    element.id = 'one-exercise';
    element.setAttribute('exercise', id);
    element.addEventListener('exercise', (event) => window.__exerciseEvents.push(event.detail));
    document.body.prepend(element);
  }, ID);
  const frame = page.locator('#one-exercise').frameLocator('iframe');
  const view = frame.locator(`article.exercise[data-exercise="${ID}"]`);
  await expect(view).toBeVisible({ timeout: 20_000 });
  await view.locator('.exercise-hint').click();
  await expect.poll(() => page.evaluate(() => window.__exerciseEvents)).toEqual([{ id: ID, action: 'hint', outcome: 'unattempted', attempts: 0 }]);
});

test('an unknown exercise id falls back with a notice', async ({ page }) => {
  await page.goto('/dist/index.html?exercise=causal%2Fnope');
  await expect(page.locator('.notices')).toContainText('exercise');
  await expect(page.locator('article.exercise')).toHaveCount(0);
});

test('the single-file page opened from file:// checks an exercise in its sandbox', async ({ page }) => {
  const problems = watchConsole(page);
  const url = pathToFileURL(resolve('dist/playground-single.html')).href;
  const view = await openExercise(page, ID, '&step=causal', url);
  await view.locator('.exercise-reveal').click();
  await view.locator('.exercise-use-solution').click();
  await check(view, 'pass');
  expect(problems).toEqual([]);
});
