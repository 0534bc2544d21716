// Installs the relaxed-SIMD register tiles (cpp/kernels/relaxed_tile.wat, assembled by the build into
// web/src/core/wasm/relaxed-tile.wasm) into a SIMD module of the core: the tile module imports the
// core's memory, and its functions replace the core's function-table entries for the slots of
// cpp/kernels/replaceable_tiles.h, so the packed GEMM (variants 5–7; 7, the 6×8 tile, or 6, the 5×8 one,
// then becomes the default `matmul` and the fast path's projections) and the fused attention's scores and
// weights·V call them. Which of the two is measured here, on the engine at hand (fasterTileRows).
// Engines without relaxed SIMD fail validation and keep the plain simd128 tile, as does any failure
// here: it is an optimisation, never a reason for the module not to load.
const TILE_URL = new URL('../wasm/relaxed-tile.wasm', import.meta.url);

/** Each slot of relaxedTileSlots() and the tile module's export that replaces it. */
const TILES = { tile: 'relaxed_tile_4x8', tile5: 'relaxed_tile_5x8', tile6: 'relaxed_tile_6x8' };

// The probe: both tiles on the same block of 30 rows × 8 columns × depth 256 (6 calls of the 5×8 tile, 5 of
// the 6×8), in a memory of their own (A at 0, 30 KiB; B at 32 KiB, 8 KiB; C at 48 KiB), alternately: a
// round each to start the optimising tier's compilation, a pause for it to land (in the baseline tier the
// 6×8 tile is the faster everywhere, so timing that would choose wrong), then PROBE_ROUNDS each. A round of
// PROBE_BLOCKS blocks is about a millisecond at the tiles' speed, well above a browser's coarsened clock.
const PROBE_DEPTH = 256;
const PROBE_ROWS = 30;
const PROBE_BLOCKS = 500;
const PROBE_ROUNDS = 4;
const PROBE_PAUSE_MS = 10;

/**
 * Rows of the faster GEMM tile on this engine, 6 or 5 (replaceable_tiles.h relaxed_tile_rows): V8 11
 * (Node 20) hoists every load of the 6×8 tile's unrolled loop above its multiply-adds and spills, so there
 * the rolled 5×8 tile is much the faster; in Chromium's V8 the 6×8 one is, by about a loaded machine's
 * noise. Each tile's best round counts, and the 6×8 tile keeps its place unless the 5×8 one is faster by a
 * quarter: a spill. The choice changes the speed only: both sum in the same order.
 */
async function fasterTileRows(bytes) {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const { instance } = await WebAssembly.instantiate(bytes, { env: { memory } });
  new Float32Array(memory.buffer, 0, 12 * 1024).fill(0.5);
  const tiles = { 5: instance.exports.relaxed_tile_5x8, 6: instance.exports.relaxed_tile_6x8 };
  const round = (rows) => {
    const tile = tiles[rows];
    const started = performance.now();
    for (let block = 0; block < PROBE_BLOCKS; block++) {
      for (let row = 0; row < PROBE_ROWS; row += rows) tile(PROBE_DEPTH, row * PROBE_DEPTH * 4, 32 * 1024, 48 * 1024, 8, 0);
    }
    return performance.now() - started;
  };
  round(5);
  round(6);
  await new Promise((resolve) => setTimeout(resolve, PROBE_PAUSE_MS));
  const best = { 5: Infinity, 6: Infinity };
  for (let r = 0; r < PROBE_ROUNDS; r++) {
    for (const rows of [5, 6]) best[rows] = Math.min(best[rows], round(rows));
  }
  return best[5] * 1.25 < best[6] ? 5 : 6;
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.arrayBuffer();
}

/**
 * @param {object} core an instantiated SIMD module (attention-simd.mjs)
 * @param {ArrayBuffer|Uint8Array|URL} [source] the tile module's bytes, or where to fetch them
 * @returns {Promise<string>} '' when installed, else why not
 */
export async function installRelaxedTile(core, source = TILE_URL) {
  let bytes;
  try {
    bytes = source instanceof URL ? await fetchBytes(source) : source;
  } catch (error) {
    return `could not load ${source.pathname} (${error.message}); build it with scripts/build.sh`;
  }
  if (!WebAssembly.validate(bytes)) return 'this engine does not support relaxed SIMD (the tile module does not validate)';
  // The Emscripten glue keeps the instance's exports (names minified) on core.asm.
  const exports = Object.values(core.asm ?? {});
  const memory = exports.find((value) => value instanceof WebAssembly.Memory);
  const table = exports.find((value) => value instanceof WebAssembly.Table);
  if (!memory || !table) return 'the core module exports no memory or function table';
  try {
    const { instance } = await WebAssembly.instantiate(bytes, { env: { memory } });
    const slots = core.relaxedTileSlots();
    // Every pair is checked before any entry is replaced: a core and a tile module from different
    // builds leave the plain tiles in place, never half of each.
    const missing = Object.entries(TILES).filter(([slot, name]) => typeof slots[slot] !== 'number' || !instance.exports[name]);
    if (missing.length > 0) return `the core and the tile module do not match (${missing.map(([slot]) => slot).join(', ')}); rebuild with scripts/build.sh`;
    for (const [slot, name] of Object.entries(TILES)) table.set(slots[slot], instance.exports[name]);
    core.setRelaxedTileRows(await fasterTileRows(bytes));
  } catch (error) {
    return `could not install the relaxed-SIMD tile (${error.message})`;
  }
  core.setRelaxedTileInstalled(true);
  return '';
}
