// Step 5. Self-attention with no learned weights: the inputs attend to each other directly.
#pragma once

#include "attention/options.h"
#include "attention/results.h"
#include "attention/tensor.h"

namespace ap {

// x: (B, T, C) → scores (B, T, T) = X·Xᵀ; weights (B, T, T) = softmax rows of scores (unscaled);
// output (B, T, C) = weights·X.
AverageResult attention_without_weights(const Tensor& x,
                                        Normalization normalization = Normalization::Stable);
namespace unchecked {
// The step above on arguments that passed its check (checks.h): what it and the bindings run.
AverageResult attention_without_weights(const Tensor& x, Normalization normalization);
}  // namespace unchecked

}  // namespace ap
