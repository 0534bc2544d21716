// The playground: one state (state.js) → inputs (inputs.js) → the core API → views. The controller
// (controller/page.js) is a few verbs on one page object: every change, from a control, the URL, the keyboard
// or the postMessage API, goes through loadState, which checks it against the state table, writes the URL and
// repaints; a repaint is compute (run the step on the core) then draw (put it on the page); pointAt points at a
// cell. Results from an older state are dropped when a newer one is already on its way.
import { parseState } from './state.js';
import { createPage } from './controller/page.js';
import { showState } from './controller/load-state.js';
import { listenForNavigation } from './controller/navigation.js';
import { attachViewTools, watchWidth } from './controller/view-tools.js';
import { publicApi } from './controller/public-api.js';

/**
 * Starts the playground in `root`.
 * @param {HTMLElement} root
 * @param {{fixture: object, loadOptions?: (backend: string) => Promise<object>, benchmarkUrl?: string|null}} options
 *   fixture: step 9's PyTorch case; loadOptions: extra loadAttention options per backend (the
 *   single-file build passes the inlined wasm bytes).
 * @returns {object} the page's programmatic interface (also used by the postMessage API and tests)
 */
export function startPlayground(root, { fixture, loadOptions = async () => ({}), benchmarkUrl = null }) {
  const parsed = parseState(location.search);
  const page = createPage(root, { state: parsed.state, fixture, loadOptions, benchmarkUrl });
  watchWidth(page);
  attachViewTools(page);
  listenForNavigation(page);
  page.showNotices(parsed.notices);
  page.url.write(false); // the address bar shows the state actually on screen, rejected values dropped
  showState(page);
  return publicApi(page);
}
