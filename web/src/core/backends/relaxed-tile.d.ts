// Types of web/src/core/backends/relaxed-tile.js.

/** What the installer needs of an instantiated SIMD core module (attention-simd.mjs). */
export interface RelaxedTileHost {
  /** The instance's exports, as the Emscripten glue keeps them (a Memory and a Table among them). */
  asm: Record<string, unknown>;
  /** The function-table indices of cpp/kernels/replaceable_tiles.h's slots. */
  relaxedTileSlots(): { tile: number; tile5: number; tile6: number };
  /** Tells the kernels the slots now hold the relaxed-SIMD tiles. */
  setRelaxedTileInstalled(installed: boolean): void;
}

/**
 * Puts the relaxed-SIMD register tiles (web/src/core/wasm/relaxed-tile.wasm) into the core's function
 * table. Resolves to '' when installed, else to why not (the engine lacks relaxed SIMD, the file is
 * missing, …); the core then keeps its plain simd128 tiles. Never rejects.
 * @param source the tile module's bytes, or the URL to fetch them from (default: beside the core)
 */
export function installRelaxedTile(core: RelaxedTileHost, source?: ArrayBuffer | Uint8Array | URL): Promise<string>;
