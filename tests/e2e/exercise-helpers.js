// Shared by the exercise specs: open an exercise on the built page, replace the editor's text, press Check.
import { expect } from '@playwright/test';
import { PAGE } from './page-helpers.js';

/** Opens `?exercise=ID` (plus `query`) and waits until the exercise view is ready. */
export async function openExercise(page, id, query = '', url = PAGE) {
  await page.goto(`${url}?exercise=${encodeURIComponent(id)}${query}`);
  await expect(page.locator(`.exercises[data-ready="${id}"] article.exercise`)).toBeVisible();
  return page.locator(`article.exercise[data-exercise="${id}"]`);
}

/** Replaces the editor's text as a learner would: select all, then type (insertText, like a paste). */
export async function setCode(page, view, source) {
  await view.locator('.cm-content').click();
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(source);
  await expect.poll(() => view.locator('.cm-content').evaluate((node) => node.innerText.replace(/\u00a0/g, ' ').length)).toBeGreaterThan(source.length / 2);
}

/** Presses Check and waits for the outcome line to name a result. */
export async function check(view, outcome) {
  await view.locator('.exercise-check').click();
  await expect(view.locator('.exercise-outcome')).toHaveAttribute('data-outcome', outcome, { timeout: 15_000 });
}
