// Web Workers that answer every message: {id, ...} or {id, error}. The inference threads (startWorkerPool)
// and the trainer's shards (web/src/train/shards.js) each start a pool of their own worker script with it.

/** A pool that does not answer its load message within this long has failed to start. */
const START_TIMEOUT_MS = 20_000;

export class WorkerPool {
  /** @param {Worker[]} workers started workers; their answers settle ask()'s Promises, an error event fails the pool */
  constructor(workers) {
    this.pending = new Map();
    this.next = 0;
    this.failed = null;
    this.workers = workers;
    /** Each worker's last report of its module's memory, {bytes, peak}: an answer may carry one. */
    this.memory = workers.map(() => ({ bytes: 0, peak: 0 }));
    workers.forEach((worker, k) => {
      worker.onmessage = ({ data }) => this.settle(data.id, data);
      worker.onerror = (event) => {
        event.preventDefault?.();
        this.fail(`worker ${k} failed: ${event.message || 'its module did not load'}`);
      };
    });
  }

  settle(id, data) {
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    if (data.memory) this.memory[call.worker] = data.memory;
    if (data.spent) this.onSpent?.(data.spent);
    if (data.error) call.reject(new Error(data.error));
    else call.resolve(data);
  }

  fail(reason) {
    this.failed ??= reason;
    for (const { reject } of this.pending.values()) reject(new Error(reason));
    this.pending.clear();
  }

  ask(index, message, transfer = []) {
    if (this.failed) return Promise.reject(new Error(this.failed));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: index });
      this.workers[index].postMessage({ ...message, id }, transfer);
    });
  }

  terminate() {
    for (const worker of this.workers) worker.terminate();
    this.fail('the workers were terminated (dispose)');
  }
}

/**
 * Starts `count` workers made by `spawn()` and sends each `load(k)`; resolves {pool, answers} once every one
 * has answered, or rejects (the workers terminated) when one fails or START_TIMEOUT_MS passes.
 * @param {number} count @param {() => Worker} spawn @param {(k: number) => object} load
 */
export async function startWorkers(count, spawn, load) {
  const pool = new WorkerPool(Array.from({ length: count }, spawn));
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the workers did not load within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
  });
  try {
    const answers = await Promise.race([Promise.all(pool.workers.map((_, k) => pool.ask(k, load(k)))), timeout]);
    return { pool, answers };
  } catch (error) {
    pool.terminate();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts `count` workers of attention-worker.js, each loading the WASM build `build`. Rejects when any cannot start.
 * @param {number} count @param {{build: 'simd'|'baseline', binaryUrl?: string, wasmBinary?: ArrayBuffer|Uint8Array, memoryLimit?: number}} wasm
 * @returns {Promise<{pool: WorkerPool, relaxed: boolean}>}
 */
export async function startWorkerPool(count, { build, binaryUrl, wasmBinary, memoryLimit }) {
  // The literal `new Worker(new URL(...), {type: 'module'})` is the form Vite recognises and bundles.
  const spawn = () => new Worker(new URL('./attention-worker.js', import.meta.url), { type: 'module' });
  const bytes = wasmBinary ? new Uint8Array(wasmBinary) : null;
  const { pool, answers } = await startWorkers(count, spawn, () => ({ type: 'load', build, binaryUrl, wasmBinary: bytes, memoryLimit }));
  return { pool, relaxed: answers.every((answer) => answer.relaxed === '') };
}
