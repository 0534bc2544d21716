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

// Four steps p..p+4 of a panel of kRows rows, each row a contiguous run over p, into the packed layout the
// tiles read (for each p, the kRows values side by side): rows 0–3 (and 4–7) by a 4×4 transpose, rows 4–5 of
// a 6-row panel as interleaved pairs, row 4 of a 5-row panel one value at a time.
template <int kRows>
inline void pack_four_steps(const float* const* row, int p, float* packed) {
  using namespace simd;
  static_assert(kRows >= kLanes && kRows <= 2 * kLanes && kRows != 7, "panels of 4, 5, 6 or 8 rows");
  f32x4 r0 = load(row[0] + p), r1 = load(row[1] + p), r2 = load(row[2] + p), r3 = load(row[3] + p);
  transpose(r0, r1, r2, r3);
  store(packed, r0);
  store(packed + kRows, r1);
  store(packed + 2 * kRows, r2);
  store(packed + 3 * kRows, r3);
  if constexpr (kRows == 5) {
    for (int q = 0; q < kLanes; ++q) packed[q * kRows + 4] = row[4][p + q];
  } else if constexpr (kRows == 6) {
    const f32x4 r4 = load(row[4] + p), r5 = load(row[5] + p);
    const f32x4 low = interleave_low(r4, r5), high = interleave_high(r4, r5);
    store_low_pair(packed + 4, low);
    store_high_pair(packed + kRows + 4, low);
    store_low_pair(packed + 2 * kRows + 4, high);
    store_high_pair(packed + 3 * kRows + 4, high);
  } else if constexpr (kRows == 8) {
    f32x4 r4 = load(row[4] + p), r5 = load(row[5] + p), r6 = load(row[6] + p), r7 = load(row[7] + p);
    transpose(r4, r5, r6, r7);
    store(packed + 4, r4);
    store(packed + kRows + 4, r5);
    store(packed + 2 * kRows + 4, r6);
    store(packed + 3 * kRows + 4, r7);
  }
}

// A whole panel of kRows rows over `depth` steps: packed[p·kRows + r] = row[r][p].
template <int kRows>
inline void pack_panel(const float* const* row, int depth, float* packed) {
  int p = 0;
  for (; p + simd::kLanes <= depth; p += simd::kLanes, packed += simd::kLanes * kRows) pack_four_steps<kRows>(row, p, packed);
  for (; p < depth; ++p, packed += kRows)
    for (int r = 0; r < kRows; ++r) packed[r] = row[r][p];
}

}  // namespace ap::kernels
