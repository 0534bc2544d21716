// The memory a GPT-2 model holds, for every way createGpt2 can build it, counted from config.json before anything
// is allocated: kept in float32 on one thread (the fast path's copy and packed matrices), kept in float16 on one
// thread (half-model.js), or on n workers (each worker's share in its own WASM heap, the checkpoint on the calling
// thread, and the calling thread's copy of the model where forwards below a crossover are sent to it). A model that
// will not fit is refused with the figures, or moved to a way that fits with the reason, before it starts.
import { gpt2ParameterCount, gpt2ParameterShapes, isGpt2Matrix } from './checkpoint.js';
import { gpt2Shares, planGpt2Workers } from './worker-plan.js';

/** The largest memory the WASM heap can have (the builds' maximum). */
export const WASM_HEAP_LIMIT = 2 ** 31;

const padded8 = (n) => Math.ceil(n / 8) * 8;

/**
 * The bytes a loaded model holds at once, for each way of keeping it (the loaders stream the file into these
 * arrays, checkpoint-stream.js: the file itself is never held):
 * - float32 (the fast path, all of it packed once): `parameters` the float32 parameters the checkpoint keeps (the
 *   JS reference and `intermediates` read them); in the WASM heap (`heap`) their copy, the packed copy of the
 *   matrices (`packed`, the same size again) and one forward's activations at the full context.
 * - float16 (half-model.js: the matrices kept as float16 and each block's unpacked and packed just before it
 *   runs): `parameters` the float16 matrices and float32 vectors; in the WASM heap (`heap`) the packed
 *   unembedding, the buffer a matrix is unpacked into (wte's size, at load), one block's packed matrices and the
 *   activations.
 * `total` = parameters + heap.
 */
export function gpt2MemoryBytes(config) {
  const parameters = 4 * gpt2ParameterCount(config);
  const { contextLength: T, dModel: C, heads: H, dMlp: M, vocabSize: V } = config;
  const activations = 4 * (T * (6 * C + M) + H * T * T + T * V);
  let matrices = 0;
  for (const [name, shape] of Object.entries(gpt2ParameterShapes(config))) if (isGpt2Matrix(name)) matrices += shape[0] * shape[1];
  const unembedding = 4 * C * padded8(V);
  const staging = 4 * V * C;
  const block = 4 * (C * padded8(3 * C) + C * padded8(C) + C * padded8(M) + M * padded8(C));
  const half = 2 * matrices + (parameters - 4 * matrices);
  const halfHeap = unembedding + staging + block + activations;
  const heap = 2 * parameters + activations;
  return {
    parameters, packed: parameters, activations, heap, total: parameters + heap,
    float16: { parameters: half, unembedding, staging, block, activations, heap: halfHeap, total: half + halfHeap },
  };
}

const GB = 1e9;
// GB to two places; below 0.1 GB in MB, so that a small model's figures are not all 0.00 GB
const gb = (bytes) => (bytes >= 0.1 * GB ? `${(bytes / GB).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(2)} MB`);

/**
 * How a model is kept, or a refusal with the figures: 'float32' when the fast path's whole copy fits in
 * limitBytes (and its heap in the WASM heap), else 'float16' when the float16-resident model does, else an Error
 * that gives both. fileBytes: bytes held besides, throughout (a file read whole; the loaders stream, holding
 * none). Returns gpt2MemoryBytes' figures and `resident`.
 */
export function checkGpt2Memory(config, { limitBytes = WASM_HEAP_LIMIT, name = 'the model', fileBytes = 0 } = {}) {
  const need = gpt2MemoryBytes(config);
  const total = need.total + fileBytes;
  if (total <= limitBytes && need.heap <= WASM_HEAP_LIMIT) return { ...need, resident: 'float32' };
  const half = need.float16;
  const halfTotal = half.total + fileBytes;
  if (halfTotal <= limitBytes && half.heap <= WASM_HEAP_LIMIT) return { ...need, resident: 'float16' };
  const file = fileBytes ? `, ${gb(fileBytes)} for the file held whole` : '';
  throw new Error(`loadGpt2: ${name} needs ${gb(total)} kept in float32 (${gb(need.parameters)} of float32 parameters and, in the WASM heap, ` +
    `${gb(need.parameters)} for their copy, ${gb(need.packed)} packed for the fast path and ${gb(need.activations)} of activations${file}), ` +
    `or ${gb(halfTotal)} kept in float16 (${gb(half.parameters)} of parameters, ${gb(half.heap)} in the WASM heap${file}), ` +
    `but ${gb(limitBytes)} are available; expected a model that fits (gpt2, distilgpt2, gpt2-medium)`);
}

/**
 * One worker's WASM heap for its share (cpp/kernels/gpt2_shard.h, as it allocates): the share's vectors, its
 * packed matrices (the GEMM's panels, columns padded to 8), the staging buffer each matrix is written to before it
 * is packed (the largest; freed after the last, but a WASM heap never shrinks) and one full-context forward's
 * activations without the weights, with the (T, C) parts of all `parts` workers. heap: their sum.
 */
export function gpt2ShareBytes(config, share, parts) {
  const { contextLength: T, dModel: C, heads: H, layers } = config;
  const w = (share.headEnd - share.headBegin) * (C / H);
  const m = share.mlpEnd - share.mlpBegin;
  const v = share.vocabEnd - share.vocabBegin;
  const vectors = 4 * (layers * (6 * C + 3 * w + m) + 2 * C);
  const packed = 4 * (layers * (C * padded8(3 * w) + w * padded8(C) + C * padded8(m) + m * padded8(C)) + C * padded8(v));
  const staging = 4 * Math.max(C * 3 * w, C * m, v * C);
  const activations = 4 * T * (2 * C + 4 * w + m + v + parts * C);
  return { vectors, packed, staging, activations, heap: vectors + packed + staging + activations };
}

/**
 * A float32 model on `workers` workers (min(workers, heads) of them: worker-plan.js's cut): `shares` each worker's
 * heap (gpt2ShareBytes) and `heap` the largest (each worker's WASM heap has its own limit); on the calling thread
 * the float32 `parameters` and the matrices `sending` to the workers while they load (one layer's, or the wte rows,
 * per worker); `total` = parameters + sending + every worker's heap. `oneThread`: the heap of the calling thread's
 * own copy of the model (gpt2MemoryBytes' heap), which forwards sent to it below a crossover need.
 */
export function gpt2WorkerMemoryBytes(config, workers) {
  const cuts = gpt2Shares(config, workers);
  const shares = cuts.map((share) => gpt2ShareBytes(config, share, cuts.length));
  const { dModel: C, heads: H } = config;
  const sending = cuts.reduce((sum, share) => {
    const w = (share.headEnd - share.headBegin) * (C / H);
    const m = share.mlpEnd - share.mlpBegin;
    return sum + 4 * Math.max(C * 3 * w + w * C + 2 * C * m, (share.vocabEnd - share.vocabBegin) * C);
  }, 0);
  const parameters = 4 * gpt2ParameterCount(config);
  const heaps = shares.reduce((n, share) => n + share.heap, 0);
  return {
    workers: cuts.length, shares, heap: Math.max(...shares.map((share) => share.heap)), parameters, sending,
    total: parameters + sending + heaps, oneThread: gpt2MemoryBytes(config).heap,
  };
}

/** Why the figures `need` ({heap, total}) do not fit limitBytes or a WASM heap of heapBytes; null when they fit. */
function overLimit(need, limitBytes, heapBytes) {
  if (need.heap > heapBytes) return `over a WASM heap's ${gb(heapBytes)}`;
  return need.total > limitBytes ? `but ${gb(limitBytes)} are available` : null;
}

/** Why one thread cannot hold the model kept as `resident` within limitBytes, with the figures; null when it can. */
function oneThreadRefusal(config, resident, limitBytes, heapBytes) {
  const need = resident === 'float16' ? gpt2MemoryBytes(config).float16 : gpt2MemoryBytes(config);
  const over = overLimit(need, limitBytes, heapBytes);
  return over && `kept in ${resident} on one thread it needs ${gb(need.total)} (${gb(need.parameters)} of parameters, ${gb(need.heap)} in the WASM heap), ${over}`;
}

/** Why n workers cannot hold the float32 model within limitBytes (or a share its worker's WASM heap), with the figures; null when they can. */
function workersRefusal(config, workers, limitBytes, heapBytes) {
  const need = gpt2WorkerMemoryBytes(config, workers);
  const over = overLimit(need, limitBytes, heapBytes);
  if (!over) return null;
  const share = need.shares.find(({ heap }) => heap === need.heap);
  const figures = need.heap > heapBytes
    ? `a worker's share needs ${gb(need.heap)} of WASM heap (${gb(share.packed)} packed, ${gb(share.activations)} of activations, ${gb(share.staging)} staging)`
    : `it needs ${gb(need.total)} (${gb(need.parameters)} of parameters on this thread, ${gb(need.total - need.parameters - need.sending)} in the workers' WASM heaps, ${gb(need.sending)} sent while they load)`;
  // the fewest workers that would fit, where more would
  let fits = null;
  for (let n = need.workers + 1; n <= config.heads && !fits; n++) {
    const more = gpt2WorkerMemoryBytes(config, n);
    if (more.workers === n && !overLimit(more, limitBytes, heapBytes)) fits = `; ${n} workers would need ${gb(more.total)}, ${gb(more.heap)} each`;
  }
  return `on ${need.workers} workers ${figures}, ${over}${fits ?? ''}`;
}

/**
 * How createGpt2 builds the model within limitBytes, decided before anything starts (no worker, no WASM copy):
 * {threads, threadsReason, oneThreadCopy, copyReason, oneThreadReason}, or an Error naming the figures.
 * - one thread (threads 1, or resident 'float16'): where that way fits (gpt2MemoryBytes' figures), else an Error.
 * - threads n ≥ 2, float32: min(n, heads) workers where every share fits its worker's WASM heap and the total fits
 *   limitBytes (gpt2WorkerMemoryBytes); else one thread where that fits, threadsReason giving the workers' figures;
 *   else an Error with both.
 * - on workers, with a crossover ({minWork} > 0: createGpt2's option), forwards below it may run on the calling
 *   thread's copy of the model (oneThreadCopy) only where that copy fits beside the workers; else they stay on the
 *   workers and copyReason says why. oneThreadReason: why one thread could not hold the model alone (after the
 *   workers fail), or null.
 * heapBytes: what one WASM module can allocate (createGpt2 reads a fresh module's heapStats().bytesAvailable: the
 * limit less its static data, stack and the binding's margin) [WASM_HEAP_LIMIT].
 */
export function planGpt2Memory(config, { threads = 1, resident = 'float32', limitBytes = WASM_HEAP_LIMIT, heapBytes = WASM_HEAP_LIMIT, crossover, name = 'the model' } = {}) {
  const oneThreadReason = oneThreadRefusal(config, resident, limitBytes, heapBytes);
  const oneThread = (threadsReason, workersReason) => {
    if (oneThreadReason) throw new Error(`createGpt2: ${name} does not fit: ${workersReason ? `${workersReason}; ` : ''}${oneThreadReason}`);
    return { threads: 1, threadsReason, oneThreadCopy: false, copyReason: null, oneThreadReason };
  };
  if (threads < 2) return oneThread(null);
  if (resident === 'float16') return oneThread('a float16-resident model runs on one thread');
  const refused = workersRefusal(config, threads, limitBytes, heapBytes);
  if (refused) return oneThread(`${refused}; one thread`, refused);
  const need = gpt2WorkerMemoryBytes(config, threads);
  const plan = { threads: need.workers, threadsReason: null, oneThreadCopy: false, copyReason: null, oneThreadReason };
  if (!crossover?.minWork || planGpt2Workers(config, 1, need.workers, crossover).workers) return plan;
  const withCopy = { heap: need.oneThread, total: need.total + need.oneThread };
  const over = overLimit(withCopy, limitBytes, heapBytes);
  if (!over) return { ...plan, oneThreadCopy: true };
  return { ...plan, copyReason: `the calling thread's copy of the model (${gb(need.oneThread)} of WASM heap) would bring the workers' ${gb(need.total)} to ${gb(withCopy.total)}, ${over}` };
}
