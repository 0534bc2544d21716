// Steps 6–8. Self-attention with trainable query, key and value projections.
#pragma once

#include "attention/options.h"
#include "attention/results.h"
#include "attention/tensor.h"
#include "attention/weights.h"

namespace ap {

// x: (B, T, d_in); weights.query/key/value (d_in, d_out) ('linear' layout: (d_out, d_in)),
// optional biases (d_out) → query, key, value (B, T, d_out); scores, scaled, masked (when causal),
// weights, dropped (when dropout > 0) (B, T, T); output (B, T, d_out). No context, no output projection.
AttentionResult self_attention(const Tensor& x, const ProjectionWeights& weights,
                               const AttentionOptions& options = {});
namespace unchecked {
// The step above on arguments that passed its check (checks.h): what it and the bindings run.
AttentionResult self_attention(const Tensor& x, const ProjectionWeights& weights,
                              const AttentionOptions& options);
}  // namespace unchecked

}  // namespace ap
