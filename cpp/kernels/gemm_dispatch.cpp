// The variant table and the default entry point.
#include "gemm.h"
#include "simd.h"

namespace ap::kernels {

const std::vector<MatmulVariant>& matmul_variants() {
  static const std::vector<MatmulVariant> variants = {
      {1, "reference", matmul_reference},
      {2, "rowwise", matmul_rowwise},
      {3, "packed 4x8", matmul_packed_4x8},
      {4, "packed 5x8", matmul_packed_5x8},
      {5, "packed 4x8, replaceable tile", matmul_packed_4x8_replaceable},
      {6, "packed 5x8, replaceable tile", matmul_packed_5x8_replaceable},
      {7, "packed 6x8, replaceable tile", matmul_packed_6x8_replaceable},
  };
  return variants;
}

// With the relaxed-SIMD tiles, 6×8 (variant 7) or, on engines where that tile spills, 5×8 (variant 6): the
// one relaxed-tile.js measured faster (relaxed_tile_rows, cpp/kernels/README.md); without them a 6-row tile
// spills (it needs a product temporary per multiply-add), so 4×8 (variant 3).
int default_matmul_variant() {
  if (!relaxed_tile_installed()) return 3;
  return relaxed_tile_rows() == 6 ? 7 : 6;
}

void matmul(const float* a, const float* b, float* c, const MatmulShape& shape) {
  if (!relaxed_tile_installed()) {
    matmul_packed_4x8(a, b, c, shape);
  } else if (relaxed_tile_rows() == 6) {
    matmul_packed_6x8_replaceable(a, b, c, shape);
  } else {
    matmul_packed_5x8_replaceable(a, b, c, shape);
  }
}

std::string matmul_with_variant(int number, const float* a, const float* b, float* c, const MatmulShape& shape) {
  for (const MatmulVariant& variant : matmul_variants()) {
    if (variant.number == number) {
      variant.run(a, b, c, shape);
      return "";
    }
  }
  return "matmul: variant=" + std::to_string(number) + " does not exist; expected 1 to " +
         std::to_string(matmul_variants().size());
}

const char* vector_vocabulary() { return simd::kVocabulary; }

}  // namespace ap::kernels
