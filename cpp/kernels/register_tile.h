// The register tiles both the GEMM and the fused attention are built from: a kRows×8 block of the
// output held in 2·kRows vector accumulators while the shared dimension streams past.
#pragma once

#include <cstddef>

#include "simd.h"

namespace ap::kernels {

constexpr int kTileCols = 8;

// c (kRows×8, row stride ldc) = (or +=) packed_a (depth×kRows) · packed_b (depth×8).
// packed_a holds, for each p, a[0..kRows)[p]; packed_b holds, for each p, b[p][0..8).
template <int kRows>
inline void register_tile(int depth, const float* __restrict packed_a, const float* __restrict packed_b,
                          float* __restrict c, int ldc, bool accumulate) {
  using namespace simd;
  f32x4 acc[kRows][2];
  for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = zero();
  for (int p = 0; p < depth; ++p) {
    const f32x4 b0 = load(packed_b);
    const f32x4 b1 = load(packed_b + kLanes);
    for (int r = 0; r < kRows; ++r) {
      const f32x4 a_r = splat(packed_a[r]);
      acc[r][0] = mul_add(a_r, b0, acc[r][0]);
      acc[r][1] = mul_add(a_r, b1, acc[r][1]);
    }
    packed_a += kRows;
    packed_b += kTileCols;
  }
  for (int r = 0; r < kRows; ++r) {
    float* c_row = c + static_cast<size_t>(r) * ldc;
    if (accumulate) {
      acc[r][0] = add(acc[r][0], load(c_row));
      acc[r][1] = add(acc[r][1], load(c_row + kLanes));
    }
    store(c_row, acc[r][0]);
    store(c_row + kLanes, acc[r][1]);
  }
}

}  // namespace ap::kernels
