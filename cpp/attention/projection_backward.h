// Internal: the backward of the linear maps (projection.h) that self, multi-head and cross attention share.
#pragma once

#include "attention/options.h"
#include "attention/tensor.h"

namespace ap {

// The gradients of Y = X·W + b, one per input of project().
struct ProjectionBackward {
  Tensor x;       // (B, T, d_in)
  Tensor weight;  // weight's shape: (d_in, d_out), 'linear' (d_out, d_in)
  Tensor bias;    // (d_out), absent when the forward had no bias
};

// x: (B, T, d_in), weight, bias as project(); grad_y (B, T, d_out) → dX = dY·Wᵀ, dW = Xᵀ·dY, db = Σ_rows dY
// ('linear', Y = X·Wᵀ: dX = dY·W, dW = dYᵀ·X).
ProjectionBackward project_backward(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& grad_y,
                                    WeightLayout layout = WeightLayout::Matrix);

// Σ over the B·T rows of a (B, T, d) tensor → (d): the gradient of a bias added to every row.
Tensor sum_rows(const Tensor& y);

// sum += term, element by element (same shapes): gradients of one tensor used twice add up.
void accumulate(Tensor& sum, const Tensor& term);

}  // namespace ap
