// Variants 1 and 2: the reference GEMM and the unpacked row-broadcast one.
#include "gemm.h"

#include "simd.h"

namespace ap::kernels {

namespace {
inline float a_at(const float* a, const MatmulShape& s, int i, int p) {
  return s.transpose_a ? a[static_cast<size_t>(p) * s.lda + i] : a[static_cast<size_t>(i) * s.lda + p];
}
inline float b_at(const float* b, const MatmulShape& s, int p, int j) {
  return s.transpose_b ? b[static_cast<size_t>(j) * s.ldb + p] : b[static_cast<size_t>(p) * s.ldb + j];
}
}  // namespace

void matmul_reference(const float* a, const float* b, float* c, const MatmulShape& s) {
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) {
      float sum = 0.0f;
      for (int p = 0; p < s.k; ++p) sum += a_at(a, s, i, p) * b_at(b, s, p, j);
      float& out = c[static_cast<size_t>(i) * s.ldc + j];
      out = s.accumulate ? out + sum : sum;
    }
  }
}

void matmul_rowwise(const float* a, const float* b, float* c, const MatmulShape& s) {
  // Bᵀ has no contiguous rows of B to broadcast along: the dot-product form is already the natural one.
  if (s.transpose_b) {
    matmul_reference(a, b, c, s);
    return;
  }
  using namespace simd;
  for (int i = 0; i < s.m; ++i) {
    float* c_row = c + static_cast<size_t>(i) * s.ldc;
    if (!s.accumulate)
      for (int j = 0; j < s.n; ++j) c_row[j] = 0.0f;
    for (int p = 0; p < s.k; ++p) {
      const float a_ip = a_at(a, s, i, p);
      const float* b_row = b + static_cast<size_t>(p) * s.ldb;
      const f32x4 a_splat = splat(a_ip);
      int j = 0;
      for (; j + kLanes <= s.n; j += kLanes) store(c_row + j, mul_add(a_splat, load(b_row + j), load(c_row + j)));
      for (; j < s.n; ++j) c_row[j] += a_ip * b_row[j];  // leftover columns
    }
  }
}

}  // namespace ap::kernels
