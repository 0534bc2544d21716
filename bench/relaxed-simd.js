// Installs the relaxed-SIMD register tile (cpp/kernels/relaxed_tile.wat, assembled by the build into
// web/src/core/wasm/relaxed-tile.wasm) into a SIMD module of the core: the tile module imports the
// core's memory, and its function replaces the core's table entry for relaxed_tile_slot, so the packed
// GEMM (variant 5, then the default) calls it. Engines without relaxed SIMD fail validation and keep
// the plain simd128 tile.
const TILE = new URL('../web/src/core/wasm/relaxed-tile.wasm', import.meta.url);

/** Returns '' when installed, else why not. */
export async function installRelaxedTile(core, url = TILE) {
  let bytes;
  try {
    const response = await fetch(url);
    if (!response.ok) return `could not fetch ${url.pathname} (HTTP ${response.status}); build it with scripts/build.sh`;
    bytes = await response.arrayBuffer();
  } catch (error) {
    return `could not fetch ${url.pathname} (${error.message})`;
  }
  if (!WebAssembly.validate(bytes)) return 'this engine does not support relaxed SIMD (the tile module does not validate)';
  // The Emscripten glue keeps the instance's exports (names minified) on core.asm.
  const exports = Object.values(core.asm ?? {});
  const memory = exports.find((value) => value instanceof WebAssembly.Memory);
  const table = exports.find((value) => value instanceof WebAssembly.Table);
  if (!memory || !table) return 'the core module exports no memory or function table';
  const { instance } = await WebAssembly.instantiate(bytes, { env: { memory } });
  table.set(core.relaxedTileSlot(), instance.exports.relaxed_tile_4x8);
  core.setRelaxedTileInstalled(true);
  return '';
}
