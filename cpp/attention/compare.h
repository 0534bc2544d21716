// Step 9. Check our work against an independent implementation.
#pragma once

#include "attention/options.h"
#include "attention/results.h"
#include "attention/tensor.h"

namespace ap {

// actual, expected: the same shape → max abs error, max relative error (over expected ≠ 0),
// allclose (every |a − e| ≤ atol + rtol·|e|) and the flat index of the first element that is not, or −1.
Comparison compare(const Tensor& actual, const Tensor& expected, const CompareOptions& options = {});
namespace unchecked {
// The step above on arguments that passed its check (checks.h): what it and the bindings run.
Comparison compare(const Tensor& actual, const Tensor& expected, const CompareOptions& options);
}  // namespace unchecked

}  // namespace ap
