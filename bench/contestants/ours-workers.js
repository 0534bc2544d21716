// Our kernels on two threads without a threaded WASM build: two Web Workers, each with its own SIMD
// core, split the heads. Attention is independent per head, so worker w takes the Q, K, V column
// blocks of its heads, computes those columns of the context, and multiplies them by the same rows of
// Wo: output = Σ_w context[:, heads_w]·Wo[heads_w, :] + bo, summed here. One round trip per call, plain
// postMessage: works on any static host, cross-origin isolated or not.
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
      outRows: w.out.slice(k * width * d, (k + 1) * width * d),
    }));
    return {
      run: async () => {
        const partials = await Promise.all(parts.map((weights, k) =>
          workers.ask(k, { type: 'heads', x, T, dModel: d, heads: headsPer, weights })));
        const output = partials[0].partial;
        for (let k = 1; k < WORKERS; k++) {
          const part = partials[k].partial;
          for (let i = 0; i < output.length; i++) output[i] += part[i];
        }
        for (let r = 0; r < T; r++) for (let j = 0; j < d; j++) output[r * d + j] += w.outBias[j];
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
      return `${WORKERS} Web Workers, one SIMD core each${workers.relaxed ? ' with the relaxed-SIMD tiles' : ''}; heads split, partial output projections summed`;
    },
    tasks: { attention: attentionTask },
  }];
}
