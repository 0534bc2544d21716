// Every GEMM variant equals the reference on awkward shapes: 1, primes, sizes that are not multiples
// of the register tile (4 or 5 × 8), depths past one depth block (256), strided operands, Bᵀ.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "kernels/gemm.h"
#include "test_data.h"

namespace ap::kernels {
namespace {

using testing::all_close;
using testing::random_values;

struct Case {
  int m, k, n;
};

const Case kShapes[] = {{1, 1, 1},   {1, 7, 3},    {3, 1, 5},     {4, 8, 8},     {5, 16, 8},   {13, 17, 19},
                        {31, 37, 41}, {37, 300, 29}, {100, 257, 70}, {73, 513, 9},  {2, 3, 2100}, {64, 64, 64}};

class MatmulVariants : public ::testing::TestWithParam<std::tuple<Case, bool>> {};

TEST_P(MatmulVariants, EveryVariantEqualsTheReference) {
  const auto [shape_case, transpose_b] = GetParam();
  const MatmulShape shape = MatmulShape::dense(shape_case.m, shape_case.k, shape_case.n, transpose_b);
  const std::vector<float> a = random_values(static_cast<size_t>(shape.m) * shape.k, 1);
  const std::vector<float> b = random_values(static_cast<size_t>(shape.k) * shape.n, 2);
  std::vector<float> expected(static_cast<size_t>(shape.m) * shape.n);
  matmul_reference(a.data(), b.data(), expected.data(), shape);
  for (const MatmulVariant& variant : matmul_variants()) {
    std::vector<float> c(expected.size(), 123.0f);  // garbage the kernel must overwrite, not add to
    variant.run(a.data(), b.data(), c.data(), shape);
    // Sums of k products of size ≤ 1 taken in another order: error grows like k·ε.
    EXPECT_TRUE(all_close(c, expected, 1e-6 * shape.k + 1e-6, 1e-5)) << "variant " << variant.number << " (" << variant.name << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(AwkwardShapes, MatmulVariants, ::testing::Combine(::testing::ValuesIn(kShapes), ::testing::Bool()),
                         [](const auto& info) {
                           const Case& c = std::get<0>(info.param);
                           return std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + std::to_string(c.n) +
                                  (std::get<1>(info.param) ? "_transposed_b" : "");
                         });

// B packed once (pack_matrix, a model's weights) and multiplied by many A's: the same numbers as the reference,
// with B stored either way and C overwritten or added to, across depth blocks (k > 256) and column blocks (n > 2048).
class MatmulPrepacked : public ::testing::TestWithParam<std::tuple<Case, bool, bool>> {};

TEST_P(MatmulPrepacked, EqualsTheReference) {
  const auto [shape_case, transpose_b, accumulate] = GetParam();
  MatmulShape shape = MatmulShape::dense(shape_case.m, shape_case.k, shape_case.n, transpose_b);
  const std::vector<float> a = random_values(static_cast<size_t>(shape.m) * shape.k, 7);
  const std::vector<float> b = random_values(static_cast<size_t>(shape.k) * shape.n, 8);
  const PackedMatrix packed = pack_matrix(b.data(), shape.k, shape.n, transpose_b);
  std::vector<float> expected(static_cast<size_t>(shape.m) * shape.n, accumulate ? 0.5f : 0.0f);
  std::vector<float> c(expected.size(), accumulate ? 0.5f : 123.0f);
  shape.accumulate = accumulate;
  matmul_reference(a.data(), b.data(), expected.data(), shape);
  MatmulShape packed_shape = MatmulShape::dense(shape.m, shape.k, shape.n);
  packed_shape.accumulate = accumulate;
  matmul_prepacked(a.data(), packed, c.data(), packed_shape);
  EXPECT_TRUE(all_close(c, expected, 1e-6 * shape.k + 1e-6, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(AwkwardShapes, MatmulPrepacked,
                         ::testing::Combine(::testing::ValuesIn(kShapes), ::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           const Case& c = std::get<0>(info.param);
                           return std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + std::to_string(c.n) +
                                  (std::get<1>(info.param) ? "_transposed_b" : "") + (std::get<2>(info.param) ? "_accumulate" : "");
                         });

// op(A)·op(B) with A stored transposed and/or C added to: what the backward's products (dW = dYᵀ·X,
// dV = Pᵀ·dO, dQ += dS·K) ask for; every variant, on the same awkward shapes.
class MatmulModes : public ::testing::TestWithParam<std::tuple<Case, bool, bool, bool>> {};

TEST_P(MatmulModes, EveryVariantEqualsTheReference) {
  const auto [shape_case, transpose_a, transpose_b, accumulate] = GetParam();
  MatmulShape shape = MatmulShape::dense(shape_case.m, shape_case.k, shape_case.n, transpose_b);
  shape.transpose_a = transpose_a;
  if (transpose_a) shape.lda = shape.m;
  shape.accumulate = accumulate;
  const std::vector<float> a = random_values(static_cast<size_t>(shape.m) * shape.k, 5);
  const std::vector<float> b = random_values(static_cast<size_t>(shape.k) * shape.n, 6);
  const std::vector<float> start = random_values(static_cast<size_t>(shape.m) * shape.n, 7);
  // the reference on the explicit transpose, plus the start values when accumulating
  std::vector<float> a_plain(a.size());
  for (int i = 0; i < shape.m; ++i)
    for (int p = 0; p < shape.k; ++p)
      a_plain[static_cast<size_t>(i) * shape.k + p] = transpose_a ? a[static_cast<size_t>(p) * shape.m + i] : a[static_cast<size_t>(i) * shape.k + p];
  std::vector<float> expected(start.size());
  matmul_reference(a_plain.data(), b.data(), expected.data(), MatmulShape::dense(shape.m, shape.k, shape.n, transpose_b));
  if (accumulate)
    for (size_t i = 0; i < expected.size(); ++i) expected[i] += start[i];
  for (const MatmulVariant& variant : matmul_variants()) {
    std::vector<float> c = accumulate ? start : std::vector<float>(start.size(), 123.0f);
    variant.run(a.data(), b.data(), c.data(), shape);
    EXPECT_TRUE(all_close(c, expected, 1e-6 * shape.k + 2e-6, 1e-5)) << "variant " << variant.number << " (" << variant.name << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(AwkwardShapes, MatmulModes,
                         ::testing::Combine(::testing::ValuesIn(kShapes), ::testing::Bool(), ::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           const Case& c = std::get<0>(info.param);
                           return std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + std::to_string(c.n) +
                                  (std::get<1>(info.param) ? "_transposed_a" : "") +
                                  (std::get<2>(info.param) ? "_transposed_b" : "") +
                                  (std::get<3>(info.param) ? "_accumulate" : "");
                         });

TEST(Matmul, StridedOperandsReadOnlyTheirColumns) {
  // A, B and C are column windows of wider matrices: the kernel must honour lda, ldb and ldc and leave
  // the columns outside its window alone (how the attention pipeline reads one in-projection block).
  const int m = 9, k = 11, n = 13, lda = 20, ldb = 30, ldc = 17;
  const std::vector<float> a = random_values(static_cast<size_t>(m) * lda, 3);
  const std::vector<float> b = random_values(static_cast<size_t>(k) * ldb, 4);
  const MatmulShape shape{m, k, n, lda, ldb, ldc, false};
  std::vector<float> expected(static_cast<size_t>(m) * ldc, -1.0f);
  matmul_reference(a.data(), b.data(), expected.data(), shape);
  for (const MatmulVariant& variant : matmul_variants()) {
    std::vector<float> c(expected.size(), -1.0f);
    variant.run(a.data(), b.data(), c.data(), shape);
    EXPECT_TRUE(all_close(c, expected, 1e-5, 1e-5)) << "variant " << variant.number;
  }
}

TEST(Matmul, ZeroDepthGivesZeros) {
  MatmulShape shape = MatmulShape::dense(3, 0, 5);
  std::vector<float> c(15, 7.0f);
  matmul(nullptr, nullptr, c.data(), shape);
  for (float x : c) EXPECT_EQ(x, 0.0f);
  // accumulating an empty sum leaves C as it was
  shape.accumulate = true;
  std::fill(c.begin(), c.end(), 7.0f);
  matmul(nullptr, nullptr, c.data(), shape);
  for (float x : c) EXPECT_EQ(x, 7.0f);
}

TEST(Matmul, UnknownVariantIsNamedInTheMessage) {
  float c = 0.0f;
  const std::string message = matmul_with_variant(99, nullptr, nullptr, &c, MatmulShape::dense(1, 1, 1));
  EXPECT_EQ(message, "matmul: variant=99 does not exist; expected 1 to " + std::to_string(matmul_variants().size()));
}

}  // namespace
}  // namespace ap::kernels
