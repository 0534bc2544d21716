// The WASM module's memory around a refused call and around a large successful one (docs/api.md "Memory").
//   node bench/memory.mjs refused [tree]   two calls the module must refuse, on both builds: the issue's
//       T=100000, d=4096, 16-head multiheadAttentionSplit given to the WASM backend directly, and through the
//       API a call whose inputs (1.4 GB) and fused workspace (1.9 GB) each fit in 2 GiB but not together.
//       Prints the seconds to the Error and the module's memory before and after (through the API, where the
//       tree has no attention.memory, the process RSS stands in). `tree`: another checkout to measure (main).
//   node bench/memory.mjs growth           causal multiheadAttentionSplit, B=1, 8 heads, d=512, with and
//       without intermediates: memory before, after the call and after attention.compact() (wasm-simd).
// Allocates up to ~2 GB of JS arrays; run it alone.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [mode = 'refused', tree = '.'] = process.argv.slice(2);
const root = pathToFileURL(`${resolve(tree)}/`).href;
const { loadAttention } = await import(`${root}web/src/core/index.js`);
const { loadWasmBackend } = await import(`${root}web/src/core/backends/wasm.js`);
const MiB = 2 ** 20;
const rssMiB = () => Math.round(process.memoryUsage().rss / MiB);
const matrix = (rows, cols) => ({ data: new Float32Array(rows * cols), shape: [rows, cols] });

function timed(call) {
  const started = performance.now();
  let outcome = 'computed';
  try {
    call();
  } catch (error) {
    outcome = error.message;
  }
  return { seconds: +((performance.now() - started) / 1000).toFixed(3), outcome };
}

if (mode === 'refused') {
  for (const build of ['simd', 'baseline']) {
    const backend = await loadWasmBackend({ build });
    const T = 100_000, d = 4096;
    const before = backend.heapStats().heapBytes / MiB;
    const direct = timed(() => backend.multiheadAttentionSplit({ data: new Float32Array(T * d), shape: [1, T, d] },
      { query: matrix(d, d), key: matrix(d, d), value: matrix(d, d), outWeight: matrix(d, d) }, { heads: 16, causal: true }));
    console.log(JSON.stringify({ build, via: 'backend', T, d, heads: 16, ...direct, beforeMiB: before, afterMiB: backend.heapStats().heapBytes / MiB }));
  }
  for (const build of ['simd', 'baseline']) {
    const attention = await loadAttention({ backend: `wasm-${build}`, threads: 1 });
    const T = 90_000, dIn = 3840, dOut = 1024;
    const before = { memoryMiB: attention.memory ? attention.memory.bytes / MiB : null, rssMiB: rssMiB() };
    const viaApi = timed(() => attention.multiheadAttentionSplit({ data: new Float32Array(T * dIn), shape: [1, T, dIn] },
      { query: matrix(dIn, dOut), key: matrix(dIn, dOut), value: matrix(dIn, dOut), outWeight: matrix(dOut, dOut) }, { heads: 16, causal: true }));
    const after = { memoryMiB: attention.memory ? attention.memory.bytes / MiB : null, rssMiB: rssMiB() };
    console.log(JSON.stringify({ build, via: 'api', T, dIn, dOut, heads: 16, ...viaApi, before, after }));
  }
} else if (mode === 'growth') {
  const fill = (length, seed) => {
    const data = new Float32Array(length);
    let state = seed;
    for (let i = 0; i < length; i++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      data[i] = (state / 2 ** 32 - 0.5) / 8;
    }
    return data;
  };
  for (const [T, intermediates] of [[4096, false], [4096, true], [2048, true], [1024, true]]) {
    const d = 512;
    const attention = await loadAttention({ backend: 'wasm-simd', threads: 1 });
    const weight = (seed) => ({ data: fill(d * d, seed), shape: [d, d] });
    const x = { data: fill(T * d, 1), shape: [1, T, d] };
    const before = attention.memory.bytes / MiB;
    const call = timed(() => attention.multiheadAttentionSplit(x, { query: weight(2), key: weight(3), value: weight(4), outWeight: weight(5) },
      { heads: 8, causal: true, intermediates }));
    const after = attention.memory.bytes / MiB;
    await attention.compact();
    console.log(JSON.stringify({ T, d, heads: 8, intermediates, ...call, beforeMiB: before, afterMiB: after, afterCompactMiB: attention.memory.bytes / MiB, peakMiB: attention.memory.peak / MiB }));
  }
} else {
  throw new Error(`bench/memory.mjs: mode=${JSON.stringify(mode)}; expected 'refused' or 'growth'`);
}
