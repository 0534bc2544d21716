// Every API function through the webgpu backend against the WASM backend (the JS reference when the WASM
// build is missing), on random arguments built in the page from a few sizes.
import { normalizeArguments } from '/web/src/core/api.js';
import { loadWebGpuBackend } from '/web/src/core/backends/webgpu.js';
import { randomTensor } from './webgpu-harness.js';

let seedCounter = 100;
const tensor = (shape) => ({ data: randomTensor(shape.reduce((a, b) => a * b, 1), seedCounter++), shape });

/**
 * The call's arguments for `fn` at the given sizes. `bias` adds every bias, `out` the output projection.
 * @returns {any[]} the arguments as a caller writes them (the API normalises them)
 */
export function buildCall(fn, { B = 1, T = 5, C = 3, dOut = 4, heads = 1, Tq = T, Tk = T, bias = false, out = false, options = {} }) {
  const biases = (prefixes, size) => (bias ? Object.fromEntries(prefixes.map((p) => [`${p}Bias`, tensor([size])])) : {});
  const outProjection = out ? { outWeight: tensor([dOut, dOut]), ...(bias ? { outBias: tensor([dOut]) } : {}) } : {};
  const qkv = ['query', 'key', 'value'];
  switch (fn) {
    case 'softmax': {
      const { shape = [B, T, C], ...rest } = options;
      return [tensor(shape), rest];
    }
    case 'causalAverageMatmul': case 'causalAverageSoftmax': case 'causalAverageLoop': return [tensor([B, T, C])];
    case 'attentionWithoutWeights': return [tensor([B, T, C]), options];
    case 'matmul': {
      const N = dOut;
      return [tensor(B > 1 ? [B, T, C] : [T, C]), tensor(options.transposeB ? [N, C] : [C, N]), options];
    }
    case 'selfAttention': {
      const linear = options.layout === 'linear';
      const w = Object.fromEntries(qkv.map((n) => [n, tensor(linear ? [dOut, C] : [C, dOut])]));
      return [tensor([B, T, C]), { ...w, ...biases(qkv, dOut) }, options];
    }
    case 'multiheadAttentionStacked': {
      const dHead = dOut / heads;
      const headWeights = Array.from({ length: heads }, () => ({
        ...Object.fromEntries(qkv.map((n) => [n, tensor([C, dHead])])), ...biases(qkv, dHead) }));
      return [tensor([B, T, C]), { heads: headWeights, ...outProjection }, { ...options, heads }];
    }
    case 'multiheadAttentionSplit':
      return [tensor([B, T, C]), { ...Object.fromEntries(qkv.map((n) => [n, tensor([C, dOut])])), ...biases(qkv, dOut), ...outProjection },
        { ...options, heads }];
    case 'multiheadAttentionFused':
      return [tensor([B, T, C]), { inProjection: tensor([C, 3 * dOut]), ...(bias ? { inBias: tensor([3 * dOut]) } : {}), ...outProjection },
        { ...options, heads }];
    case 'crossAttention':
      return [tensor([B, Tq, C]), tensor([B, Tk, C + 2]), {
        query: tensor([C, dOut]), key: tensor([C + 2, dOut]), value: tensor([C + 2, dOut]), ...biases(qkv, dOut), ...outProjection,
      }, { ...options, heads }];
    default: throw new Error(`buildCall: no case for ${fn}`);
  }
}

let backendsPromise;
/** The webgpu backend and its oracles: WASM SIMD when built, and the JS reference. */
export function backends() {
  backendsPromise ??= (async () => {
    const gpu = await loadWebGpuBackend();
    const { createReferenceBackend } = await import('/web/src/core/reference/index.js');
    const reference = createReferenceBackend();
    let wasm = null;
    try {
      const { loadWasmBackend } = await import('/web/src/core/backends/wasm.js');
      wasm = await loadWasmBackend({ build: 'simd' });
    } catch {
      // not built: the reference is the oracle
    }
    return { gpu, wasm, reference };
  })();
  return backendsPromise;
}

/** |a − b| over two result objects; −∞ must meet −∞. Returns {oracle, keys: {name: maxAbs}, problems: [...]}. */
function compareResults(actual, expected) {
  const keys = {};
  const problems = [];
  for (const [name, value] of Object.entries(expected)) {
    const mine = actual[name];
    if (mine === undefined) { problems.push(`${name} missing`); continue; }
    if (typeof value === 'number' || typeof value === 'boolean') {
      if (mine !== value) problems.push(`${name}: ${mine} ≠ ${value}`);
      continue;
    }
    if (JSON.stringify(mine.shape) !== JSON.stringify(value.shape)) {
      problems.push(`${name}: shape ${JSON.stringify(mine.shape)} ≠ ${JSON.stringify(value.shape)}`);
      continue;
    }
    let worst = 0;
    for (let i = 0; i < value.data.length; i++) {
      const [a, b] = [mine.data[i], value.data[i]];
      if (a === b) continue;
      const difference = Math.abs(a - b);
      if (!(difference <= worst)) {
        worst = difference;
        if (Number.isNaN(difference) || !Number.isFinite(difference)) problems.push(`${name}[${i}]: ${a} vs ${b}`);
      }
    }
    keys[name] = worst;
  }
  for (const name of Object.keys(actual)) if (!(name in expected)) problems.push(`${name} is extra`);
  return { keys, problems };
}

/** Runs fn through both backends on the same normalised arguments and compares every result. */
export async function compareCall(fn, sizes) {
  const { gpu, wasm, reference } = await backends();
  let oracle = reference;
  if (wasm) {
    // A function the WASM binding lacks (or rejects as unbound) is checked against the reference.
    try { await wasm[fn](...normalizeArguments(fn, buildCall(fn, sizes)).args); oracle = wasm; } catch { /* reference */ }
  }
  const { args } = normalizeArguments(fn, buildCall(fn, sizes));
  const expected = await oracle[fn](...args);
  const actual = await gpu[fn](...args);
  return { oracle: oracle.name, ...compareResults(actual, expected) };
}
