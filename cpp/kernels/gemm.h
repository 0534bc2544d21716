// Matrix multiplication for the fast path: C = op(A)·op(B), op = identity or transpose, float32, row-major.
//
//   a: (m, k)            row stride lda (≥ k)    — or, with transpose_a, (k, m) with lda ≥ m
//   b: (k, n)            row stride ldb (≥ n)    — or, with transpose_b, (n, k) with ldb ≥ k
//   c: (m, n)            row stride ldc (≥ n), overwritten — or, with accumulate, added to (C += op(A)·op(B))
//
// transpose_a serves the products a backward needs, dW = dYᵀ·X and dV = Pᵀ·dO, without an explicit
// transpose: the packed variants read Aᵀ's panels as contiguous runs of A's rows.
//
// The reference (variant 1) is the obvious triple loop; it is what the others are checked against
// and what they fall back to. Callers normally use `matmul`, which runs the best variant.
#pragma once

#include <string>
#include <vector>

#include "replaceable_tiles.h"

namespace ap::kernels {

struct MatmulShape {
  int m = 0, k = 0, n = 0;
  int lda = 0, ldb = 0, ldc = 0;
  bool transpose_b = false;
  bool transpose_a = false;
  bool accumulate = false;

  // Dense shape: strides equal to the row lengths.
  static MatmulShape dense(int m, int k, int n, bool transpose_b = false) {
    return {m, k, n, k, transpose_b ? k : n, n, transpose_b};
  }
};

using MatmulFunction = void (*)(const float* a, const float* b, float* c, const MatmulShape& shape);

// 1. The reference: c[i][j] = Σ_p a[i][p]·b[p][j], one dot product per output.
void matmul_reference(const float* a, const float* b, float* c, const MatmulShape& shape);
// 2. Row broadcast: c[i, :] += a[i][p]·b[p, :], vectorised along the row of B; no packing.
void matmul_rowwise(const float* a, const float* b, float* c, const MatmulShape& shape);
// 3. Packed panels of A and B, cache blocking, 4×8 register tiles.
void matmul_packed_4x8(const float* a, const float* b, float* c, const MatmulShape& shape);
// 4. The same with 5×8 register tiles (10 accumulators: closer to the ~15 registers V8 leaves).
void matmul_packed_5x8(const float* a, const float* b, float* c, const MatmulShape& shape);

// 5. Packed 4×8 with the register tile called through relaxed_tile_slot (replaceable_tiles.h): the
//    plain tile, until JS replaces that function's WASM table entry with the relaxed-SIMD tile
//    (relaxed_tile.wat, fused multiply-add, which clang 14 cannot emit in the final encoding).
void matmul_packed_4x8_replaceable(const float* a, const float* b, float* c, const MatmulShape& shape);
// 6. Packed 5×8 through relaxed_tile5_slot: with fused multiply-add, five rows fit the registers.
void matmul_packed_5x8_replaceable(const float* a, const float* b, float* c, const MatmulShape& shape);
// 7. Packed 6×8 through relaxed_tile6_slot: 12 accumulators + 2 B vectors + 1 splat = 15 registers.
void matmul_packed_6x8_replaceable(const float* a, const float* b, float* c, const MatmulShape& shape);

struct MatmulVariant {
  int number;
  const char* name;
  MatmulFunction run;
};

// Every variant, numbered from 1 (the reference); the harness validates each before timing it.
const std::vector<MatmulVariant>& matmul_variants();

// The variant `matmul` runs: once the relaxed-SIMD tiles are installed 7, or 6 where relaxed-tile.js measured
// the 5×8 tile faster (relaxed_tile_rows, replaceable_tiles.h); else 3.
int default_matmul_variant();

// C (=|+=) op(A)·op(B) with the default variant.
void matmul(const float* a, const float* b, float* c, const MatmulShape& shape);

// Runs variant `number`; returns an empty string, or a message when no such variant exists.
std::string matmul_with_variant(int number, const float* a, const float* b, float* c, const MatmulShape& shape);

// B's packed panels built once, for many products with the same B (a model's weights): what the packed variants
// build on every call. b: (k, n) dense, or (n, k) dense with transpose_b.
struct PackedMatrix {
  int k = 0, n = 0;
  std::vector<float> panels;
};
PackedMatrix pack_matrix(const float* b, int k, int n, bool transpose_b = false);

// C (=|+=) A·B with B from pack_matrix (shape.k, shape.n are its k, n; shape.ldb and transpose_b are not read),
// on the default variant's register tile (5 or 6 rows): the packed GEMM without its packing of B.
void matmul_prepacked(const float* a, const PackedMatrix& b, float* c, const MatmulShape& shape);

// Which vector vocabulary this build was compiled with: "wasm_simd128" or "scalar".
const char* vector_vocabulary();

}  // namespace ap::kernels
