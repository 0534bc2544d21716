#include "attention/causal_average.h"

#include <limits>

#include "attention/check_helpers.h"
#include "attention/checks.h"
#include "attention/eigen_views.h"
#include "attention/softmax.h"

namespace ap {

namespace {
// output[b] = weights·x[b] for every batch b: weights (T, T), x (B, T, C) → (B, T, C).
// region: apply-to-each-batch
Tensor apply_to_each_batch(const Tensor& weights, const Tensor& x) {
  const int batch = x.shape[0], time = x.shape[1], channels = x.shape[2];
  Tensor output = zeros(x.shape);
  const auto w = matrix_view(weights, 0, time, time);
  const std::size_t stride = static_cast<std::size_t>(time) * channels;
  for (int b = 0; b < batch; ++b) {
    matrix_view(output, b * stride, time, channels).noalias() = w * matrix_view(x, b * stride, time, channels);
  }
  return output;
}
// endregion
}  // namespace

namespace unchecked {

// region: causal-average-loop
AverageResult causal_average_loop(const Tensor& x) {
  const int batch = x.shape[0], time = x.shape[1], channels = x.shape[2];
  AverageResult result;
  result.output = zeros(x.shape);  // (B, T, C)
  for (int b = 0; b < batch; ++b) {
    for (int t = 0; t < time; ++t) {
      for (int c = 0; c < channels; ++c) {
        // y[b, t, c] = mean over s ≤ t of x[b, s, c]
        float sum = 0.0f;
        for (int s = 0; s <= t; ++s) sum += x.data[(static_cast<std::size_t>(b) * time + s) * channels + c];
        result.output.data[(static_cast<std::size_t>(b) * time + t) * channels + c] = sum / (t + 1);
      }
    }
  }
  return result;
}
// endregion

// region: causal-average-matmul
AverageResult causal_average_matmul(const Tensor& x) {
  const int time = x.shape[1];
  AverageResult result;
  // 1. weights = tril(ones(T, T)), each row divided by its sum: row t holds 1/(t+1) in columns 0..t
  result.weights = zeros({time, time});
  for (int t = 0; t < time; ++t) {
    for (int s = 0; s <= t; ++s) result.weights.data[static_cast<std::size_t>(t) * time + s] = 1.0f / (t + 1);
  }
  // 2. output = weights·x, broadcast over the batch
  result.output = apply_to_each_batch(result.weights, x);
  return result;
}
// endregion

// region: causal-average-softmax
AverageResult causal_average_softmax(const Tensor& x) {
  const int time = x.shape[1];
  AverageResult result;
  // 1. scores = zeros(T, T): every token is equally interesting, for now
  result.scores = zeros({time, time});
  // 2. masked = scores with −∞ above the diagonal: the future gets exp(−∞) = 0
  result.masked = result.scores;
  for (int t = 0; t < time; ++t) {
    for (int s = t + 1; s < time; ++s) {
      result.masked.data[static_cast<std::size_t>(t) * time + s] = -std::numeric_limits<float>::infinity();
    }
  }
  // 3. weights = softmax of each row: uniform over 0..t, the same rows as step 3
  result.weights = result.masked;
  for (int t = 0; t < time; ++t) {
    softmax_row(result.weights.data.data() + static_cast<std::size_t>(t) * time, time, Normalization::Stable);
  }
  // 4. output = weights·x
  result.output = apply_to_each_batch(result.weights, x);
  return result;
}
// endregion

}  // namespace unchecked

AverageResult causal_average_loop(const Tensor& x) {
  return checked(check_causal_average_loop, unchecked::causal_average_loop, x);
}

AverageResult causal_average_matmul(const Tensor& x) {
  return checked(check_causal_average_matmul, unchecked::causal_average_matmul, x);
}

AverageResult causal_average_softmax(const Tensor& x) {
  return checked(check_causal_average_softmax, unchecked::causal_average_softmax, x);
}

}  // namespace ap
