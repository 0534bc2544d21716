// Helpers shared by the native tests: building tensors by hand, comparing them with the fixtures'
// tolerance and a readable failure, and loading tests/fixtures/<function>.json.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attention/attention.h"

namespace ap::testing {

// A tensor from its shape and values, e.g. tensor({2, 3}, {1, 2, 3, 4, 5, 6}).
Tensor tensor(std::vector<int> shape, std::vector<float> data);

// A reproducible tensor of values in [−1, 1), different for each `salt`.
Tensor random_tensor(std::vector<int> shape, unsigned salt);

// The (rows, cols) matrix transposed, for the weight-layout tests.
Tensor transpose(const Tensor& matrix);

// Element [index…] of a tensor, row-major.
float at(const Tensor& tensor, std::initializer_list<int> index);

// Passes when shapes match and every |actual − expected| ≤ atol + rtol·|expected| (−∞ must meet −∞,
// NaN must meet NaN); otherwise reports the first differing values and the max difference.
::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected, double atol = 1e-5,
                                     double rtol = 1e-5);

// "six tokens of 'Your journey starts with one step'": the (1, 6, 3) embeddings of DESIGN.md step 5.
Tensor journey_embeddings();

}  // namespace ap::testing
