// Where a training session runs: a module Web Worker when one can start, else this page's thread (the
// single-file page opened from file://, where no worker script can load), in short slices that yield.
// Both answer the same messages (engine.js) through call(message) → Promise of the reply.
// The session's code is loaded on the page only when it has to run there.
async function inlineRunner(reason, engineOptions) {
  const { createSession } = await import('./engine.js');
  const session = createSession(engineOptions);
  let queue = Promise.resolve();
  return {
    where: 'main', reason,
    call(message) {
      // A macrotask before each message: the page repaints and handles input between slices.
      const run = queue.then(() => new Promise((resolve) => setTimeout(resolve, 0))).then(() => session.handle(message));
      queue = run.catch(() => {});
      return run;
    },
    dispose() {},
  };
}

/**
 * Starts a worker, or says why not and runs on the page. Resolves once the worker has answered.
 * @param {() => Promise<object>} inlineOptions the trainer's extra options on the page (the single-file page's wasmBinary)
 */
export async function startRunner(inlineOptions = async () => ({})) {
  let worker;
  try {
    worker = new Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' });
  } catch (error) {
    return inlineRunner(error.message, await inlineOptions());
  }
  const pending = new Map();
  let nextId = 1;
  const started = await new Promise((resolve) => {
    worker.addEventListener('message', (event) => {
      if (event.data?.ready) { resolve(true); return; }
      const { id, result, error } = event.data;
      const entry = pending.get(id);
      if (!entry) return;
      pending.delete(id);
      if (error) entry.reject(new Error(error));
      else entry.resolve(result);
    });
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      resolve(event.message || 'the worker script could not load');
    }, { once: true });
  });
  if (started !== true) {
    worker.terminate();
    return inlineRunner(started, await inlineOptions());
  }
  return {
    where: 'worker', reason: null,
    call(message) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, message });
      });
    },
    dispose() { worker.terminate(); },
  };
}
