#include "test_support.h"

#include <cmath>
#include <cstdint>
#include <sstream>
#include <utility>

namespace ap::testing {

Tensor tensor(std::vector<int> shape, std::vector<float> data) {
  Tensor t;
  t.shape = std::move(shape);
  t.data = std::move(data);
  return t;
}

Tensor random_tensor(std::vector<int> shape, unsigned salt) {
  Tensor t = zeros(std::move(shape));
  // A fixed integer hash rather than <random>, whose distributions differ between standard libraries.
  for (std::size_t i = 0; i < t.data.size(); ++i) {
    const std::uint32_t bits = lowbias32(static_cast<std::uint32_t>(i) * 2654435761u ^ lowbias32(salt + 1));
    t.data[i] = static_cast<float>(bits >> 8) / 8388608.0f - 1.0f;
  }
  return t;
}

Tensor transpose(const Tensor& matrix) {
  const int rows = matrix.shape[0], cols = matrix.shape[1];
  Tensor transposed = zeros({cols, rows});
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) transposed.data[c * rows + r] = matrix.data[r * cols + c];
  return transposed;
}

float at(const Tensor& t, std::initializer_list<int> index) {
  std::size_t flat = 0;
  int axis = 0;
  for (int i : index) flat = flat * t.shape[axis++] + i;
  return t.data[flat];
}

::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected, double atol, double rtol) {
  if (actual.shape != expected.shape) {
    return ::testing::AssertionFailure() << "shape " << format_shape(actual.shape) << ", expected "
                                         << format_shape(expected.shape);
  }
  if (actual.data.size() != expected.data.size()) {
    return ::testing::AssertionFailure() << actual.data.size() << " values, expected " << expected.data.size();
  }
  std::ostringstream first;
  int shown = 0, failures = 0;
  double max_difference = 0;
  for (std::size_t i = 0; i < actual.data.size(); ++i) {
    const double a = actual.data[i], e = expected.data[i];
    bool ok;
    if (std::isnan(e) || std::isinf(e)) {
      ok = std::isnan(e) ? std::isnan(a) : a == e;
    } else {
      const double difference = std::fabs(a - e);
      if (!std::isnan(difference)) max_difference = std::fmax(max_difference, difference);
      ok = difference <= atol + rtol * std::fabs(e);
    }
    if (!ok) {
      ++failures;
      if (shown++ < 5) first << "\n  [" << i << "] " << a << " vs expected " << e;
    }
  }
  if (failures == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << failures << " of " << actual.data.size()
                                       << " values differ beyond atol=" << atol << ", rtol=" << rtol
                                       << "; max difference " << max_difference << "; first:" << first.str();
}

Tensor journey_embeddings() {
  return tensor({1, 6, 3}, {0.43f, 0.15f, 0.89f,    // Your
                            0.55f, 0.87f, 0.66f,    // journey
                            0.57f, 0.85f, 0.64f,    // starts
                            0.22f, 0.58f, 0.33f,    // with
                            0.77f, 0.25f, 0.10f,    // one
                            0.05f, 0.80f, 0.55f});  // step
}

}  // namespace ap::testing
