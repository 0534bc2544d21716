// The trainer's workers: data parallelism over the batch's rows. With threads N, the calling thread and N − 1
// workers (shard-worker.js) each hold the whole resident model; a step splits the batch into N contiguous
// row groups, each computes the gradients of its rows' summed loss divided by the whole batch's count
// (so they simply add up), the calling thread adds them in worker order, clips, and every copy applies the
// same AdamW to the same gradients — the copies stay identical without sending parameters back and forth.
// A seeded run is therefore reproducible for a given thread count (the sum's order is fixed), and differs
// from one thread's only by float32 rounding of that sum.
//
// Why workers and not threads inside WASM: as for inference (core/backends/threads.js), no
// SharedArrayBuffer, so an explicit `threads: N` works on any page.
import { startWorkers } from '../core/engine.js';

/**
 * threads 'auto' starts workers only for a model whose one sequence (T = contextLength) takes at least this
 * many forward multiply-adds: below it a step is too short for the messages and the gradient sum to pay.
 */
export const AUTO_MIN_WORK = 20e6;

/** A sequence's forward multiply-adds at T = contextLength: the projections, Q·Kᵀ and P·V (causal), the unembedding. */
export function sequenceWork({ vocabSize: V, contextLength: T, dModel: d, layers: L }) {
  return L * (4 * T * d * d + d * T * (T + 1)) + T * d * V;
}

export class TrainingShards {
  /** @param {import('../core/backends/worker-pool.js').WorkerPool} pool */
  constructor(pool) {
    this.pool = pool;
    this.count = pool.workers.length;
    /** The workers' last 'apply' and 'write' answers: a failure there surfaces at the next step. */
    this.queued = Promise.resolve();
  }

  /**
   * Starts `count` workers, each loading WASM build `build` and the model `config` with the packed state.
   * @param {number} count @param {{build: string, binaryUrl?: string, wasmBinary?: Uint8Array|ArrayBuffer}} wasm
   * @param {object} config @param {{parameters: Float32Array, expAvg: Float32Array, expAvgSq: Float32Array}} state
   */
  static async start(count, { build, binaryUrl, wasmBinary }, config, state) {
    // The literal `new Worker(new URL(...), {type: 'module'})` is the form Vite recognises and bundles.
    const spawn = () => new Worker(new URL('./shard-worker.js', import.meta.url), { type: 'module' });
    const bytes = wasmBinary ? new Uint8Array(wasmBinary) : null;
    const { vocabSize, contextLength, dModel, heads, layers, layerNorm } = config;
    const { pool } = await startWorkers(count, spawn, () => ({
      type: 'load', build, binaryUrl, wasmBinary: bytes, config: { vocabSize, contextLength, dModel, heads, layers, layerNorm }, ...state,
    }));
    return new TrainingShards(pool);
  }

  /** Worker k's gradients for its rows → Promise<{loss, correct, count, gradients}>. */
  gradients(k, inputs, targets, batch, t, normalizer) {
    return this.pool.ask(k, { type: 'gradients', inputs, targets, batch, t, normalizer }, [inputs.buffer, targets.buffer]);
  }

  /**
   * Has every worker take AdamW step `step` on `sum`, also those that had no rows this step (a batch of
   * fewer rows than threads): each gets its answer's array back holding `sum`, or a new one.
   */
  apply(answers, sum, step, optimizer) {
    const applied = this.pool.workers.map((_, k) => {
      const gradients = answers[k]?.gradients ?? new Float32Array(sum.length);
      gradients.set(sum);
      return this.pool.ask(k, { type: 'apply', gradients, step, optimizer }, [gradients.buffer]);
    });
    this.queue(applied);
  }

  /** Copies packed state ({parameters?, expAvg?, expAvgSq?}) into every worker's model. */
  write(state) {
    const written = this.pool.workers.map((_, k) => this.pool.ask(k, { type: 'write', ...state }));
    this.queue(written);
  }

  /** Adds answers to `queued`, marked handled so that a failure after the last step is no unhandled rejection. */
  queue(answers) {
    this.queued = Promise.all([this.queued, ...answers]);
    this.queued.catch(() => {});
  }

  terminate() {
    this.pool.terminate();
  }
}
