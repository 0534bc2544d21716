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
// attention_without_weights on arguments that passed check_attention_without_weights (checks.h): what the bindings run.
AverageResult attention_without_weights_unchecked(const Tensor& x, Normalization normalization);

}  // namespace ap
