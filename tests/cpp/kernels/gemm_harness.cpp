// The variant harness (llm.c's dev/cuda style): every GEMM variant is first checked against the
// reference on the shape, then timed; a variant that does not validate is not timed.
//
//   gemm_harness [n ...]      (default n = 128 256 512 1024; square n×n·n×n, plain and with Bᵀ)
//
// Built natively by CMake; for WASM timings compile it with emcc (see cpp/kernels/README.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "gemm.h"

using ap::kernels::MatmulShape;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

float max_abs_difference(const std::vector<float>& x, const std::vector<float>& y) {
  float worst = 0.0f;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(x[i] - y[i]));
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {128, 256, 512, 1024};
  std::printf("vector vocabulary: %s\n", ap::kernels::vector_vocabulary());

  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int n : sizes) {
    for (bool transpose_b : {false, true}) {
      std::vector<float> a(static_cast<size_t>(n) * n), b(a.size()), expected(a.size()), c(a.size());
      for (float& x : a) x = uniform(rng);
      for (float& x : b) x = uniform(rng);
      const MatmulShape shape = MatmulShape::dense(n, n, n, transpose_b);
      ap::kernels::matmul_reference(a.data(), b.data(), expected.data(), shape);
      for (const auto& variant : ap::kernels::matmul_variants()) {
        if (variant.number == 1 && n > 512) continue;  // minutes at n=1024; validated already below 1024
        variant.run(a.data(), b.data(), c.data(), shape);
        const float error = max_abs_difference(c, expected);
        const float tolerance = 1e-5f * n;  // float sums of n terms of size ≤1 in another order
        if (!(error <= tolerance)) {
          std::printf("n=%4d %s variant %d (%s): INVALID, max |error| %.3g > %.3g\n", n, transpose_b ? "A·Bᵀ" : "A·B ",
                      variant.number, variant.name, error, tolerance);
          continue;
        }
        std::vector<double> times;
        for (int run = 0; run < 7; ++run) {
          const auto start = std::chrono::steady_clock::now();
          variant.run(a.data(), b.data(), c.data(), shape);
          times.push_back(seconds_since(start));
          if (times.back() > 1.0) break;
        }
        std::sort(times.begin(), times.end());
        const double median = times[times.size() / 2];
        std::printf("n=%4d %s variant %d (%-10s): %8.3f ms  %6.2f GFLOP/s  (max |error| %.2g)\n", n,
                    transpose_b ? "A·Bᵀ" : "A·B ", variant.number, variant.name, median * 1e3,
                    2.0 * n * n * n / median * 1e-9, error);
      }
    }
  }
  return 0;
}
