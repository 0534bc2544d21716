// GPT-2 as a model of the model interface (docs/api.md "Models", the same as the project's trained models):
//   {name, tokenizer, config, forward(tokens, {intermediates, headsOff, ablation, attention})}
// forward returns {tokens, logits (T, V), attention: every layer's weights (H, T, T)} and, with
// `intermediates`, each layer's {input, normed, query, key, value, weights, context, output}. GPT-2's
// extension: `attention: false` leaves the weights out, and the WASM fast path then runs the fused causal
// attention. headsOff lists [layer, head] pairs switched off before the output projection, their context
// replaced by zeros (ablation 'zero') or by its mean over the positions ('mean').
// Engines: the JS reference ('js'), the WASM fast path ('wasm'), or, given `attention` (an object of
// loadAttention), that API's registry functions (api-model.js) on whatever backend and paths it runs: WebGPU,
// workers; then forward returns a Promise. With `threads` ≥ 2 (and Web Workers), the WASM engine runs on that
// many workers, each holding a share of the model (worker-model.js), where they and the model fit (memory.js);
// forward then returns a Promise too. `intermediates` run the JS reference on every engine (the per-layer
// tensors are for inspection at small T). `lastCall` says which engine and path ran and how long it took.
import { createApiGpt2 } from './api-model.js';
import { gpt2ForwardReference } from './forward-reference.js';
import { float32Parameters, isFloat16Resident } from './checkpoint.js';
import { planGpt2Memory, WASM_HEAP_LIMIT } from './memory.js';
import { createHalfGpt2 } from './half-model.js';
import { createWasmGpt2 } from './wasm-model.js';
import { createWorkerGpt2, startGpt2Workers } from './worker-model.js';
import { planGpt2Workers } from './worker-plan.js';
import { resolveThreads } from '../core/backends/thread-plan.js';
import { describeValue } from '../core/tensor.js';

const BACKENDS = ['wasm', 'wasm-simd', 'wasm-baseline', 'js', 'webgpu'];
/** The ways a head is switched off (model22's ABLATIONS). */
export const ABLATIONS = ['zero', 'mean'];

function checkTokens(tokens, config) {
  const fn = 'gpt2.forward';
  if (!Array.isArray(tokens) && !(tokens instanceof Int32Array)) {
    throw new TypeError(`${fn}: tokens is ${tokens === null ? 'null' : typeof tokens}; expected an array of token ids`);
  }
  if (tokens.length < 1 || tokens.length > config.contextLength) {
    throw new RangeError(`${fn}: tokens has ${tokens.length} ids; expected 1 to ${config.contextLength} (the model's context length)`);
  }
  const bad = Array.prototype.findIndex.call(tokens, (id) => !Number.isInteger(id) || id < 0 || id >= config.vocabSize);
  if (bad >= 0) throw new RangeError(`${fn}: tokens[${bad}] is ${tokens[bad]}; expected an integer id in [0, ${config.vocabSize})`);
}

function headsOffFlags(headsOff, ablation, config) {
  // the words of the model interface's other forward (model/model.js), with this function's name
  const fn = 'gpt2.forward';
  if (!ABLATIONS.includes(ablation)) throw new RangeError(`${fn}: options.ablation=${describeValue(ablation)}; expected 'zero' or 'mean'`);
  if (headsOff !== undefined && headsOff !== null && !Array.isArray(headsOff)) {
    throw new RangeError(`${fn}: options.headsOff is ${describeValue(headsOff)}; expected an array of [layer, head] pairs (0-based)`);
  }
  const flags = new Uint8Array(config.layers * config.heads);
  (headsOff ?? []).forEach((pair, i) => {
    const [layer, head] = Array.isArray(pair) ? pair : [];
    if (!Array.isArray(pair) || pair.length !== 2 || !Number.isInteger(layer) || layer < 0 || layer >= config.layers || !Number.isInteger(head) || head < 0 || head >= config.heads) {
      const shown = Array.isArray(pair) ? JSON.stringify(pair) : describeValue(pair);
      throw new RangeError(`${fn}: options.headsOff[${i}] is ${shown}; expected [layer, head] with layer 0 to ${config.layers - 1} and head 0 to ${config.heads - 1}`);
    }
    flags[layer * config.heads + head] = ablation === 'mean' ? 2 : 1;
  });
  return flags;
}

/** The tokenizer as the model interface reads it: encode → Int32Array, tokenText(id). */
function interfaceTokenizer(tokenizer) {
  return Object.freeze({
    ...tokenizer,
    encode: (text) => Int32Array.from(tokenizer.encode(text)),
    tokenText: (id) => tokenizer.tokenStrings([id])[0],
  });
}

/**
 * A GPT-2 model from a loaded checkpoint ({config, parameters, tokenizer}: load.js).
 * backend: 'wasm' (the SIMD build where supported), 'wasm-simd', 'wasm-baseline', 'js' or 'webgpu' (every block
 * on the GPU: webgpu-model.js; forward returns a Promise); or attention: a
 * loaded attention API (loadAttention), whose layerNorm, multiheadAttentionFused and matmul compose it.
 * threads: 1, a number of workers, or 'auto' for the WASM engine: workers where the model's full-context forward
 * passes their crossover (planGpt2Workers), as many as the cores (at most 4); no cross-origin isolation asked
 * for, as the workers share no memory. Workers that cannot start leave the model on one thread, threadsReason
 * saying why. Every forward runs on the workers, unless crossover ({minWork}, as GPT2_WORKER_CROSSOVER's) sends those below
 * it to a copy of the model on the calling thread, built on first use where it fits beside the workers.
 * limitBytes: the memory the WASM engine's model may hold (planGpt2Memory decides before anything starts: a
 * model that does not fit is refused with the figures). name: the model's name ['gpt2'].
 */
export async function createGpt2({ config, parameters: stored, tokenizer }, { backend = 'wasm', wasmBinary, attention, threads = 1, crossover, limitBytes = WASM_HEAP_LIMIT, name = 'gpt2' } = {}) {
  // float16-resident checkpoints (load.js): the WASM engine streams the blocks (half-model.js); the engines
  // that read float32 get the matrices widened as they read them
  const half = isFloat16Resident(stored);
  const parameters = float32Parameters(stored);
  const reference = (tokens, flags) => gpt2ForwardReference(config, parameters, Array.from(tokens), { flags, intermediates: true });
  const parts = { name, config, tokenizer, reference };
  if (attention) return wrap(parts, createApiGpt2(attention, config, parameters), `api:${attention.backend}`);
  if (!BACKENDS.includes(backend)) throw new Error(`createGpt2: backend is ${JSON.stringify(backend)}; expected one of ${BACKENDS.join(', ')}`);
  if (backend === 'js') {
    const engine = { forward: (tokens, flags) => gpt2ForwardReference(config, parameters, Array.from(tokens), { flags }), dispose() {} };
    return wrap(parts, engine, 'js');
  }
  if (backend === 'webgpu') {
    const { createWebGpuGpt2 } = await import('./webgpu-model.js');
    return wrap(parts, await createWebGpuGpt2(config, parameters), 'webgpu');
  }
  const { loadWasmBackend } = await import('../core/backends/wasm.js');
  const build = backend === 'wasm' ? 'auto' : backend.slice('wasm-'.length);
  // 'auto' starts workers only for a model whose full-context forward would go to them; unlike loadAttention's
  // 'auto' it needs no cross-origin isolation (no SharedArrayBuffer: the model's size alone says they pay)
  const tooSmall = threads === 'auto' ? planGpt2Workers(config, config.contextLength, 2) : { workers: true };
  const { count, reason } = tooSmall.workers
    ? resolveThreads(threads, { crossOriginIsolated: true, hasWorker: typeof globalThis.Worker === 'function', hardwareConcurrency: globalThis.navigator?.hardwareConcurrency })
    : { count: 1, reason: `threads 'auto': even a full context (${tooSmall.reason})` };
  const wasm = await loadWasmBackend({ build, wasmBinary });
  // the memory of the way it will run, before the WASM copy or a worker starts (an Error with the figures); a
  // fresh module (this one, as each worker's) can allocate bytesAvailable
  const memory = planGpt2Memory(config, {
    threads: config.heads < 2 ? 1 : count, resident: half ? 'float16' : 'float32', limitBytes, heapBytes: wasm.heapStats().bytesAvailable, crossover, name,
  });
  const oneThread = (why) => {
    const model = wrap(parts, half ? createHalfGpt2(wasm, config, stored) : createWasmGpt2(wasm, config, parameters), wasm.name);
    model.threadsReason = why;
    model.resident = half ? 'float16' : 'float32';
    return model;
  };
  if (memory.threads < 2) {
    return oneThread(reason ?? (count < 2 ? null : config.heads < 2 ? 'one head: nothing to share between workers' : memory.threadsReason));
  }
  // the calling thread's copy: for forwards below the crossover where it fits beside the workers, and for every
  // forward once the workers failed (and were stopped) where it fits alone
  const copy = async () => {
    if (memory.oneThreadReason) throw new Error(`${name} ${memory.oneThreadReason}`);
    return createWasmGpt2(wasm, config, parameters);
  };
  let pool = null;
  let engine;
  try {
    // the build the calling thread loaded, in every worker
    ({ pool } = await startGpt2Workers(memory.threads, { build: wasm.build, wasmBinary }));
    engine = await createWorkerGpt2(pool, config, parameters, { oneThread: copy, crossover, copyReason: memory.copyReason });
  } catch (error) {
    pool?.terminate();
    const why = `the workers could not start (${error?.message ?? error})`;
    if (memory.oneThreadReason) throw new Error(`createGpt2: ${why}, and ${name} ${memory.oneThreadReason}`);
    return oneThread(`${why}; one thread`);
  }
  const model = wrap(parts, engine, wasm.name);
  model.threads = engine.threads;
  return model;
}

/** The model interface around one engine ({forward(tokens, flags, wantWeights), dispose()}). */
function wrap({ name, config, tokenizer, reference }, engineToWrap, backendName) {
  let engine = engineToWrap;
  const { vocabSize: V, heads: H } = config;
  const model = {
    name,
    kind: 'gpt2',
    tokenizer: tokenizer ? interfaceTokenizer(tokenizer) : null,
    config: Object.freeze({ ...config, dHead: config.dModel / config.heads }),
    backend: backendName,
    /** {backend, path, ms, threads, reason} of the last forward (reason: why one thread ran where workers were started). */
    lastCall: null,
    /** How the WASM engine keeps the weights: 'float32' (packed once) or 'float16' (half-model.js). */
    resident: 'float32',
    /** How many threads the forward may use, and why only one where threads ≥ 2 was asked for. */
    threads: 1,
    threadsReason: null,
    forward(tokens, { intermediates = false, headsOff = [], ablation = 'zero', attention = true } = {}) {
      checkTokens(tokens, config);
      const flags = headsOffFlags(headsOff, ablation, config);
      const T = tokens.length;
      const started = performance.now();
      if (!engine) throw new Error('gpt2.forward: the model was disposed');
      const finish = (out, path) => {
        model.lastCall = {
          backend: intermediates ? 'js' : backendName, path, ms: out.ms ?? performance.now() - started,
          threads: intermediates ? 1 : out.threads ?? 1, reason: intermediates ? null : out.reason ?? null,
        };
        const result = { tokens: Int32Array.from(tokens), logits: { data: out.logits, shape: [T, V] } };
        if (attention || intermediates) result.attention = out.attention.map((data) => ({ data, shape: [H, T, T] }));
        if (intermediates) result.layers = out.layers;
        return result;
      };
      if (intermediates) return finish(reference(tokens, flags), 'teaching');
      const out = engine.forward(tokens, flags, attention);
      const pathOf = (o) => (o.paths ? o.paths.join(', ') : backendName === 'js' ? 'teaching' : attention ? 'weights' : 'fused');
      return typeof out?.then === 'function' ? out.then((o) => finish(o, pathOf(o))) : finish(out, pathOf(out));
    },
    dispose() { engine?.dispose(); engine = null; },
  };
  return model;
}
