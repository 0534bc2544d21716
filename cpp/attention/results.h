// What each step returns. Every intermediate the page shows is a named field; a field the function
// does not produce is absent (empty shape), never an empty tensor of the right rank.
#pragma once

#include <cstdint>

#include "attention/tensor.h"

namespace ap {

// Step 1.
struct NextTokenPairs {
  IntTensor contexts;  // (B, L−1): position t's context is contexts[b, 0..t]
  IntTensor targets;   // (B, L−1): position t's target
};

// Steps 2–5 (causal averages, attention without weights).
struct AverageResult {
  Tensor scores;   // (T, T) step 4; (B, T, T) attention_without_weights
  Tensor masked;   // (T, T) step 4
  Tensor weights;  // (T, T) steps 3–4; (B, T, T) attention_without_weights
  Tensor output;   // (B, T, C)
};

// Steps 6–11. Single-head (self_attention): query/key/value (B, T, d_out), scores… (B, T, T), no context.
// Multi-head and cross: query (B, H, Tq, d_head), key/value (B, H, Tk, d_head), scores… (B, H, Tq, Tk),
// context (B, Tq, d_out) the heads concatenated, output (B, Tq, d_out) after the output projection.
struct AttentionResult {
  Tensor query;
  Tensor key;
  Tensor value;
  Tensor scores;   // Q·Kᵀ
  Tensor scaled;   // scores · (1/√d_k) / temperature
  Tensor masked;   // only when causal
  Tensor weights;  // softmax rows (after the mask)
  Tensor dropped;  // only when dropout > 0
  Tensor context;  // multi-head and cross only
  Tensor output;
};

// Step 8.
struct DropoutResult {
  Tensor mask;    // same shape as the weights: 1 kept, 0 dropped
  Tensor output;  // weights · mask / (1 − p)
};

// Step 9. Plain numbers, not tensors.
struct Comparison {
  double max_abs_error = 0;
  double max_rel_error = 0;  // max |a − b| / |b| over elements with b ≠ 0
  bool allclose = true;
  std::int64_t first_mismatch = -1;  // flat index of the first element outside tolerance, or −1
};

}  // namespace ap
