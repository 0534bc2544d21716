// GPT-2 as a model of the model interface (the same as the project's trained models):
//   {tokenizer, config, forward(tokens, {intermediates, headsOff})}
// forward returns the logits (T, V) and, with `intermediates`, every layer's attention weights (H, T, T) (a
// Promise of them when composed of an attention API, whose webgpu backend is asynchronous);
// headsOff lists [layer, head] pairs whose output is removed (zero-ablation: the head's context is zeroed
// before the output projection). The forward runs on the JS reference ('js') or the WASM fast path ('wasm':
// the fused attention without intermediates, the per-head softmax with them); `lastCall` says which ran and
// how long it took. Given `attention` (an object of loadAttention), it is composed of that API's registry
// functions instead (api-model.js), on whatever backend and paths that object runs: WebGPU, workers.
import { createApiGpt2 } from './api-model.js';
import { createWasmGpt2 } from './wasm-model.js';

const BACKENDS = ['wasm', 'wasm-simd', 'wasm-baseline', 'js'];

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

function headsOffFlags(headsOff, config) {
  const flags = new Uint8Array(config.layers * config.heads);
  for (const pair of headsOff ?? []) {
    const [layer, head] = Array.isArray(pair) ? pair : [];
    if (!Number.isInteger(layer) || layer < 0 || layer >= config.layers || !Number.isInteger(head) || head < 0 || head >= config.heads) {
      throw new RangeError(`gpt2.forward: headsOff has ${JSON.stringify(pair)}; expected [layer, head] with layer in [0, ${config.layers}) and head in [0, ${config.heads})`);
    }
    flags[layer * config.heads + head] = 1;
  }
  return flags;
}

/**
 * A GPT-2 model from a loaded checkpoint ({config, parameters, tokenizer}: load.js).
 * backend: 'wasm' (the SIMD build where supported), 'wasm-simd', 'wasm-baseline' or 'js'; or attention: a
 * loaded attention API (loadAttention), whose layerNorm, multiheadAttentionFused and matmul compose it.
 */
export async function createGpt2({ config, parameters, tokenizer }, { backend = 'wasm', wasmBinary, attention } = {}) {
  if (attention) return wrap({ config, tokenizer }, createApiGpt2(attention, config, parameters), `api:${attention.backend}`);
  if (!BACKENDS.includes(backend)) throw new Error(`createGpt2: backend is ${JSON.stringify(backend)}; expected one of ${BACKENDS.join(', ')}`);
  if (backend === 'js') {
    const { gpt2ForwardReference } = await import('./forward-reference.js');
    const reference = {
      forward: (tokens, flags, intermediates) => gpt2ForwardReference(config, parameters, Array.from(tokens), { flags, intermediates }),
      dispose() {},
    };
    return wrap({ config, tokenizer }, reference, 'js');
  }
  const { loadWasmBackend } = await import('../core/backends/wasm.js');
  const build = backend === 'wasm' ? 'auto' : backend.slice('wasm-'.length);
  const wasm = await loadWasmBackend({ build, wasmBinary });
  return wrap({ config, tokenizer }, createWasmGpt2(wasm, config, parameters), wasm.name);
}

/** The model interface around one engine ({forward(tokens, flags, intermediates), dispose()}). */
function wrap({ config, tokenizer }, engineToWrap, backendName) {
  let engine = engineToWrap;
  const { vocabSize: V, heads: H } = config;
  const model = {
    tokenizer,
    config,
    backend: backendName,
    /** {backend, path: 'teaching' | 'fused' | 'weights', ms} of the last forward. */
    lastCall: null,
    forward(tokens, { intermediates = false, headsOff = [] } = {}) {
      checkTokens(tokens, config);
      const flags = headsOffFlags(headsOff, config);
      const T = tokens.length;
      const started = performance.now();
      if (!engine) throw new Error('gpt2.forward: the model was disposed');
      const finish = (out) => {
        const path = out.paths ? out.paths.join(', ') : backendName === 'js' ? 'teaching' : intermediates ? 'weights' : 'fused';
        model.lastCall = { backend: backendName, path, ms: performance.now() - started };
        return {
          logits: { data: out.logits, shape: [T, V] },
          ...(intermediates ? { attention: out.attention.map((data) => ({ data, shape: [H, T, T] })) } : {}),
        };
      };
      const out = engine.forward(tokens, flags, intermediates);
      return typeof out?.then === 'function' ? out.then(finish) : finish(out);
    },
    dispose() { engine?.dispose(); engine = null; },
  };
  return model;
}

