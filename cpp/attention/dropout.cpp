#include "attention/dropout.h"

#include <random>

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

// region: dropout-torch
std::vector<std::uint8_t> torch_dropout_keeps(std::uint32_t seed, std::size_t count, float p) {
  std::mt19937 generator(seed);  // torch.manual_seed(seed)
  const double keep = 1.0 - static_cast<double>(p);
  std::vector<std::uint8_t> kept(count);
  for (auto& k : kept) {
    const std::uint64_t high = generator();
    const std::uint64_t low = generator();
    const double u = static_cast<double>(((high << 32) | low) & ((std::uint64_t{1} << 53) - 1)) * 0x1p-53;
    k = u < keep ? 1 : 0;
  }
  return kept;
}
// endregion

DropoutKeeps::DropoutKeeps(DropoutRng rng, double seed, float p, std::size_t count)
    : rng_(rng), seed_(static_cast<std::uint32_t>(seed)), p_(p),
      scale_(rng == DropoutRng::Torch ? 1.0f / static_cast<float>(1.0 - static_cast<double>(p)) : 1.0f / (1.0f - p)) {
  if (rng == DropoutRng::Torch) torch_ = torch_dropout_keeps(seed_, count, p);
}

namespace unchecked {

DropoutResult attention_dropout(const Tensor& weights, const DropoutOptions& options) {
  // For the counter generator the flat index is the counter: any element's fate is known without drawing the others.
  const DropoutKeeps keeps(options.dropout_rng, options.seed, options.dropout, weights.data.size());
  const float keep_scale = keeps.scale();  // keeps the expected sum of each row

  DropoutResult result;
  result.mask = zeros(weights.shape);
  result.output = zeros(weights.shape);
  for (std::size_t i = 0; i < weights.data.size(); ++i) {
    const bool kept = keeps(i);
    result.mask.data[i] = kept ? 1.0f : 0.0f;
    result.output.data[i] = kept ? weights.data[i] * keep_scale : 0.0f;
  }
  return result;
}

}  // namespace unchecked

DropoutResult attention_dropout(const Tensor& weights, const DropoutOptions& options) {
  return checked(check_attention_dropout, unchecked::attention_dropout, weights, options);
}

}  // namespace ap
