// Our contestants: the fast kernels of both WASM builds (cpp/kernels/ via cpp/paths/fast_attention.cpp),
// every numbered GEMM variant of the SIMD build, and the Eigen teaching path. The raw Emscripten
// modules are used (not loadAttention) so that both builds and the variants can run side by side.

import { installRelaxedTile } from '../../web/src/core/backends/relaxed-tile.js';

const GLUE = {
  simd: new URL('../../web/src/core/wasm/attention-simd.mjs', import.meta.url),
  baseline: new URL('../../web/src/core/wasm/attention-baseline.mjs', import.meta.url),
};
GLUE.relaxed = GLUE.simd;  // a second instance of the SIMD build, with the relaxed-SIMD tile installed

const cores = new Map();

/** In Node (the GPU runner, bench/dawn/) the glue cannot fetch a file: URL: the bytes are read and handed over. */
async function wasmBinaryInNode(build) {
  const url = new URL(GLUE[build].href.replace(/\.mjs$/, '.wasm'));
  if (url.protocol !== 'file:') return {};
  const fsModule = 'node:fs/promises';
  return { wasmBinary: await (await import(/* @vite-ignore */ fsModule)).readFile(url) };
}

/** The raw module of one build ('simd', 'baseline' or 'relaxed'), instantiated once. */
export function loadCore(build) {
  if (!cores.has(build)) {
    cores.set(build, (async () => {
      const { default: create } = await import(GLUE[build].href);
      const core = await create({ printErr: (text) => console.warn(`[wasm-${build}] ${text}`), ...await wasmBinaryInNode(build) });
      if (build === 'relaxed') {
        const reason = await installRelaxedTile(core);
        if (reason) throw new Error(reason);
      }
      return core;
    })());
  }
  return cores.get(build);
}

function unwrap(result) {
  if (result instanceof Error) throw result;
  return result.output.data;
}

const matrix = (data, rows, cols) => ({ data, shape: [rows, cols] });

/** The benchmark's weights as the API's split-form weights object. */
function splitWeights({ dModel: d, weights: w }) {
  return {
    query: matrix(w.query, d, d), key: matrix(w.key, d, d), value: matrix(w.value, d, d),
    queryBias: { data: w.queryBias, shape: [d] }, keyBias: { data: w.keyBias, shape: [d] },
    valueBias: { data: w.valueBias, shape: [d] }, outWeight: matrix(w.out, d, d), outBias: { data: w.outBias, shape: [d] },
  };
}

const sequence = ({ x, T, dModel }) => ({ data: x, shape: [1, T, dModel] });

/**
 * The causal layer through the teaching code (Eigen): the reference for every attention result. With the
 * intermediates on: `intermediates: false` would run the fused kernel (cpp/paths/fast_attention.h).
 */
export async function teachingAttention(inputs) {
  const core = await loadCore('simd');
  return unwrap(core.multiheadAttentionSplit(sequence(inputs), splitWeights(inputs), { heads: inputs.heads, causal: true }));
}

function gemmTask(build, variant) {
  return {
    supports: () => true,
    async prepare({ a, b, n }) {
      const core = await loadCore(build);
      const options = { variant: variant ?? core.fastPathInfo().defaultVariant };
      return { run: () => unwrap(core.matmulVariant(matrix(a, n, n), matrix(b, n, n), options)) };
    },
  };
}

function fastAttentionTask(build) {
  return {
    supports: () => true,
    async prepare(inputs) {
      const core = await loadCore(build);
      const x = sequence(inputs);
      const weights = splitWeights(inputs);
      const options = { heads: inputs.heads, causal: true, intermediates: false };
      return { run: () => unwrap(core.multiheadAttentionSplit(x, weights, options)) };
    },
  };
}

async function describeBuild(build) {
  const info = (await loadCore(build)).fastPathInfo();
  return `${info.vocabulary} vocabulary; GEMM variant ${info.defaultVariant} (${info.variants.find((v) => v.number === info.defaultVariant).name})`;
}

/** Our rows. GEMM variants 1, 2 and 4 show the way to the default (3). */
export function ourContestants() {
  const variantRow = (number, name, maxN) => ({
    name: `ours simd128 v${number} ${name}`,
    group: 'ours',
    setup: async () => { await loadCore('simd'); return `GEMM variant ${number} of cpp/kernels/gemm.h`; },
    tasks: {
      gemm: { ...gemmTask('simd', number), supports: (n) => n <= maxN || `variant ${number} is a stepping stone; timed up to n=${maxN}` },
    },
  });
  // One build's row: its GEMM and its fast attention, described by the build (and `note`).
  const buildRow = (name, build, note = '') => ({
    name,
    group: 'ours',
    setup: async () => `${await describeBuild(build)}${note}`,
    tasks: { gemm: gemmTask(build), attention: fastAttentionTask(build) },
  });
  return [
    buildRow('ours simd128', 'simd'),
    buildRow('ours relaxed-SIMD', 'relaxed', ': f32x4.relaxed_madd tile from relaxed_tile.wat'),
    variantRow(1, 'reference', 256),
    variantRow(2, 'rowwise', 1024),
    variantRow(4, 'packed 5x8', 1024),
    buildRow('ours scalar (baseline build)', 'baseline'),
    {
      name: 'ours Eigen teaching path',
      group: 'ours',
      setup: async () => { await loadCore('simd'); return 'multiheadAttentionSplit (Eigen, simd build), (B, H, T, T) intermediates'; },
      tasks: {
        attention: { supports: () => true, prepare: async (inputs) => ({ run: () => teachingAttention(inputs) }) },
      },
    },
  ];
}
