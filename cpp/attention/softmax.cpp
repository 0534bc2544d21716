#include "attention/softmax.h"

#include <cmath>
#include <limits>

#include "attention/checks.h"
#include "attention/check_helpers.h"

namespace ap {

namespace {
constexpr float negative_infinity = -std::numeric_limits<float>::infinity();
}  // namespace

void softmax_row(float* row, int n, Normalization normalization) {
  // −∞ marks a masked entry; it gets weight 0 whatever the normalisation. When nothing is left to
  // normalise (all masked, or a zero sum) the row becomes zeros instead of 0/0 = NaN.
  switch (normalization) {
    case Normalization::Stable: {
      // exp(s − max) / Σ exp(s − max): the max entry gives exp(0) = 1, so nothing overflows and the
      // sum is ≥ 1.
      float max = negative_infinity;
      for (int j = 0; j < n; ++j) max = std::fmax(max, row[j]);
      if (max == negative_infinity) {
        for (int j = 0; j < n; ++j) row[j] = 0.0f;
        return;
      }
      float sum = 0.0f;
      for (int j = 0; j < n; ++j) {
        row[j] = std::exp(row[j] - max);
        sum += row[j];
      }
      for (int j = 0; j < n; ++j) row[j] /= sum;
      return;
    }
    case Normalization::Naive: {
      // exp(s) / Σ exp(s): exp overflows to inf above s ≈ 88.7 and inf/inf = NaN. Kept on purpose.
      float sum = 0.0f;
      for (int j = 0; j < n; ++j) {
        row[j] = std::exp(row[j]);
        sum += row[j];
      }
      for (int j = 0; j < n; ++j) row[j] = (sum == 0.0f) ? 0.0f : row[j] / sum;
      return;
    }
    case Normalization::Sum: {
      // s / Σ s over the unmasked entries.
      float sum = 0.0f;
      for (int j = 0; j < n; ++j) {
        if (row[j] != negative_infinity) sum += row[j];
      }
      for (int j = 0; j < n; ++j) {
        row[j] = (sum == 0.0f || row[j] == negative_infinity) ? 0.0f : row[j] / sum;
      }
      return;
    }
  }
}

namespace unchecked {

Tensor softmax(const Tensor& x, const SoftmaxOptions& options) {
  const int n = x.shape.back();
  const std::size_t rows = x.element_count() / static_cast<std::size_t>(n);

  Tensor output = x;  // (…, N)
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = output.data.data() + r * static_cast<std::size_t>(n);
    // 1. scale, keeping −∞ masked (scale·−∞ would be NaN for scale 0 and +∞ for scale < 0)
    for (int j = 0; j < n; ++j) {
      if (row[j] != negative_infinity) row[j] *= options.scale;
    }
    // 2. normalise
    softmax_row(row, n, options.normalization);
  }
  return output;
}

}  // namespace unchecked

Tensor softmax(const Tensor& x, const SoftmaxOptions& options) {
  return checked(check_softmax, unchecked::softmax, x, options);
}

}  // namespace ap
