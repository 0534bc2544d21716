#include "attention/attention_without_weights.h"

#include "attention/check_helpers.h"
#include "attention/checks.h"
#include "attention/eigen_views.h"
#include "attention/softmax.h"

namespace ap {

namespace unchecked {

// region: attention-without-weights
AverageResult attention_without_weights(const Tensor& x, Normalization normalization) {
  const int batch = x.shape[0], time = x.shape[1], channels = x.shape[2];
  const std::size_t x_stride = static_cast<std::size_t>(time) * channels;
  const std::size_t w_stride = static_cast<std::size_t>(time) * time;

  AverageResult result;
  result.scores = zeros({batch, time, time});   // (B, T, T)
  result.output = zeros({batch, time, channels});  // (B, T, C)
  for (int b = 0; b < batch; ++b) {
    const auto xb = matrix_view(x, b * x_stride, time, channels);
    // 1. scores = X·Xᵀ: how similar token i's embedding is to token j's
    matrix_view(result.scores, b * w_stride, time, time).noalias() = xb * xb.transpose();
  }
  // 2. weights = each row of scores normalised (no 1/√C scale in this step)
  result.weights = result.scores;
  for (std::size_t row = 0; row < static_cast<std::size_t>(batch) * time; ++row) {
    softmax_row(result.weights.data.data() + row * time, time, normalization);
  }
  for (int b = 0; b < batch; ++b) {
    // 3. output = weights·X: each token becomes a weighted mix of all tokens
    matrix_view(result.output, b * x_stride, time, channels).noalias() =
        matrix_view(result.weights, b * w_stride, time, time) * matrix_view(x, b * x_stride, time, channels);
  }
  return result;
}
// endregion

}  // namespace unchecked

AverageResult attention_without_weights(const Tensor& x, Normalization normalization) {
  require_valid(check_attention_without_weights(x, normalization));
  return unchecked::attention_without_weights(x, normalization);
}

}  // namespace ap
