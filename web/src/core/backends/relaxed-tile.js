// Installs the relaxed-SIMD register tiles (cpp/kernels/relaxed_tile.wat, assembled by the build into
// web/src/core/wasm/relaxed-tile.wasm) into a SIMD module of the core: the tile module imports the
// core's memory, and its functions replace the core's function-table entries for the slots of
// cpp/kernels/replaceable_tiles.h, so the packed GEMM (variants 5–7; 7, the 6×8 tile, then becomes the
// default `matmul` and the fast path's projections) and the fused attention's scores and weights·V call them.
// Engines without relaxed SIMD fail validation and keep the plain simd128 tile, as does any failure
// here: it is an optimisation, never a reason for the module not to load.
const TILE_URL = new URL('../wasm/relaxed-tile.wasm', import.meta.url);

/** Each slot of relaxedTileSlots() and the tile module's export that replaces it. */
const TILES = { tile: 'relaxed_tile_4x8', tile5: 'relaxed_tile_5x8', tile6: 'relaxed_tile_6x8' };

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
  } catch (error) {
    return `could not install the relaxed-SIMD tile (${error.message})`;
  }
  core.setRelaxedTileInstalled(true);
  return '';
}
