// Step 5. Turning a row of scores into weights, three ways.
#pragma once

#include "attention/options.h"
#include "attention/tensor.h"

namespace ap {

// x: (…, N), any rank ≥ 1, may hold −∞ → output (…, N): each last-axis row of scale·x normalised.
// −∞ means "masked": that entry's weight is 0 in every normalisation. A fully masked row (all −∞)
// gets weights 0 everywhere, not NaN (PyTorch gives NaN), so whatever it weights sums to 0.
// 'naive' overflows to inf/NaN for large scores: that is the lesson, not a bug. 'sum' divides by the
// row sum; a row summing to 0 gets zeros.
Tensor softmax(const Tensor& x, const SoftmaxOptions& options = {});
namespace unchecked {
// The step above on arguments that passed its check (checks.h): what it and the bindings run.
Tensor softmax(const Tensor& x, const SoftmaxOptions& options);
}  // namespace unchecked

// One row in place, the kernel every attention function shares: n entries, normalised as `normalization`
// with the fully-masked-row rule above.
void softmax_row(float* row, int n, Normalization normalization);

}  // namespace ap
