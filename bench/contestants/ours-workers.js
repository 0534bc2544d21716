// Our kernels on two threads without a threaded WASM build: two Web Workers, each with its own SIMD
// core, split the heads (attention is independent per head, so worker w takes the Q, K, V column
// blocks of its heads and returns those columns of the context), then split the rows of the output
// projection. Plain postMessage: works on any static host, cross-origin isolated or not.
const WORKER = new URL('../attention-worker.js', import.meta.url);
const WORKERS = 2;

class WorkerPool {
  constructor(count) {
    this.workers = Array.from({ length: count }, () => new Worker(WORKER, { type: 'module' }));
    this.pending = new Map();
    this.next = 0;
    for (const worker of this.workers) {
      worker.onmessage = ({ data }) => {
        const { resolve, reject } = this.pending.get(data.id);
        this.pending.delete(data.id);
        if (data.error) reject(new Error(data.error));
        else resolve(data);
      };
      worker.onerror = (event) => {
        for (const { reject } of this.pending.values()) reject(new Error(`attention-worker failed: ${event.message}`));
        this.pending.clear();
      };
    }
  }

  ask(index, message, transfer = []) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[index].postMessage({ ...message, id }, transfer);
    });
  }

  close() {
    for (const worker of this.workers) worker.terminate();
  }
}

let pool = null;

async function loadPool() {
  if (!pool) {
    pool = new WorkerPool(WORKERS);
    const answers = await Promise.all(pool.workers.map((_, w) => pool.ask(w, { type: 'load' })));
    pool.relaxed = answers.every((a) => a.relaxed === '');
  }
  return pool;
}

/** Columns [start, start + count) of a row-major (rows, cols) matrix. */
function columns(matrix, rows, cols, start, count) {
  const out = new Float32Array(rows * count);
  for (let r = 0; r < rows; r++) out.set(matrix.subarray(r * cols + start, r * cols + start + count), r * count);
  return out;
}

const attentionTask = {
  supports: () => true,
  async prepare({ x, T, dModel: d, heads, weights: w }) {
    const workers = await loadPool();
    const headsPer = heads / WORKERS;
    const width = d / WORKERS;  // each worker's context columns: its heads
    const parts = Array.from({ length: WORKERS }, (_, k) => ({
      query: columns(w.query, d, d, k * width, width), key: columns(w.key, d, d, k * width, width),
      value: columns(w.value, d, d, k * width, width), queryBias: w.queryBias.slice(k * width, (k + 1) * width),
      keyBias: w.keyBias.slice(k * width, (k + 1) * width), valueBias: w.valueBias.slice(k * width, (k + 1) * width),
    }));
    const rowSplit = Math.ceil(T / WORKERS);
    return {
      run: async () => {
        // 1. each worker: its heads' projections and attention → its columns of the context
        const halves = await Promise.all(parts.map((weights, k) =>
          workers.ask(k, { type: 'heads', x, T, dModel: d, heads: headsPer, weights })));
        const context = new Float32Array(T * d);
        halves.forEach(({ context: part }, k) => {
          for (let r = 0; r < T; r++) context.set(part.subarray(r * width, (r + 1) * width), r * d + k * width);
        });
        // 2. each worker: its rows of the output projection
        const outputs = await Promise.all(Array.from({ length: WORKERS }, (_, k) => {
          const rows = Math.max(0, Math.min(rowSplit, T - k * rowSplit));
          const slice = context.slice(k * rowSplit * d, (k * rowSplit + rows) * d);
          return workers.ask(k, { type: 'project', rows, context: slice, dModel: d, weight: w.out, bias: w.outBias }, [slice.buffer]);
        }));
        const output = new Float32Array(T * d);
        outputs.forEach(({ output: part }, k) => output.set(part, k * rowSplit * d));
        return output;
      },
    };
  },
};

export function workerContestants() {
  return [{
    name: `ours ${WORKERS} workers`,
    group: 'ours',
    setup: async () => {
      if (typeof Worker === 'undefined') throw new Error('no Web Workers here');
      const workers = await loadPool();
      return `${WORKERS} Web Workers, one SIMD core each${workers.relaxed ? ' with the relaxed-SIMD tiles' : ''}; heads split, then output rows split`;
    },
    tasks: { attention: attentionTask },
  }];
}
