// Step 8. Dropout on the attention weights, from a counter-based RNG so every layer (C++, WASM, JS,
// WebGPU, a fused kernel) draws the same mask from (seed, flat index) alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention/options.h"
#include "attention/results.h"
#include "attention/tensor.h"

namespace ap {

// Chris Wellons' lowbias32 integer hash.
std::uint32_t lowbias32(std::uint32_t x);

// u(seed, i) = (lowbias32(i ⊕ lowbias32(seed)) >> 8) / 2²⁴, uniform in [0, 1) with 24 bits.
float dropout_uniform(std::uint32_t seed, std::uint32_t index);

// Element `index` is kept when u(seed, index) ≥ p.
bool dropout_keeps(std::uint32_t seed, std::uint32_t index, float p);

// torch 1.13 CPU's bernoulli_(1 − p) after torch.manual_seed(seed), element by element in flat order:
// u = (random64() & (2⁵³ − 1))·2⁻⁵³ (two mt19937 draws, the first the high word), kept when u < 1 − p (double).
// std::mt19937 is at::mt19937: the same seeding and tempering, so its draws are torch's.
std::vector<std::uint8_t> torch_dropout_keeps(std::uint32_t seed, std::size_t count, float p);

// Which elements of a flat (…) tensor dropout keeps, by the generator options name. The counter generator
// answers for any index alone; torch's draws the whole mask first, in flat order (the teaching code only).
class DropoutKeeps {
 public:
  DropoutKeeps(DropoutRng rng, double seed, float p, std::size_t count);
  bool operator()(std::size_t index) const {
    return rng_ == DropoutRng::Torch ? torch_[index] != 0
                                     : dropout_keeps(seed_, static_cast<std::uint32_t>(index), p_);
  }
  // What a kept weight is multiplied by: 1/(1 − p); for torch float's 1 / fl(1 − p), as its noise.div_(1 − p).
  float scale() const { return scale_; }

 private:
  DropoutRng rng_;
  std::uint32_t seed_;
  float p_;
  float scale_;
  std::vector<std::uint8_t> torch_;
};

// weights: any shape → mask (same shape, 1 kept / 0 dropped); output = weights·mask/(1 − p).
// p = 0 keeps everything and output equals weights.
DropoutResult attention_dropout(const Tensor& weights, const DropoutOptions& options);
namespace unchecked {
// The step above on arguments that passed its check (checks.h): what it and the bindings run.
DropoutResult attention_dropout(const Tensor& weights, const DropoutOptions& options);
}  // namespace unchecked

}  // namespace ap
