// The walk's "random / trained" switch (model=trained): steps 6–11 show one layer of the shipped English model
// (web/src/model/english.safetensors) on the sentence in its own tokens (trained/walk-inputs.js), lock the sizes it
// fixes with a note, and add a Layer and a Head control; a model trained on the Training tab's text task can be
// carried in instead. The numbers are checked against the English model's own forward in Node, never pinned.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test, expect } from '@playwright/test';
import { modelFromSafetensors } from '../../web/src/model/english.js';
import { englishWalkModel } from '../../web/src/ui/trained/walk-inputs.js';
import { expectPageMatchesCore, openPage, shownValues, watchConsole } from './page-helpers.js';

const english = modelFromSafetensors(new Uint8Array(readFileSync('web/src/model/english.safetensors')));
const walk = englishWalkModel(english);

/** The English model's own attention weights of `layer`, `head` (1-based) on `text`: (T, T) as a flat list. */
function modelWeights(text, layer, head) {
  const { ids } = walk.tokens(text);
  const T = ids.length;
  return { T, values: Array.from(english.forward(ids).attention[layer - 1].data.subarray((head - 1) * T * T, head * T * T)) };
}
const expectClose = (shown, expected) => {
  expect(shown).toHaveLength(expected.length);
  shown.forEach((value, i) => expect(Math.abs(value - expected[i]), `[${i}]`).toBeLessThan(6e-5));
};

test('step 7: the trained switch shows layer 1 of the English model, locks its sizes with a note; Layer and Head pick another', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?step=causal');
  await page.locator('[data-main-figure] [data-model-switch] button[data-model="trained"]').click();
  await expect(page.locator('[data-note="trained"]')).toContainText('pre-LN');
  await expect.poll(() => page.evaluate(() => window.attentionPlayground.lastRun()?.state.dModel)).toBe(english.config.dModel);
  const sentence = 'Your journey starts with one step';
  const first = modelWeights(sentence, 1, 1);
  expectClose(await shownValues(page, 'weights'), first.values);
  for (const name of ['T', 'dModel', 'dOut', 'seed']) await expect(page.locator(`.controls [data-control="${name}"]`)).toBeDisabled();
  await expect(page.locator('.controls [data-control="T"]')).toHaveValue(String(first.T));
  await expect(page.locator('.controls [data-control="sentence"]')).toBeEnabled();
  // the Head and Layer controls: their values go to the URL, and the weights follow
  await page.locator('.controls [data-control="model-head"]').selectOption('3');
  await page.locator('.controls [data-control="model-layer"]').selectOption('2');
  await expect.poll(() => new URL(page.url()).searchParams.get('model-layer')).toBe('2');
  expect(new URL(page.url()).searchParams.get('model-head')).toBe('3');
  await expect(page.locator('[data-note="trained"]')).toContainText('layer 2');
  await expect.poll(async () => (await shownValues(page, 'weights'))[first.T]).toBeCloseTo(modelWeights(sentence, 2, 3).values[first.T], 4);
  expectClose(await shownValues(page, 'weights'), modelWeights(sentence, 2, 3).values);
  await expectPageMatchesCore(page);
  // another sentence: T follows its count of tokens while the sentence box keeps the focus
  const other = 'The cat sat on the mat';
  await page.locator('.controls [data-control="sentence"]').fill(other);
  await expect(page.locator('.controls [data-control="T"]')).toHaveValue(String(walk.tokens(other).ids.length));
  expect(await page.evaluate(() => document.activeElement?.dataset.control)).toBe('sentence');
  await expect.poll(async () => (await shownValues(page, 'weights')).length).toBe(walk.tokens(other).ids.length ** 2);
  expectClose(await shownValues(page, 'weights'), modelWeights(other, 2, 3).values);
  expect(problems).toEqual([]);
});

test('on a phone the trained notes are one tap from the Weights switch, with Controls folded, and the picture still first', async ({ page }) => {
  const problems = watchConsole(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await openPage(page, '?step=causal&model=trained');
  await expect(page.locator('[data-note="trained"]')).toBeHidden(); // in the folded Controls
  const notes = page.locator('[data-main-figure] [data-model-switch] .model-notes');
  await expect(notes).toBeVisible();
  const firstHeatmap = await page.locator('[data-main-figure] canvas').evaluateAll((canvases) => Math.min(...canvases.map((c) => c.getBoundingClientRect().top)));
  expect(firstHeatmap).toBeLessThan(844);
  await notes.locator('summary').click();
  await expect(notes).toContainText('pre-LN');
  await expect(notes).toContainText('so they are locked');
  // With the book's weights there is nothing to explain.
  await page.locator('[data-main-figure] [data-model-switch] button[data-model="random"]').click();
  await expect(notes).toBeHidden();
  expect(problems).toEqual([]);
});

test('with the trained model at 1280×800 the picture starts on the first screen, the notes under the formula; step 10\'s heads end on it', async ({ page }) => {
  const problems = watchConsole(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const step of ['weights', 'causal', 'dropout', 'check', 'multihead', 'cross']) {
    await openPage(page, `?step=${step}&model=trained`);
    await expect(page.locator('.intro .trained-notes [data-note]').first(), step).toBeVisible();
    const top = await page.locator('[data-main-figure] canvas').evaluateAll((canvases) => Math.min(...canvases
      .filter((c) => c.getClientRects().length > 0).map((c) => c.getBoundingClientRect().top)));
    expect(top, `${step}: the picture's first heatmap`).toBeLessThan(800 - 24);
  }
  // step 10: the layer's heads, each whole, above the screen's bottom
  await openPage(page, '?step=multihead&model=trained');
  const heads = page.locator('.heads-panel canvas');
  await expect(heads).toHaveCount(english.config.heads);
  const bottoms = await heads.evaluateAll((canvases) => canvases.map((c) => c.getBoundingClientRect().bottom));
  for (const bottom of bottoms) expect(bottom).toBeLessThanOrEqual(800 - 24);
  expect(problems).toEqual([]);
});

test('step 11 with the trained switch: the sentence\'s queries over the context\'s keys, with a note that says what it is', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?step=cross&model=trained&model-head=2');
  await expect(page.locator('[data-note="trained-cross"]')).toContainText('decoder-only');
  await expect.poll(() => page.evaluate(() => window.attentionPlayground.lastRun()?.state.dModel)).toBe(english.config.dModel);
  const run = await page.evaluate(() => {
    const { inputs, result } = window.attentionPlayground.lastRun();
    return { Tq: inputs.tokens.length, Tk: inputs.contextTokens.length, weights: result.tensors.find((view) => view.name === 'weights').tensor.shape };
  });
  expect(run.Tq).not.toBe(run.Tk);
  expect(run.weights.slice(-2)).toEqual([run.Tq, run.Tk]);
  const { ids } = walk.tokens('Your journey starts with one step');
  expect(run.Tq).toBe(ids.length);
  expect(problems).toEqual([]);
});

test('the element takes model-layer and model-head as attributes', async ({ page }) => {
  const problems = watchConsole(page);
  await page.goto('/examples/course-page.html');
  await page.evaluate(() => {
    const element = document.createElement('attention-playground');
    element.id = 'trained';
    for (const [name, value] of [['step', 'dropout'], ['model', 'trained'], ['model-layer', '2'], ['model-head', '4'], ['dropout', '0']]) element.setAttribute(name, value);
    document.body.append(element);
  });
  const element = page.locator('#trained');
  await expect(element.frameLocator('iframe').locator('[data-note="trained"]')).toContainText('head 4');
  expect(await element.evaluate((el) => el.getState())).toMatchObject({ model: 'trained', 'model-layer': 2, 'model-head': 4 });
  expect(problems).toEqual([]);
});

test('a model trained on the text task is carried into the walk; one that misses a word says which', async ({ page }) => {
  const problems = watchConsole(page);
  const text = encodeURIComponent('Your journey starts with one step and every step starts with one word');
  await openPage(page, `?view=train&train-task=text&train-text=${text}&train-layers=1&train-heads=2&train-d-model=8&train-context=8&train-batch=4&train-seed=3&train-steps=5`);
  await page.evaluate(async () => { const v = await window.attentionPlayground.training(); await v.ready(); });
  await page.locator('[data-train="play"]').click();
  await page.waitForFunction(() => window.attentionPlayground.trainingView().getRun().step === 5 && !window.attentionPlayground.trainingView().playing);
  await page.locator('[data-train="carry"]').click();
  await expect(page.locator('[data-note="carried"]')).toBeVisible();
  const state = await page.evaluate(() => window.attentionPlayground.getState());
  expect(state).toMatchObject({ view: 'walk', step: 'weights', model: 'trained' });
  await expect.poll(() => page.evaluate(() => window.attentionPlayground.lastRun()?.state.dModel)).toBe(8);
  expect(await shownValues(page, 'W_query')).toHaveLength(8 * 4); // one head: (d_in 8, d_head 4)
  await expectPageMatchesCore(page);

  const other = encodeURIComponent('Your trip starts with one step');
  await openPage(page, `?view=train&train-task=text&train-text=${other}&train-layers=1&train-heads=1&train-d-model=8&train-context=8&train-batch=4&train-steps=2`);
  await page.evaluate(async () => { const v = await window.attentionPlayground.training(); await v.ready(); });
  await page.locator('[data-train="carry"]').click();
  await expect(page.locator('.notice').filter({ hasText: 'never saw' })).toContainText('“journey”');
  expect(problems).toEqual([]);
});

test('the single-file page from file:// has the trained weights too', async ({ page }) => {
  const problems = watchConsole(page);
  const url = pathToFileURL(resolve('dist/playground-single.html')).href;
  await openPage(page, '?step=causal&model=trained', url);
  await expect.poll(() => page.evaluate(() => window.attentionPlayground.lastRun()?.state.dModel)).toBe(english.config.dModel);
  expectClose(await shownValues(page, 'weights'), modelWeights('Your journey starts with one step', 1, 1).values);
  expect(problems).toEqual([]);
});
