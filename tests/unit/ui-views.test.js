// The views' pure parts (issue 11): the cell editor's shortest float32 text, the weights' colour scales,
// and the heatmap layout (room for the last diagonal label, numbers from 30 px cells).
import { describe, expect, test } from 'vitest';
import { colorScale, LOG_DECADES } from '../../web/src/ui/colormap.js';
import { layoutPanel } from '../../web/src/ui/heatmap-draw.js';
import { shortestFloat32 } from '../../web/src/ui/cell-inspection.js';

describe('cell editor text', () => {
  test('a float32 opens as the shortest decimal that reads back as the same float32', () => {
    expect(shortestFloat32(Math.fround(0.55))).toBe('0.55');
    expect(shortestFloat32(Math.fround(-0.0739))).toBe('-0.0739');
    expect(shortestFloat32(Math.fround(1 / 3))).toBe('0.33333334');
    expect(shortestFloat32(2)).toBe('2');
    for (const value of [0.1, 1e-7, 123.456, -5.5e-3].map(Math.fround)) {
      expect(Math.fround(Number(shortestFloat32(value)))).toBe(value);
    }
  });
});

describe('weights colour scales', () => {
  test('log spreads the decades below the largest value; per row stretches each row', () => {
    const linear = colorScale('weights', 1, false, 'linear');
    const log = colorScale('weights', 1, false, 'log');
    // 0.03 and 0.003 look alike on the linear map, apart on the log map.
    const distance = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    expect(distance(log(0.03), log(0.003))).toBeGreaterThan(4 * distance(linear(0.03), linear(0.003)));
    expect(log(1)).toEqual(linear(1));
    expect(log(10 ** -LOG_DECADES)).toEqual(linear(0));
    const panel = { rows: 2, cols: 2, values: Float32Array.from([0.5, 0.25, 0.1, 0.05]) };
    const row = colorScale('weights', 0.5, false, 'row');
    expect(row(panel.values[2], 1, panel)).toEqual(linear(1)); // the second row's largest value is its top
    expect(row(panel.values[1], 0, panel)).toEqual(linear(0.5));
  });
});

describe('heatmap layout', () => {
  const tokens = ['Your', 'journey', 'starts', 'with', 'one', 'step'];
  test('diagonal column labels get room on the right, so the last token is not clipped', () => {
    const layout = layoutPanel({ rows: 6, cols: 6, rowLabels: tokens, colLabels: tokens }, 200);
    expect(layout.diagonal).toBe(true);
    const lastLabelEnd = layout.left + 5.5 * layout.cell + 'step'.length * 5;
    expect(layout.width).toBeGreaterThanOrEqual(lastLabelEnd);
    expect(layout.width).toBeLessThanOrEqual(200);
  });
  test('numbers are written from 30 px cells, and cells stop at maxCell', () => {
    expect(layoutPanel({ rows: 6, cols: 6 }, 420).showNumbers).toBe(true);
    expect(layoutPanel({ rows: 32, cols: 32 }, 420).showNumbers).toBe(false);
    expect(layoutPanel({ rows: 32, cols: 32 }, 100000, 16).cell).toBe(16);
  });
});

describe('the step view (issue 21)', async () => {
  const { splitExplanation } = await import('../../web/src/ui/shell.js');
  const { placeBeside } = await import('../../web/src/ui/cell-sources.js');
  test('an explanation leads with at most three sentences and about four lines; the rest is "read more"', () => {
    const text = 'One. Two words. Three words here. Four.';
    expect(splitExplanation(text)).toEqual({ lead: 'One. Two words. Three words here.', more: 'Four.' });
    expect(splitExplanation('Short. Text.')).toEqual({ lead: 'Short. Text.', more: '' });
    const long = `A${'a'.repeat(200)}. B${'b'.repeat(200)}. C.`;
    expect(splitExplanation(long).lead).toBe(`A${'a'.repeat(200)}.`);
    expect(splitExplanation('exp(0) = 1, so 0.5 is kept. Next one.').lead).toBe('exp(0) = 1, so 0.5 is kept. Next one.');
  });
  test('step 3\'s arrow from weights and x to the output names the product W·X, not x · X', async () => {
    const { flowStages } = await import('../../web/src/ui/flow.js');
    const view = (name, shape) => ({ name, tensor: { shape } });
    const stages = flowStages([view('weights', [6, 6]), view('x', [6, 3]), view('output', [6, 3])]);
    expect(stages.map((stage) => stage.views.map((v) => v.name))).toEqual([['weights', 'x'], ['output']]);
    expect(stages[1].op).toBe('W·X');
  });
  test('a pointed cell\'s box goes inside the viewport, near the cell, clear of its row and column', () => {
    const viewport = { width: 1280, height: 800 };
    const grid = { left: 100, top: 100, right: 244, bottom: 244 };
    const cell = { left: 124, top: 148, right: 148, bottom: 172 };
    const place = placeBeside({ width: 300, height: 200 }, cell, grid, viewport);
    expect(place.left).toBeGreaterThanOrEqual(grid.right); // beside the heatmap
    // A heatmap against the right edge: the box goes below it.
    const right = { left: 1100, top: 100, right: 1270, bottom: 244 };
    const below = placeBeside({ width: 300, height: 200 }, { left: 1200, top: 148, right: 1224, bottom: 172 }, right, viewport);
    expect(below.top).toBeGreaterThanOrEqual(right.bottom);
    expect(below.left + 300).toBeLessThanOrEqual(1280);
  });
});
