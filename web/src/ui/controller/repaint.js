// A repaint is compute then draw; a result from an older state is dropped when a newer one is on its way.
import { compute } from './compute.js';
import { draw } from './draw.js';

export async function repaint(page) {
  const mine = ++page.generation;
  // One entry of each name is kept (the latest), so the timeline does not grow with every repaint.
  performance.clearMarks('ap:change');
  performance.mark('ap:change');
  const run = await compute(page, () => mine !== page.generation);
  if (run && mine === page.generation) draw(page, run, mine);
}
