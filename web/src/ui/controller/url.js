// The address bar follows the state. A new step is a history entry; other changes replace the
// current one once the controls have been still for 150 ms: history.replaceState costs milliseconds,
// and dragging a slider fires dozens of changes a second, so writing on every change would cost frames
// during a drag. A page left before then writes it.
import { serializeState } from '../state.js';

/** getState() → the state to write. Returns {write(push), schedule()}. */
export function createUrlWriter(getState) {
  let timer = null;
  function write(push) {
    clearTimeout(timer);
    timer = null;
    const search = serializeState(getState());
    const url = `${location.pathname}${search ? `?${search}` : ''}${location.hash}`;
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
  }
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(() => write(false), 150);
  }
  window.addEventListener('pagehide', () => { if (timer !== null) write(false); });
  return { write, schedule };
}
