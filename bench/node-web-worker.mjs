// A Web Worker in Node for the benchmark: node:worker_threads behind the browser's interface (postMessage with
// transfers, onmessage receiving {data}, onerror, terminate), running a module worker written for the
// browser (its `self.onmessage` / `self.postMessage`). The worker inherits Node's flags (relaxed SIMD).
import { parentPort, Worker, workerData, isMainThread } from 'node:worker_threads';

/** A Worker-like object running the module at `moduleUrl` (a URL) on its own thread. */
export function nodeWebWorker(moduleUrl) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { module: moduleUrl.href } });
  const adapter = {
    onmessage: null,
    onerror: null,
    postMessage: (message, transfer = []) => worker.postMessage(message, transfer),
    terminate: () => { worker.terminate(); },
  };
  worker.on('message', (data) => adapter.onmessage?.({ data }));
  worker.on('error', (error) => adapter.onerror?.({ message: error.message, preventDefault() {} }));
  return adapter;
}

// Inside the worker thread: the browser's worker globals, then the module. As in a browser, messages that
// arrive while the module loads wait for it.
if (!isMainThread && workerData?.module) {
  globalThis.self = globalThis;
  globalThis.postMessage = (message, transfer = []) => parentPort.postMessage(message, transfer);
  const early = [];
  parentPort.on('message', (data) => (globalThis.onmessage ? globalThis.onmessage({ data }) : early.push(data)));
  await import(workerData.module);
  for (const data of early.splice(0)) globalThis.onmessage?.({ data });
}
