// The page's programmatic interface (the postMessage API, the element and tests drive the page through it).
import { loadAttention } from '../../core/index.js';
import { pointAt } from '../cell-inspection.js';
import { go } from './load-state.js';

export function publicApi(page) {
  return {
    /** The current state (a copy). */
    getState: () => structuredClone(page.state),
    /** Applies a partial state; returns the notices the page shows for it (rejected values, values moved to fit). */
    setState: (changes) => page.loadState(changes),
    next: () => go(page, 1),
    previous: () => go(page, -1),
    /** The last repaint, once complete (as onRender gives it): {state, inputs, result, error, backend, ms}. */
    lastRun: () => page.lastRun,
    /** Calls `listener(lastRun)` after every repaint, every tensor drawn (the off-screen ones too) and its table written. */
    onRender: (listener) => {
      page.listeners.add(listener);
      return () => page.listeners.delete(listener);
    },
    /**
     * Calls `listener(run)` from the animation frame that shows a repaint's tensors on screen (off-screen
     * canvases and the screen-reader tables follow right after it, and the run becomes lastRun): what
     * scripts/measure-page.mjs times.
     */
    onFrame: (listener) => {
      page.frameListeners.add(listener);
      return () => page.frameListeners.delete(listener);
    },
    /**
     * Points at cell (row, col) of a shown tensor (its `panel`: the head), as the pointer would: the cell and
     * its sources outlined, its computation beside it. Returns false when the step shows no such cell.
     */
    pointAt: (tensor, row, col, panel = 0) => pointAt(tensor, row, col, panel),
    /** The core's loader, one thread unless `options.threads` says otherwise (as the page itself). */
    loadAttention: (options) => loadAttention({ threads: 1, ...options }),
    get renderedStep() { return page.renderedStep; },
    /**
     * The training view on screen (the Training tab, or step 12's demo), loaded if needed; null elsewhere.
     * Its methods: play, pause, step, reset, getRun() → {config, step, losses}, snapshot(), entropy(), evaluate().
     */
    training: () => page.sideViews.syncTraining({ fromControl: true }),
    /**
     * Step 10's panel of the English model's heads (model=trained), drawn for the current state; null before it
     * was first shown. Its methods: model() → the model interface (docs/api.md "Models").
     */
    heads: () => page.sideViews.syncHeads(),
    /** The training view on screen if it is already loaded, else null (synchronous, for polling). */
    trainingView: () => page.sideViews.trainingView(),
    /** Calls `listener({step, loss})` after every chunk of training steps. */
    onTrainProgress: (listener) => page.sideViews.onTrainProgress(listener),
  };
}
