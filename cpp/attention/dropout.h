// Step 8. Dropout on the attention weights, from a counter-based RNG so every layer (C++, WASM, JS,
// WebGPU, a fused kernel) draws the same mask from (seed, flat index) alone.
#pragma once

#include <cstdint>

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

// weights: any shape → mask (same shape, 1 kept / 0 dropped); output = weights·mask/(1 − p).
// p = 0 keeps everything and output equals weights.
DropoutResult attention_dropout(const Tensor& weights, const DropoutOptions& options);

}  // namespace ap
