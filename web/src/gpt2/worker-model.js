// GPT-2 on workers: each worker (gpt2-worker.js, started with the core's worker pool) holds one share of the
// model (worker-plan.js's cut, cpp/kernels/gpt2_shard.h), packed once, and runs the whole forward, the
// workers exchanging their partial sums over MessagePorts between each other. The calling thread computes
// x₀ = wte[token] + wpe[t], sends it, and assembles the logits (and the weights) from the shares' columns.
// Every forward runs on the workers (a short one costs about the CPU time it would on one thread, and a second
// copy of the model would cost its whole WASM heap), unless a crossover sends those below it to the calling
// thread's fast path, which memory.js's planGpt2Memory allows only where that copy fits beside the workers.
import { startWorkers } from '../core/backends/worker-pool.js';
import { gpt2Shares, planGpt2Workers, shareParameters } from './worker-plan.js';

/**
 * Starts `count` GPT-2 workers, each loading the WASM build `build`. spawn() makes one worker (a Web
 * Worker of gpt2-worker.js by default; Node's bench passes a worker_threads adapter).
 * @returns {Promise<{pool: import('../core/backends/worker-pool.js').WorkerPool, relaxed: boolean}>}
 */
export async function startGpt2Workers(count, { build, binaryUrl, wasmBinary, tileBinary, memoryLimit, spawn } = {}) {
  // The literal `new Worker(new URL(...), {type: 'module'})` is the form Vite recognises and bundles.
  const make = spawn ?? (() => new Worker(new URL('./gpt2-worker.js', import.meta.url), { type: 'module' }));
  const bytes = wasmBinary ? new Uint8Array(wasmBinary) : null;
  const { pool, answers } = await startWorkers(count, make, () => ({ type: 'load', build, binaryUrl, wasmBinary: bytes, tileBinary, memoryLimit }));
  return { pool, relaxed: answers.every((answer) => answer.relaxed === '') };
}

/** The crossover that sends every forward to the workers. */
const EVERY_FORWARD = { minWork: 0 };

/**
 * The engine (model.js's {forward, dispose}) over a started pool: every worker gets its share, the matrices a
 * layer at a time (the calling thread never cuts more than one layer's at once). oneThread() → Promise of the
 * calling thread's engine, asked for (once) when a forward is below the crossover, or when the workers failed
 * (they are stopped first, freeing their memory); it may reject (the copy does not fit: its message says why).
 * @param {{crossover?: {minWork: number}, copyReason?: string|null}} [settings] crossover: forwards below it go to
 *   oneThread() [none: every forward on the workers]; copyReason: why the calling thread may hold no copy beside
 *   the workers (planGpt2Memory), which then run the forwards below the crossover too, lastCall.reason saying so
 */
export async function createWorkerGpt2(pool, config, parameters, { oneThread, crossover = EVERY_FORWARD, copyReason = null } = {}) {
  const shares = gpt2Shares(config, pool.workers.length);
  const n = shares.length;
  const { dModel: C, vocabSize: V, heads: H, layers } = config;
  // A MessageChannel between every two workers: ports[k][j] is worker k's end towards j.
  const ports = shares.map(() => ({}));
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const channel = new MessageChannel();
      ports[i][j] = channel.port1;
      ports[j][i] = channel.port2;
    }
  }
  await Promise.all(shares.map(async (share, k) => {
    const { vectors, matrixCount, matrix } = shareParameters(config, parameters, share);
    await pool.ask(k, { type: 'shard', config, share, k, parts: n, vectors, ports: ports[k] }, Object.values(ports[k]));
    for (let from = 0; from < matrixCount; from += 4) {
      const arrays = Array.from({ length: Math.min(4, matrixCount - from) }, (_, i) => matrix(from + i));
      await pool.ask(k, { type: 'matrices', from, arrays }, arrays.map((a) => a.buffer));
    }
  }));
  let single = null;
  const wte = parameters['wte.weight'].data;
  const wpe = parameters['wpe.weight'].data;

  async function onWorkers(tokens, flags, wantWeights) {
    const T = tokens.length;
    const x = new Float32Array(T * C);
    for (let t = 0; t < T; t++) for (let c = 0; c < C; c++) x[t * C + c] = wte[tokens[t] * C + c] + wpe[t * C + c];
    const answers = await Promise.all(shares.map((_, k) => {
      const mine = k === n - 1 ? x : x.slice();
      return pool.ask(k, { type: 'forward', x: mine, T, attention: wantWeights, headsOff: flags }, [mine.buffer]);
    }));
    // (T, V) from each share's (T, v1 − v0) columns; each layer's (H, T, T) from each share's heads
    const logits = new Float32Array(T * V);
    answers.forEach(({ logits: part }, k) => {
      const { vocabBegin: v0, vocabEnd: v1 } = shares[k];
      for (let t = 0; t < T; t++) logits.set(part.subarray(t * (v1 - v0), (t + 1) * (v1 - v0)), t * V + v0);
    });
    let attention = null;
    if (wantWeights) {
      attention = Array.from({ length: layers }, (_, l) => {
        const weights = new Float32Array(H * T * T);
        answers.forEach(({ weights: parts }, k) => weights.set(parts[l], shares[k].headBegin * T * T));
        return weights;
      });
    }
    return { logits, attention, paths: [wantWeights ? 'workers (weights)' : 'workers (fused)'], threads: n };
  }

  async function onOneThread(tokens, flags, wantWeights, reason) {
    if (!oneThread) throw new Error(`gpt2.forward: ${reason}, and no one-thread engine was given`);
    single ??= oneThread();
    let engine;
    try {
      engine = await single;
    } catch (error) {
      single = null;
      throw new Error(`gpt2.forward: ${reason}, but ${error?.message ?? error}`);
    }
    const out = engine.forward(tokens, flags, wantWeights);
    return { ...out, paths: [wantWeights ? 'weights' : 'fused'], threads: 1, reason };
  }

  // a worker that died (its error event fails the pool) leaves the model on the calling thread: the others are
  // stopped first, so that their memory is given back before the copy is built
  function afterFailure(tokens, flags, wantWeights) {
    const reason = `the workers failed (${pool.failed})`;
    pool.terminate();
    return onOneThread(tokens, flags, wantWeights, `${reason}; the calling thread runs it`);
  }

  async function forwardNow(tokens, flags, wantWeights) {
    if (pool.failed) return afterFailure(tokens, flags, wantWeights);
    const plan = planGpt2Workers(config, tokens.length, n, crossover);
    if (!plan.workers && !copyReason) return onOneThread(tokens, flags, wantWeights, plan.reason);
    try {
      const out = await onWorkers(tokens, flags, wantWeights);
      return plan.workers ? out : { ...out, reason: `${plan.reason}; ${copyReason}: the workers run it` };
    } catch (error) {
      if (pool.failed) return afterFailure(tokens, flags, wantWeights);
      throw error;
    }
  }

  // One forward at a time: the workers hold one forward's state and exchange its sums in order.
  let queue = Promise.resolve();
  return {
    threads: n,
    forward(tokens, flags, wantWeights) {
      // ms: this forward's own time, not the wait behind the ones before it
      const result = queue.then(async () => {
        const started = performance.now();
        const out = await forwardNow(tokens, flags, wantWeights);
        return { ...out, ms: performance.now() - started };
      });
      queue = result.catch(() => {});
      return result;
    },
    dispose() {
      pool.terminate();
      single?.then((engine) => engine.dispose(), () => {});
    },
  };
}
