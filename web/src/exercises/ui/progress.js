// Progress per exercise, kept in this browser (localStorage; in memory where storage is refused, as in
// some embeds): attempts, hints used, whether it was ever passed, the last outcome and the learner's
// draft. Exportable as JSON.
const KEY = 'attention-playground:exercise-progress';
const VERSION = 1;
let memory = null;

function storage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // a SecurityError where storage is blocked
  }
}

function readAll() {
  if (memory) return memory;
  let stored = null;
  try {
    stored = JSON.parse(storage()?.getItem(KEY) ?? 'null');
  } catch {
    stored = null;
  }
  memory = stored && stored.version === VERSION && typeof stored.exercises === 'object' ? stored : { version: VERSION, exercises: {} };
  return memory;
}

function writeAll(all) {
  memory = all;
  try {
    storage()?.setItem(KEY, JSON.stringify(all));
  } catch {
    // full or refused: progress lives in memory for this visit
  }
}

const EMPTY = { attempts: 0, hintsUsed: 0, passed: false, outcome: 'unattempted', solutionRevealed: false, draft: null };

/** The progress of one exercise (a copy). */
export function progressOf(id) {
  return { ...EMPTY, ...readAll().exercises[id] };
}

/** Merges `changes` into an exercise's progress and saves; returns the new progress. */
export function updateProgress(id, changes) {
  const all = readAll();
  const next = { ...EMPTY, ...all.exercises[id], ...changes, updated: new Date().toISOString() };
  writeAll({ ...all, exercises: { ...all.exercises, [id]: next } });
  return { ...next };
}

/** Everything, as the JSON a learner exports (drafts included). */
export function exportProgress() {
  return JSON.stringify({ ...readAll(), exported: new Date().toISOString() }, null, 2);
}

/** Forgets the in-memory copy (tests; another tab may have written). */
export function reloadProgress() {
  memory = null;
}
