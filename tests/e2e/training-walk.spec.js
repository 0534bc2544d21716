// The walk's "random / trained" switch (model=trained): steps 6–8 and 10 take x and W_query/W_key/W_value from
// the shipped model (web/src/ui/trained/walk-model.safetensors, scripts/train-walk-model.mjs), lock the sizes
// it fixes with a note, and step 11 says it has no trained counterpart.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test, expect } from '@playwright/test';
import { decodeSafetensors } from '../../web/src/train/safetensors.js';
import { defaultsFor } from '../../web/src/ui/state.js';
import { expectPageMatchesCore, openPage, shownValues, watchConsole } from './page-helpers.js';

const { tensors } = decodeSafetensors(new Uint8Array(readFileSync('web/src/ui/trained/walk-model.safetensors')));
const d = 4;
// nn.Linear's (out, in) weight as the walk's (d_in, d_out) matrix.
const asWalk = (name) => {
  const w = tensors[`blocks.0.${name}.weight`].data;
  return Array.from({ length: d * d }, (_, i) => w[(i % d) * d + Math.floor(i / d)]);
};
// The step's own layout (state.js STEP_DEFAULTS): 'linear' shows nn.Linear's weight as stored, under `.weight`.
const shownWeight = (id) => (defaultsFor(id).layout === 'linear'
  ? { name: 'W_query.weight', values: Array.from(tensors['blocks.0.q_proj.weight'].data) }
  : { name: 'W_query', values: asWalk('q_proj') });
const TRAINED_STEPS = ['weights', 'causal', 'dropout', 'multihead'];

for (const id of TRAINED_STEPS) {
  test(`step "${id}": the trained switch shows the shipped model's weights and locks its sizes`, async ({ page }) => {
    const problems = watchConsole(page);
    await openPage(page, `?step=${id}`);
    const { name, values } = shownWeight(id);
    const random = await shownValues(page, name);
    await page.locator('[data-main-figure] [data-model-switch] button[data-model="trained"]').click();
    await expect(page.locator('[data-note="trained"]')).toBeVisible();
    await expect.poll(() => page.evaluate(() => window.attentionPlayground.lastRun()?.state.dModel)).toBe(4);
    const trained = await shownValues(page, name);
    expect(trained).not.toEqual(random);
    expect(trained).toHaveLength(d * d);
    trained.forEach((value, i) => expect(Math.abs(value - values[i])).toBeLessThan(1e-4));
    await expect(page.locator('.controls [data-control="T"]')).toBeDisabled();
    await expect.poll(() => new URL(page.url()).searchParams.get('model')).toBe('trained');
    await expectPageMatchesCore(page);
    expect(problems).toEqual([]);
  });
}

test('step 11 says it has no trained counterpart', async ({ page }) => {
  const problems = watchConsole(page);
  await openPage(page, '?step=cross&model=trained');
  await expect(page.locator('[data-note="trained-cross"]')).toBeVisible();
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
  expect(await shownValues(page, 'W_query')).toHaveLength(64);
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
  await expect.poll(() => page.evaluate(() => window.attentionPlayground.lastRun()?.state.dModel)).toBe(4);
  const trained = await shownValues(page, 'W_query');
  trained.forEach((value, i) => expect(Math.abs(value - asWalk('q_proj')[i])).toBeLessThan(1e-4));
  expect(problems).toEqual([]);
});
