// Internal: the linear maps and head reshapes that self, multi-head and cross attention share.
#pragma once

#include <vector>

#include "attention/options.h"
#include "attention/tensor.h"
#include "attention/weights.h"

namespace ap {

// x: (B, T, d_in), weight (d_in, d_out) ('linear': (d_out, d_in)), bias (d_out) or absent
// → (B, T, d_out) = X·W + b ('linear': X·Wᵀ + b).
Tensor project(const Tensor& x, const Tensor& weight, const Tensor& bias,
               WeightLayout layout = WeightLayout::Matrix);

// (B, T, H·d_head) -> (B, H, T, d_head): head h takes column block h.
Tensor split_heads(const Tensor& y, int heads);

// (B, H, T, d_head) -> (B, T, H·d_head): the inverse of split_heads.
Tensor merge_heads(const Tensor& y);

// Columns [first, first + count) of a (rows, cols) matrix → (rows, count); of a (cols) bias → (count).
// An absent tensor stays absent.
Tensor column_block(const Tensor& matrix_or_bias, int first, int count);

// Each (B, T, d_i) → (B, T, Σ d_i), side by side along the last axis.
Tensor concatenate_columns(const std::vector<Tensor>& parts);

struct QueryKeyValue {
  Tensor query;
  Tensor key;
  Tensor value;
};

// x: (B, T, d_in), H heads' own weights (d_in, d_head) → Q, K, V, each (B, T, H·d_head). Every head projects
// on its own, Q_h = X·Wq_h + bq_h (B, T, d_head), and likewise K_h, V_h; the heads lie side by side, head h
// in column block h, exactly where split's single projection puts it.
QueryKeyValue project_heads(const Tensor& x, const std::vector<ProjectionWeights>& heads);

}  // namespace ap
