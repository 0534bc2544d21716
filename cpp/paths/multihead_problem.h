// Internal to cpp/paths: a multi-head call's sizes, inputs, output projection and scale as the fused kernels'
// problem, filled once for the forward (fast_attention.cpp) and the backward (fast_attention_backward.cpp).
#pragma once

#include "attention/options.h"
#include "attention/tensor.h"
#include "kernels/multihead_fast.h"

namespace ap {

// A (d_in, d_out) matrix with its own row stride, and its bias (d_out) or none.
kernels::Projection projection_of(const Tensor& weight, const Tensor& bias);

// The problem's sizes and inputs; the caller fills in the query, key and value projections.
kernels::MultiheadProblem multihead_problem(const Tensor& x_query, const Tensor& x_context, int d_out, int heads,
                                            const Tensor& out_weight, const Tensor& out_bias,
                                            const AttentionOptions& options);

}  // namespace ap
