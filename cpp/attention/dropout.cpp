#include "attention/dropout.h"

#include "attention/check_helpers.h"
#include "attention/checks.h"

namespace ap {

// region: dropout-uniform
std::uint32_t lowbias32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

float dropout_uniform(std::uint32_t seed, std::uint32_t index) {
  // The top 24 bits fit a float's mantissa exactly, so u is the same in every language.
  return static_cast<float>(lowbias32(index ^ lowbias32(seed)) >> 8) * (1.0f / 16777216.0f);
}

bool dropout_keeps(std::uint32_t seed, std::uint32_t index, float p) { return dropout_uniform(seed, index) >= p; }
// endregion

DropoutResult attention_dropout(const Tensor& weights, const DropoutOptions& options) {
  require_valid(check_attention_dropout(weights, options));
  const auto seed = static_cast<std::uint32_t>(options.seed);
  const float keep_scale = 1.0f / (1.0f - options.dropout);  // keeps the expected sum of each row

  DropoutResult result;
  result.mask = zeros(weights.shape);
  result.output = zeros(weights.shape);
  for (std::size_t i = 0; i < weights.data.size(); ++i) {
    // The flat index is the counter: any element's fate is known without drawing the others.
    const bool kept = dropout_keeps(seed, static_cast<std::uint32_t>(i), options.dropout);
    result.mask.data[i] = kept ? 1.0f : 0.0f;
    result.output.data[i] = kept ? weights.data[i] * keep_scale : 0.0f;
  }
  return result;
}

}  // namespace ap
