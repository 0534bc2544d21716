// The threaded path: a layer over the main thread's WASM backend and a pool of Web Workers
// (attention-worker.js, started by load-backend.js), each with its own instance of the WASM core, that sends the large
// fused multi-head calls to them, heads split into contiguous groups (thread-plan.js), and every other call
// to the main thread.
//
// Why workers and not an Emscripten pthreads build: the relaxed-SIMD tile is swapped into each instance's
// own function table from JS (relaxed-tile.js), and a pthreads build shares one table and one memory; the
// workers also need no SharedArrayBuffer, so an explicit `threads: N` works on any host. 'auto' still asks
// for cross-origin isolation (thread-plan.js resolveThreads), the signal that the page wants threads.
import { apiChecked } from '../api-checked.js';
import { plan as planCall, POOL_CROSSOVER } from '../planner.js';
import { stackBackend } from './compose.js';
import { combineParts, copyOf, groupWeights, multiheadSizes } from './thread-plan.js';

/**
 * Float32Arrays to reuse, by length. A call's inputs travel to the workers as fresh copies (transferred,
 * not cloned) and come back with the answer; writing the next call's copies into them instead of into
 * new arrays saves the page faults of megabytes of fresh memory per call at d=768 (the column blocks were
 * several times slower to write into new arrays). Holds at most `perLength` arrays of each length until
 * dispose().
 */
class ArrayRecycler {
  constructor(perLength) {
    this.perLength = perLength;
    this.free = new Map();
  }

  take = (length) => this.free.get(length)?.pop() ?? new Float32Array(length);

  give(arrays) {
    for (const array of arrays) {
      const list = this.free.get(array.length) ?? [];
      if (list.length < this.perLength) list.push(array);
      this.free.set(array.length, list);
    }
  }

  clear() {
    this.free.clear();
  }
}

const messageOf = (error) => (error instanceof Error ? error.message : String(error?.message ?? error));

/** The backend `cpu` under the threads layer of `pool` (threadsLayer). */
export function createThreadedBackend(cpu, pool, settings) {
  return stackBackend(cpu, [threadsLayer(pool, settings)]);
}

/**
 * The layer over `cpu` (the main thread's WASM backend) that sends the calls the planner gives the 'workers'
 * path to the pool and answers them with a Promise; every other call runs on `cpu`, synchronously, as before.
 * @param {WorkerPool} pool
 * @param {{crossover?: {workPerFloat: number, minWork: number}}} [settings] replaces POOL_CROSSOVER (tests set 0s)
 * @returns {import('./compose.js').Layer}
 */
export function threadsLayer(pool, { crossover = POOL_CROSSOVER } = {}) {
  return (cpu) => {
    let lastCall = null;
    let disposed = null;
    // Why the pool is no longer used: dispose(), or a worker that died (its error event).
    const stopped = () => disposed ?? (pool.failed ? `the workers failed (${pool.failed}); calls run on the main thread` : null);
    const workers = pool.workers.length;
    const recycler = new ArrayRecycler(2 * workers);
    pool.onSpent = (arrays) => recycler.give(arrays);

    // lastCall: the planner's decision for every call, with the workers that took it (1: the main thread).
    const onCpu = (fn, args, path, reason) => {
      lastCall = { fn, backend: cpu.name, path, reason, threads: 1 };
      return cpu[fn](...args);
    };

    const onPool = (fn, args, plan) => {
      // A call the API checked (../api-checked.js) runs unchecked in the workers too: they are told so.
      const checked = apiChecked(fn, cpu.name);
      const sizes = multiheadSizes(fn, args);
      const options = args[args.length - 1];
      const weights = args[args.length - 2];
      const copy = (x) => x && { data: copyOf(x.data, recycler.take), shape: x.shape };
      lastCall = { fn, backend: cpu.name, path: 'workers', reason: plan.reason, threads: plan.groups.length };
      // Worker k starts on its heads while the main thread cuts the next worker's weights.
      const parts = plan.groups.map((group, k) => {
        const message = {
          type: 'heads',
          fn: fn === 'crossAttention' ? fn : 'multiheadAttentionSplit',
          xQuery: copy(args[0]),
          xContext: fn === 'crossAttention' ? copy(args[1]) : undefined,
          weights: groupWeights(fn, weights, sizes, group, recycler.take),
          options: { ...options, heads: group[1] - group[0] },
          checked,
        };
        const arrays = [message.xQuery, message.xContext, ...Object.values(message.weights)].filter(Boolean).map((t) => t.data);
        return pool.ask(k, message, arrays.map((array) => array.buffer));
      });
      return Promise.all(parts).then(
        (answers) => {
          const output = combineParts(answers.map((a) => a.part), plan.groups, sizes, weights.outBias?.data);
          return { output: { data: output, shape: [sizes.B, sizes.Tq, sizes.dOut] } };
        },
        (error) => {
          throw new Error(`${fn}: a worker failed: ${messageOf(error)}`, { cause: error });
        },
      );
    };

    // Forwarded to cpu (compose.js): name, build, fallbackReason and the benchmark's extras (matmulVariant,
    // heapStats).
    const route = (fn, args) => {
      if (stopped()) return onCpu(fn, args, planCall(fn, args, { name: cpu.name }).path, stopped());
      const decision = planCall(fn, args, { name: cpu.name, workers, crossover });
      return decision.path === 'workers' ? onPool(fn, args, decision) : onCpu(fn, args, decision.path, decision.reason);
    };
    return {
      inner: () => cpu,
      route,
      extras: true,
      overrides: {
        get lastCall() { return lastCall; },
        get threads() { return stopped() ? 1 : workers; },
        get threadsReason() { return stopped(); },
        /** The main thread's module, and `workers`: each worker's as of its last answer. */
        get memory() { return { ...cpu.memory, workers: pool.memory.map((one) => ({ ...one })) }; },
        /** A new module on the main thread and in every worker (unless the pool has stopped). */
        compact() {
          const main = Promise.resolve(cpu.compact?.());
          if (stopped()) return main.then(() => undefined);
          return Promise.all([main, ...pool.workers.map((_, k) => pool.ask(k, { type: 'compact' }))]).then(() => undefined);
        },
        dispose() {
          if (disposed) return;
          disposed = 'disposed: calls run on the main thread';
          pool.terminate();
          recycler.clear();
        },
      },
    };
  };
}
