// Steps 2–4. The same causal average three ways: y[b, t] = mean(x[b, 0..t]).
#pragma once

#include "attention/results.h"
#include "attention/tensor.h"

namespace ap {

// Step 2. x: (B, T, C) → output (B, T, C), by the explicit double loop (the slow, obvious reference).
AverageResult causal_average_loop(const Tensor& x);

// Step 3. x: (B, T, C) → weights (T, T) lower-triangular rows 1, ½ ½, ⅓ ⅓ ⅓ …;
// output (B, T, C) = weights·x[b] for every b.
AverageResult causal_average_matmul(const Tensor& x);

// Step 4. x: (B, T, C) → scores (T, T) zeros; masked (T, T) with −∞ above the diagonal;
// weights (T, T) = softmax(masked), the same uniform rows as step 3; output (B, T, C).
AverageResult causal_average_softmax(const Tensor& x);

namespace unchecked {
// The steps above on arguments that passed their checks (checks.h): what they and the bindings run.
AverageResult causal_average_loop(const Tensor& x);
AverageResult causal_average_matmul(const Tensor& x);
AverageResult causal_average_softmax(const Tensor& x);
}  // namespace unchecked

}  // namespace ap
