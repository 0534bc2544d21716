// The register tiles JS may replace with relaxed-SIMD ones (relaxed_tile.wat): in WASM a function pointer
// is an index into the module's function table, and the page puts the tile module's functions at the
// indices of these three slots (web/src/core/backends/relaxed-tile.js). Until then the slots run the plain
// tiles of register_tile.h, so every build (native, baseline, SIMD without relaxed SIMD) is correct.
#pragma once

#include <cstdint>

namespace ap::kernels {

// c (4×8, row stride ldc) = (or += when accumulate ≠ 0) packed_a (depth×4) · packed_b (depth×8).
using RegisterTileFunction = void (*)(int depth, const float* packed_a, const float* packed_b, float* c, int ldc,
                                      int accumulate);

void relaxed_tile_slot(int depth, const float* packed_a, const float* packed_b, float* c, int ldc, int accumulate);
// The same contract with 5 rows (packed_a: depth×5, c: 5×8) and with 6 rows (packed_a: depth×6, c: 6×8).
void relaxed_tile5_slot(int depth, const float* packed_a, const float* packed_b, float* c, int ldc, int accumulate);
void relaxed_tile6_slot(int depth, const float* packed_a, const float* packed_b, float* c, int ldc, int accumulate);

// The slots' addresses: their function-table indices in WASM.
std::uintptr_t relaxed_tile_slot_address();
std::uintptr_t relaxed_tile5_slot_address();
std::uintptr_t relaxed_tile6_slot_address();

// Set by JS after replacing the entries: matmul then runs variant 7 (or 6, see below) and the fused
// attention calls the slots for its scores and its weights·V (both on the tiles above, transposed).
void set_relaxed_tile_installed(bool installed);
bool relaxed_tile_installed();

// Which installed tile the GEMM is built on: 6 (the 6×8 tile, variant 7; the default) or 5 (the 5×8 tile,
// variant 6); the fused attention then uses the 6×8 tile or the 4×8 one (its key tiles are whole panels of
// 4 and of 6). Engines differ: where the compiler hoists the loads of the 6×8 tile's unrolled loop above its
// multiply-adds (V8 11, Node 20), it spills and runs well below the speed of the rolled 5×8 one;
// elsewhere (V8 in Chromium 156) the 6×8 tile is the faster. JS measures both on the engine at hand
// (relaxed-tile.js) and sets this. Every height sums in the same order, so results do not depend on it.
void set_relaxed_tile_rows(int rows);
int relaxed_tile_rows();
// The fused attention's tile height with the relaxed tiles: 6 with the 6×8 GEMM tile, else 4.
int relaxed_attention_rows();

// Pointers to the slots, read through volatile globals so the compiler never calls the plain tiles
// directly in their place.
RegisterTileFunction replaceable_register_tile();
RegisterTileFunction replaceable_register_tile5();
RegisterTileFunction replaceable_register_tile6();

}  // namespace ap::kernels
