// layerNorm: PyTorch's F.layer_norm over the last axis (docs/api.md), the GPT-2 block's normalisation.
// The teaching path: each row's mean and biased variance in double, then the float32 result.
#include <cmath>

#include "attention/attention.h"
#include "attention/check_helpers.h"
#include "attention/registry_rules.h"

namespace ap {

namespace {
const char* kFn = "layerNorm";
}  // namespace

std::string check_layer_norm(const Tensor& x, const LayerNormOptions& options, std::size_t max_bytes) {
  if (auto message = check_tensor_any_rank(kFn, "x", x); !message.empty()) return message;
  // weight and bias are (C), C the last axis of x (the registry's axes and note)
  AxisSizes sizes(kFn);
  sizes.bind("C", x.shape.back());
  if (auto message = sizes.check_optional("options.weight", options.weight); !message.empty()) return message;
  if (auto message = sizes.check_optional("options.bias", options.bias); !message.empty()) return message;
  if (auto message = check_option_range(kFn, "eps", options.eps, format_float(options.eps)); !message.empty()) {
    return message;
  }
  return check_memory(kFn, "x of shape " + format_shape(x.shape),
                      estimate_floats(kFn, "teaching", {{"size", static_cast<double>(x.element_count())}}), max_bytes);
}

namespace unchecked {

Tensor layer_norm(const Tensor& x, const LayerNormOptions& options) {
  const int C = x.shape.back();
  const std::size_t rows = x.element_count() / C;
  Tensor output{x.shape, std::vector<float>(x.data.size())};
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x.data.data() + r * C;
    float* out = output.data.data() + r * C;
    // 1. mean μ = Σ x / C
    double mean = 0;
    for (int c = 0; c < C; ++c) mean += row[c];
    mean /= C;
    // 2. variance σ² = Σ (x − μ)² / C: biased (divided by C, not C − 1), as PyTorch normalises
    double variance = 0;
    for (int c = 0; c < C; ++c) variance += (row[c] - mean) * (row[c] - mean);
    variance /= C;
    // 3. x̂ = (x − μ) / √(σ² + eps)   4. y = x̂ · weight + bias, each (C) where given
    const double inverse_std = 1.0 / std::sqrt(variance + static_cast<double>(options.eps));
    for (int c = 0; c < C; ++c) {
      double y = (row[c] - mean) * inverse_std;
      if (options.weight.present()) y *= options.weight.data[c];
      if (options.bias.present()) y += options.bias.data[c];
      out[c] = static_cast<float>(y);
    }
  }
  return output;
}

}  // namespace unchecked

Tensor layer_norm(const Tensor& x, const LayerNormOptions& options) {
  return checked(check_layer_norm, unchecked::layer_norm, x, options);
}

}  // namespace ap
