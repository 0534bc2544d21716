// The last run survives a reload: kept in IndexedDB (idb-keyval). Where storage is refused (private modes,
// some sandboxed embeds), the calls report why and the page goes on without it.
import { get, set } from 'idb-keyval';

const KEY = 'attention-playground:last-run';

/** Saves the run; resolves to null or the reason storage was refused. */
export async function saveRun(run) {
  try {
    await set(KEY, run);
    return null;
  } catch (error) {
    return error?.message || String(error);
  }
}

/** The saved run, or {error} when storage is refused, or null when none. */
export async function loadRun() {
  try {
    return (await get(KEY)) ?? null;
  } catch (error) {
    return { error: error?.message || String(error) };
  }
}
