// What the threads specs drive in the page: the same call on a threaded and a single-thread Attention
// object, reporting where it ran and the max |difference| (not the arrays, so large cases stay cheap).
import { loadAttention } from '/web/src/core/index.js';
import { createAttention } from '/web/src/core/api.js';
import { loadWasmBackend } from '/web/src/core/backends/wasm.js';
import { startWorkerPool } from '/web/src/core/backends/worker-pool.js';
import { createThreadedBackend } from '/web/src/core/backends/threads.js';
import { mulberry32 } from '/web/src/core/random.js';

export { loadAttention };

/** A tensor of uniform numbers in [-scale, scale), seeded. */
export function randomTensor(shape, seed, scale = 0.5) {
  const next = mulberry32(seed);
  const data = new Float32Array(shape.reduce((product, size) => product * size, 1));
  for (let i = 0; i < data.length; i++) data[i] = (next() * 2 - 1) * scale;
  return { data, shape };
}

export function maxDifference(a, b) {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

/** Split-form weights (d_in, d_out) with biases; outWeight/outBias as asked. */
export function splitWeights(dIn, dOut, seed, { dContext = dIn, out = true, outBias = true } = {}) {
  const weights = {
    query: randomTensor([dIn, dOut], seed), key: randomTensor([dContext, dOut], seed + 1), value: randomTensor([dContext, dOut], seed + 2),
    queryBias: randomTensor([dOut], seed + 3), keyBias: randomTensor([dOut], seed + 4), valueBias: randomTensor([dOut], seed + 5),
  };
  if (out) weights.outWeight = randomTensor([dOut, dOut], seed + 6, 0.1);
  if (outBias) weights.outBias = randomTensor([dOut], seed + 7);
  return weights;
}

/** The same weights as stacked heads and as the fused [Wq | Wk | Wv]. */
export function otherLayouts(split, heads) {
  const [dIn, dOut] = split.query.shape;
  const dHead = dOut / heads;
  const columns = (tensor, start, count) => {
    const data = new Float32Array(dIn * count);
    for (let r = 0; r < dIn; r++) data.set(tensor.data.subarray(r * dOut + start, r * dOut + start + count), r * count);
    return { data, shape: [dIn, count] };
  };
  const slice = (tensor, start, count) => ({ data: tensor.data.slice(start, start + count), shape: [count] });
  const stacked = {
    heads: Array.from({ length: heads }, (_, h) => ({
      query: columns(split.query, h * dHead, dHead), key: columns(split.key, h * dHead, dHead), value: columns(split.value, h * dHead, dHead),
      queryBias: slice(split.queryBias, h * dHead, dHead), keyBias: slice(split.keyBias, h * dHead, dHead), valueBias: slice(split.valueBias, h * dHead, dHead),
    })),
    outWeight: split.outWeight, outBias: split.outBias,
  };
  const inProjection = new Float32Array(dIn * 3 * dOut);
  for (let r = 0; r < dIn; r++) {
    ['query', 'key', 'value'].forEach((name, b) => inProjection.set(split[name].data.subarray(r * dOut, (r + 1) * dOut), r * 3 * dOut + b * dOut));
  }
  const inBias = new Float32Array(3 * dOut);
  ['queryBias', 'keyBias', 'valueBias'].forEach((name, b) => inBias.set(split[name].data, b * dOut));
  const fused = { inProjection: { data: inProjection, shape: [dIn, 3 * dOut] }, inBias: { data: inBias, shape: [3 * dOut] }, outWeight: split.outWeight, outBias: split.outBias };
  return { stacked, fused };
}

/**
 * Calls attention[fn](...args) on `threaded` and on `single`; where the threaded call ran (lastCall),
 * whether it returned a Promise, the output shape and the max |difference| of the outputs.
 */
export async function compareCall(threaded, single, fn, args) {
  const pending = threaded[fn](...args);
  const isPromise = pending instanceof Promise;
  const lastCall = threaded.lastCall;
  const ours = (await pending).output;
  const theirs = (await single[fn](...args)).output;
  return { isPromise, lastCall, shape: ours.shape, maxDifference: maxDifference(ours.data, theirs.data) };
}

/** The threaded backend over `threads` workers with the crossover at 0: every eligible call goes to the pool. */
export async function loadForcedPool(threads) {
  const cpu = await loadWasmBackend({ build: 'simd' });
  const { pool } = await startWorkerPool(threads, { build: 'simd' });
  return createAttention(createThreadedBackend(cpu, pool, { crossover: { workPerFloat: 0, minWork: 0 } }));
}
