#include "replaceable_tiles.h"

#include "register_tile.h"

namespace ap::kernels {

namespace {
RegisterTileFunction volatile register_tile_pointer = &relaxed_tile_slot;
RegisterTileFunction volatile register_tile5_pointer = &relaxed_tile5_slot;
RegisterTileFunction volatile register_tile6_pointer = &relaxed_tile6_slot;
bool installed = false;
int rows = 6;
}  // namespace

void relaxed_tile_slot(int depth, const float* packed_a, const float* packed_b, float* c, int ldc, int accumulate) {
  register_tile<4>(depth, packed_a, packed_b, c, ldc, accumulate != 0);
}

void relaxed_tile5_slot(int depth, const float* packed_a, const float* packed_b, float* c, int ldc, int accumulate) {
  register_tile<5>(depth, packed_a, packed_b, c, ldc, accumulate != 0);
}

void relaxed_tile6_slot(int depth, const float* packed_a, const float* packed_b, float* c, int ldc, int accumulate) {
  register_tile<6>(depth, packed_a, packed_b, c, ldc, accumulate != 0);
}

std::uintptr_t relaxed_tile_slot_address() { return reinterpret_cast<std::uintptr_t>(&relaxed_tile_slot); }
std::uintptr_t relaxed_tile5_slot_address() { return reinterpret_cast<std::uintptr_t>(&relaxed_tile5_slot); }
std::uintptr_t relaxed_tile6_slot_address() { return reinterpret_cast<std::uintptr_t>(&relaxed_tile6_slot); }
void set_relaxed_tile_installed(bool value) { installed = value; }
bool relaxed_tile_installed() { return installed; }
void set_relaxed_tile_rows(int value) { rows = value == 5 ? 5 : 6; }
int relaxed_tile_rows() { return rows; }
int relaxed_attention_rows() { return rows == 6 ? 6 : 4; }
RegisterTileFunction replaceable_register_tile() { return register_tile_pointer; }
RegisterTileFunction replaceable_register_tile5() { return register_tile5_pointer; }
RegisterTileFunction replaceable_register_tile6() { return register_tile6_pointer; }

}  // namespace ap::kernels
