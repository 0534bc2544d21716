// Shared helpers for the kernel tests: seeded random data and a tolerance check that names the first
// differing value (atol + rtol·|expected|, as every suite in the project).
#pragma once

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ap::kernels::testing {

inline std::vector<float> random_values(size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> values(n);
  for (float& x : values) x = uniform(rng);
  return values;
}

inline ::testing::AssertionResult all_close(const std::vector<float>& actual, const std::vector<float>& expected,
                                            double atol, double rtol) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure() << "sizes differ: " << actual.size() << " vs " << expected.size();
  }
  double worst = 0.0;
  long first = -1;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double difference = std::fabs(static_cast<double>(actual[i]) - expected[i]);
    worst = std::fmax(worst, difference);
    if (first < 0 && !(difference <= atol + rtol * std::fabs(expected[i]))) first = static_cast<long>(i);
  }
  if (first < 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "first mismatch at " << first << ": " << actual[first] << " vs expected "
                                       << expected[first] << "; max |difference| " << worst;
}

}  // namespace ap::kernels::testing
