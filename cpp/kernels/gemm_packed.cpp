// Variants 3 and 4: the packed, register-blocked GEMM (the Goto/BLIS loop nest).
//
//   for each column block of B (kColBlock wide):
//     for each depth block (kDepthBlock deep):   pack B's block into 8-column panels   (stays in L2)
//       for each row block of A (kRowBlock):     pack A's block into kRows-row panels   (stays in L2)
//         for each panel pair: one kRows×8 register tile of C, accumulated over the depth block
//
// A packed panel holds, for each p, the kRows values a[i..i+kRows)[p]; a packed B panel holds, for
// each p, the 8 values b[p][j..j+8). The micro-kernel then reads both strictly sequentially. Panels
// are zero-padded at the edges, so edge tiles run the same kernel into a scratch tile and only the
// valid part is copied out.
#include <algorithm>
#include <cstddef>
#include <memory>

#include "gemm.h"
#include "register_tile.h"
#include "replaceable_tiles.h"
#include "simd.h"

namespace ap::kernels {

namespace {

using namespace simd;

constexpr int kDepthBlock = 256;
constexpr int kRowBlock = 72;
constexpr int kColBlock = 2048;

// A's block rows [row0, row0+rows) × depth [p0, p0+depth) → panels of kRows rows, zero-padded.
// With transpose_a, row i of op(A) is column i of the stored A: each p of a panel is a run of A's row p.
template <int kRows>
void pack_a(const float* a, const MatmulShape& s, int row0, int rows, int p0, int depth, float* packed) {
  static_assert(kRows >= kLanes && kRows <= 6, "the packing handles panels of 4 to 6 rows");
  const int lda = s.lda;
  for (int i0 = 0; i0 < rows; i0 += kRows) {
    const int valid = std::min(kRows, rows - i0);
    if (s.transpose_a) {
      for (int p = 0; p < depth; ++p) {
        const float* run = a + static_cast<size_t>(p0 + p) * lda + row0 + i0;
        if (valid == kRows) {
          store(packed, load(run));
          for (int r = kLanes; r < kRows; ++r) packed[r] = run[r];
        } else {
          for (int r = 0; r < kRows; ++r) packed[r] = r < valid ? run[r] : 0.0f;
        }
        packed += kRows;
      }
      continue;
    }
    if (valid == kRows) {
      // a whole panel: kRows rows read side by side (register_tile.h)
      const float* row[kRows];
      for (int r = 0; r < kRows; ++r) row[r] = a + static_cast<size_t>(row0 + i0 + r) * lda + p0;
      pack_panel<kRows>(row, depth, packed);
      packed += static_cast<size_t>(depth) * kRows;
      continue;
    }
    for (int p = 0; p < depth; ++p) {
      for (int r = 0; r < kRows; ++r) {
        *packed++ = r < valid ? a[static_cast<size_t>(row0 + i0 + r) * lda + p0 + p] : 0.0f;
      }
    }
  }
}

// B's block depth [p0, p0+depth) × columns [col0, col0+cols) → panels of 8 columns, zero-padded.
void pack_b(const float* b, const MatmulShape& s, int p0, int depth, int col0, int cols, float* packed) {
  for (int j0 = 0; j0 < cols; j0 += kTileCols) {
    const int valid = std::min(kTileCols, cols - j0);
    if (!s.transpose_b && valid == kTileCols) {
      for (int p = 0; p < depth; ++p) {
        const float* row = b + static_cast<size_t>(p0 + p) * s.ldb + col0 + j0;
        store(packed, load(row));
        store(packed + kLanes, load(row + kLanes));
        packed += kTileCols;
      }
      continue;
    }
    if (s.transpose_b && valid == kTileCols) {
      // Bᵀ stored: the panel's 8 columns are 8 stored rows, read side by side
      const float* column[kTileCols];
      for (int j = 0; j < kTileCols; ++j) column[j] = b + static_cast<size_t>(col0 + j0 + j) * s.ldb + p0;
      pack_panel<kTileCols>(column, depth, packed);
      packed += static_cast<size_t>(depth) * kTileCols;
      continue;
    }
    for (int p = 0; p < depth; ++p) {
      for (int j = 0; j < kTileCols; ++j) {
        const int col = col0 + j0 + j;
        float value = 0.0f;
        if (j < valid) {
          value = s.transpose_b ? b[static_cast<size_t>(col) * s.ldb + p0 + p] : b[static_cast<size_t>(p0 + p) * s.ldb + col];
        }
        *packed++ = value;
      }
    }
  }
}

// The packed panels' memory, kept from call to call (per thread): the trainer's and the attention backward's
// many small products (T = 32: over a thousand a step) would otherwise each pay a malloc and a zero-fill, which
// cost about as much as their arithmetic. The packing writes every element, padding included, so nothing is
// cleared. A call needing more than kKeptFloats gets memory of its own (`fresh`, freed when it returns), so one
// large product does not leave megabytes held.
constexpr int kPackedA = 0, kPackedB = 1;
constexpr size_t kKeptFloats = size_t{64} << 10;

float* packing_space(int which, size_t floats, std::unique_ptr<float[]>& fresh) {
  if (floats > kKeptFloats) {
    fresh.reset(new float[floats]);
    return fresh.get();
  }
  thread_local std::unique_ptr<float[]> kept[2];
  thread_local size_t kept_floats[2] = {0, 0};
  if (kept_floats[which] < floats) {
    kept[which].reset(new float[floats]);
    kept_floats[which] = floats;
  }
  return kept[which].get();
}

// The blocking of B for k and n: each (column block, depth block) is one run of packed panels, in loop order.
int column_block(int n) { return std::min(kColBlock, (n + kTileCols - 1) / kTileCols * kTileCols); }
int depth_block_of(int k) { return std::min(kDepthBlock, k); }

// `tile(depth, packed_a, packed_b, c, ldc, accumulate)` computes one kRows×8 register tile. With `prepacked`
// (pack_matrix's panels of B), B's blocks are read from it instead of being packed here.
template <int kRows, typename Tile>
void matmul_packed(const float* a, const float* b, float* c, const MatmulShape& s, Tile tile, const float* prepacked = nullptr) {
  if (s.k == 0) {
    if (s.accumulate) return;  // C += an empty sum
    for (int i = 0; i < s.m; ++i) std::fill(c + static_cast<size_t>(i) * s.ldc, c + static_cast<size_t>(i) * s.ldc + s.n, 0.0f);
    return;
  }
  const int col_block = column_block(s.n);
  const int row_block = std::min(kRowBlock / kRows * kRows, (s.m + kRows - 1) / kRows * kRows);
  const int depth_block = depth_block_of(s.k);
  std::unique_ptr<float[]> fresh_a, fresh_b;
  float* const own_b = prepacked ? nullptr : packing_space(kPackedB, static_cast<size_t>(depth_block) * col_block, fresh_b);
  const float* packed_b = own_b;
  float* const packed_a = packing_space(kPackedA, static_cast<size_t>(depth_block) * row_block, fresh_a);
  alignas(16) float scratch[kRows * kTileCols];

  for (int col0 = 0; col0 < s.n; col0 += col_block) {
    const int cols = std::min(col_block, s.n - col0);
    for (int p0 = 0; p0 < s.k; p0 += depth_block) {
      const int depth = std::min(depth_block, s.k - p0);
      const bool accumulate = s.accumulate || p0 > 0;  // the first depth block writes C (unless asked to add), the others add
      if (prepacked) {
        packed_b = prepacked;
        prepacked += static_cast<size_t>(depth) * ((cols + kTileCols - 1) / kTileCols * kTileCols);
      } else {
        pack_b(b, s, p0, depth, col0, cols, own_b);
      }
      for (int row0 = 0; row0 < s.m; row0 += row_block) {
        const int rows = std::min(row_block, s.m - row0);
        pack_a<kRows>(a, s, row0, rows, p0, depth, packed_a);
        for (int j0 = 0; j0 < cols; j0 += kTileCols) {
          const float* panel_b = packed_b + static_cast<size_t>(j0) * depth;
          const int valid_cols = std::min(kTileCols, cols - j0);
          for (int i0 = 0; i0 < rows; i0 += kRows) {
            const float* panel_a = packed_a + static_cast<size_t>(i0) * depth;
            const int valid_rows = std::min(kRows, rows - i0);
            float* c_tile = c + static_cast<size_t>(row0 + i0) * s.ldc + col0 + j0;
            if (valid_rows == kRows && valid_cols == kTileCols) {
              tile(depth, panel_a, panel_b, c_tile, s.ldc, accumulate);
              continue;
            }
            // Edge tile: compute the whole padded tile, keep the valid part (the leftover loop).
            tile(depth, panel_a, panel_b, scratch, kTileCols, false);
            for (int r = 0; r < valid_rows; ++r) {
              for (int j = 0; j < valid_cols; ++j) {
                float& out = c_tile[static_cast<size_t>(r) * s.ldc + j];
                out = accumulate ? out + scratch[r * kTileCols + j] : scratch[r * kTileCols + j];
              }
            }
          }
        }
      }
    }
  }
}

// The tile inlined into the loop nest (a lambda, so its type names it and the compiler inlines it).
template <int kRows>
constexpr auto inline_tile = [](int depth, const float* packed_a, const float* packed_b, float* c, int ldc, bool accumulate) {
  register_tile<kRows>(depth, packed_a, packed_b, c, ldc, accumulate);
};

}  // namespace

PackedMatrix pack_matrix(const float* b, int k, int n, bool transpose_b) {
  PackedMatrix packed{k, n, {}};
  const MatmulShape s = MatmulShape::dense(0, k, n, transpose_b);
  const int col_block = column_block(n), depth_block = depth_block_of(k);
  packed.panels.resize(static_cast<size_t>(k) * ((n + kTileCols - 1) / kTileCols * kTileCols));
  float* out = packed.panels.data();
  for (int col0 = 0; col0 < n; col0 += col_block) {
    const int cols = std::min(col_block, n - col0);
    for (int p0 = 0; p0 < k; p0 += depth_block) {
      const int depth = std::min(depth_block, k - p0);
      pack_b(b, s, p0, depth, col0, cols, out);
      out += static_cast<size_t>(depth) * ((cols + kTileCols - 1) / kTileCols * kTileCols);
    }
  }
  return packed;
}

void matmul_prepacked(const float* a, const PackedMatrix& b, float* c, const MatmulShape& s) {
  if (!relaxed_tile_installed()) {
    matmul_packed<4>(a, nullptr, c, s, inline_tile<4>, b.panels.data());
    return;
  }
  const bool six = relaxed_tile_rows() == 6;
  const RegisterTileFunction tile = six ? replaceable_register_tile6() : replaceable_register_tile5();
  const auto call = [tile](int depth, const float* pa, const float* pb, float* ct, int ldc, bool accumulate) {
    tile(depth, pa, pb, ct, ldc, accumulate ? 1 : 0);
  };
  if (six) {
    matmul_packed<6>(a, nullptr, c, s, call, b.panels.data());
  } else {
    matmul_packed<5>(a, nullptr, c, s, call, b.panels.data());
  }
}

void matmul_packed_4x8(const float* a, const float* b, float* c, const MatmulShape& s) { matmul_packed<4>(a, b, c, s, inline_tile<4>); }
void matmul_packed_5x8(const float* a, const float* b, float* c, const MatmulShape& s) { matmul_packed<5>(a, b, c, s, inline_tile<5>); }

void matmul_packed_4x8_replaceable(const float* a, const float* b, float* c, const MatmulShape& s) {
  const RegisterTileFunction tile = replaceable_register_tile();
  matmul_packed<4>(a, b, c, s, [tile](int depth, const float* pa, const float* pb, float* ct, int ldc, bool accumulate) {
    tile(depth, pa, pb, ct, ldc, accumulate ? 1 : 0);
  });
}

void matmul_packed_5x8_replaceable(const float* a, const float* b, float* c, const MatmulShape& s) {
  const RegisterTileFunction tile = replaceable_register_tile5();
  matmul_packed<5>(a, b, c, s, [tile](int depth, const float* pa, const float* pb, float* ct, int ldc, bool accumulate) {
    tile(depth, pa, pb, ct, ldc, accumulate ? 1 : 0);
  });
}

void matmul_packed_6x8_replaceable(const float* a, const float* b, float* c, const MatmulShape& s) {
  const RegisterTileFunction tile = replaceable_register_tile6();
  matmul_packed<6>(a, b, c, s, [tile](int depth, const float* pa, const float* pb, float* ct, int ldc, bool accumulate) {
    tile(depth, pa, pb, ct, ldc, accumulate ? 1 : 0);
  });
}

}  // namespace ap::kernels
