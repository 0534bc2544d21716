// The relaxed-SIMD tiles (cpp/kernels/relaxed_tile.wat) against the reference, for fast-path.test.js.
// Node 20 validates relaxed SIMD only behind --experimental-wasm-relaxed-simd, which a Vitest worker
// does not have, so the test runs this script in a child Node started with it:
//
//   node --experimental-wasm-relaxed-simd tests/unit/relaxed-tile-check.mjs
//
// It installs the tiles into the SIMD core and prints one JSON object: whether they were installed, and
// for every case the report of compareTensors ('' when within tolerance).
import { readFileSync } from 'node:fs';

import { installRelaxedTile } from '../../web/src/core/backends/relaxed-tile.js';
import { loadFixture } from './fixtures.js';
import { randomTensor } from './make-tensors.js';
import { compareTensors } from './tolerance.js';

const wasm = (name) => readFileSync(new URL(`../../web/src/core/wasm/${name}`, import.meta.url));
const glue = await import('../../web/src/core/wasm/attention-simd.mjs');
const core = await glue.default({ wasmBinary: wasm('attention-simd.wasm') });
const reason = await installRelaxedTile(core, wasm('relaxed-tile.wasm'));
const defaultVariant = core.fastPathInfo().defaultVariant;
const failures = {};

// Every check runs on both tile heights the GEMM and the fused attention can be built on (the installer
// picks the faster on this engine: relaxed_tile_rows; the attention then uses 6 or 4), 6 then 5, and the
// probe's choice is restored last.
for (const rows of [6, 5]) {
  core.setRelaxedTileRows(rows);
  const tag = ` (tile rows ${rows})`;

  // GEMM: (m, k, n) that are not multiples of any tile (4, 5 or 6 rows × 8 columns), k = 1, k = 3 (less
  // than one unrolled step of 4), k past one depth block (256) with every remainder mod 4, plain and Bᵀ.
  const GEMM_SHAPES = [[1, 1, 1], [7, 1, 13], [6, 3, 8], [13, 9, 11], [12, 4, 16], [37, 301, 29], [50, 258, 70], [31, 515, 17]];
  const info = core.fastPathInfo();
  for (const [m, k, n] of GEMM_SHAPES) {
    const a = randomTensor([m, k], m + k);
    for (const transposeB of [false, true]) {
      const b = randomTensor(transposeB ? [n, k] : [k, n], n + k + 1);
      const reference = core.matmulVariant(a, b, { transposeB, variant: 1 }).output;
      for (const { number } of info.variants) {
        const { report } = compareTensors(core.matmulVariant(a, b, { transposeB, variant: number }).output, reference, { atol: 1e-4, rtol: 1e-5 });
        if (report) failures[`gemm m=${m} k=${k} n=${n} transposeB=${transposeB} variant=${number}${tag}`] = report;
      }
      const { report } = compareTensors(core.matmul(a, b, { transposeB }).output, reference, { atol: 1e-4, rtol: 1e-5 });
      if (report) failures[`matmul m=${m} k=${k} n=${n} transposeB=${transposeB}${tag}`] = report;
    }
  }

  // The fused attention calls the 6×8 tile (with the 5×8 GEMM tile, the 4×8 one) for Sᵀ = K·Qᵀ and for
  // Oᵀ += Vᵀ·Pᵀ, and with 6 rows the 4×8 or 5×8 tile for the last panel of head columns: d_head 3, 11, 12 and
  // 13 (not multiples of 6: last panels of 4, 5, 6 and 4 rows), one and several key tiles of 192, a diagonal
  // inside a tile; d_head 64 as in the benchmark (last panel of 4).
  for (const [T, d, heads] of [[1, 6, 2], [70, 48, 4], [131, 26, 2], [200, 128, 2], [400, 22, 2]]) {
    const scale = 1 / Math.sqrt(d);
    const matrix = (seed) => {
      const weights = randomTensor([d, d], seed);
      for (let i = 0; i < weights.data.length; i++) weights.data[i] *= scale;
      return weights;
    };
    const x = randomTensor([1, T, d], T);
    const weights = { query: matrix(T + 1), key: matrix(T + 2), value: matrix(T + 3), outWeight: matrix(T + 4) };
    for (const causal of [true, false]) {
      const teaching = core.multiheadAttentionSplit(x, weights, { heads, causal }).output;
      const fast = core.multiheadAttentionSplit(x, weights, { heads, causal, intermediates: false }).output;
      const { report } = compareTensors(fast, teaching, { atol: 1e-5, rtol: 1e-5 });
      if (report) failures[`attention T=${T} d=${d} heads=${heads} causal=${causal}${tag}`] = report;
    }
  }

  // Every PyTorch fixture case of the multi-head functions on the fused kernel (intermediates: false), as
  // fast-path.test.js runs them on the plain tiles: the logits-near-1e4 cases included.
  for (const fn of ['multiheadAttentionSplit', 'multiheadAttentionFused', 'multiheadAttentionStacked', 'crossAttention']) {
    for (const testCase of loadFixture(fn).cases) {
      // the core takes rank-3 input only (the API adds B to unbatched cases; docs/api.md "Tensors")
      if (testCase.args[0].shape.length !== 3) continue;
      const args = [...testCase.args];
      args[args.length - 1] = { ...args[args.length - 1], intermediates: false };
      const tolerance = { atol: testCase.atol ?? 1e-5, rtol: testCase.rtol ?? 1e-5 };
      const { report } = compareTensors(core[fn](...args).output, testCase.expected.output, tolerance);
      if (report) failures[`${fn} fixture "${testCase.name}"${tag}`] = report;
    }
  }
}
core.setRelaxedTileRows(defaultVariant === 7 ? 6 : 5);

console.log(JSON.stringify({ reason, defaultVariant, failures }));
