// Our kernels on two threads, through the library's threaded path: loadAttention({backend: 'wasm-simd',
// threads: 2}) starts two Web Workers, each with its own SIMD core (and the relaxed-SIMD tiles where the
// browser has them); each call above the workers' crossover splits the heads between them, and the main
// thread sums their partial output projections (web/src/core/backends/threads.js). Every call pays what a
// library call pays: the main thread checks the input, cuts each worker's weight columns and copies x.
// Plain postMessage, no SharedArrayBuffer: works on any static host, cross-origin isolated or not.
import { planPoolCall } from '../../web/src/core/planner.js';

const THREADS = 2;

let loaded = null;

/** One Attention object for every size (the workers start once). */
function loadThreaded() {
  loaded ??= import('../../web/src/core/index.js').then(({ loadAttention }) => loadAttention({ backend: 'wasm-simd', threads: THREADS }));
  return loaded;
}

const tensor = (data, shape) => ({ data, shape });

/** The benchmark's weights as the API's split-form weights object. */
function splitWeights({ dModel: d, weights: w }) {
  return {
    query: tensor(w.query, [d, d]), key: tensor(w.key, [d, d]), value: tensor(w.value, [d, d]),
    queryBias: tensor(w.queryBias, [d]), keyBias: tensor(w.keyBias, [d]), valueBias: tensor(w.valueBias, [d]),
    outWeight: tensor(w.out, [d, d]), outBias: tensor(w.outBias, [d]),
  };
}

const options = (heads) => ({ heads, causal: true, intermediates: false });

/** Whether the library sends this size to the workers (below their crossover it runs on one thread). */
function runsOnWorkers(T, dModel = 768, heads = 12) {
  const shapes = [{ shape: [1, T, dModel] }, { query: { shape: [dModel, dModel] }, outWeight: { shape: [dModel, dModel] } },
    { ...options(heads), mask: 'neg_inf', dropout: 0 }];
  const plan = planPoolCall('multiheadAttentionSplit', shapes, { workers: THREADS });
  return plan.pool || `${plan.reason}: the library runs it on one thread (the 'ours relaxed-SIMD' row)`;
}

const attentionTask = {
  supports: (T) => runsOnWorkers(T),
  async prepare(inputs) {
    const attention = await loadThreaded();
    const x = tensor(inputs.x, [1, inputs.T, inputs.dModel]);
    const weights = splitWeights(inputs);
    return {
      run: async () => {
        const { output } = await attention.multiheadAttentionSplit(x, weights, options(inputs.heads));
        if (attention.lastCall?.threads !== THREADS) throw new Error(`ran on ${attention.lastCall?.threads} thread(s): ${attention.lastCall?.reason}`);
        return output.data;
      },
    };
  },
};

export function workerContestants() {
  return [{
    name: `ours ${THREADS} workers`,
    group: 'ours',
    threads: THREADS,
    setup: async () => {
      const attention = await loadThreaded();
      if (attention.threads !== THREADS) throw new Error(`loadAttention({threads: ${THREADS}}) runs on ${attention.threads}: ${attention.threadsReason}`);
      return `loadAttention({backend: 'wasm-simd', threads: ${THREADS}}): ${THREADS} Web Workers, one SIMD core each (relaxed-SIMD tiles where supported); `
        + 'heads split, partial output projections summed on the main thread, which also checks the input and cuts the weights per call';
    },
    tasks: { attention: attentionTask },
  }];
}
