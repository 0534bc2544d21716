#include "attention/projection_backward.h"

#include "attention/eigen_views.h"

namespace ap {

ProjectionBackward project_backward(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& grad_y,
                                    WeightLayout layout) {
  const int batch = x.shape[0], time = x.shape[1], d_in = x.shape[2];
  const int d_out = grad_y.shape[2];
  const int rows = batch * time;  // every token is one row of one big product, as in the forward

  ProjectionBackward gradients;
  gradients.x = zeros({batch, time, d_in});
  gradients.weight = zeros(weight.shape);
  const auto X = matrix_view(x, 0, rows, d_in);
  const auto dY = matrix_view(grad_y, 0, rows, d_out);
  auto dX = matrix_view(gradients.x, 0, rows, d_in);
  if (layout == WeightLayout::Matrix) {
    const auto W = matrix_view(weight, 0, d_in, d_out);
    // Y = X·W:  dX = dY·Wᵀ (B·T, d_out)·(d_out, d_in);  dW = Xᵀ·dY (d_in, B·T)·(B·T, d_out)
    dX.noalias() = dY * W.transpose();
    matrix_view(gradients.weight, 0, d_in, d_out).noalias() = X.transpose() * dY;
  } else {
    const auto W = matrix_view(weight, 0, d_out, d_in);
    // Y = X·Wᵀ:  dX = dY·W (B·T, d_out)·(d_out, d_in);  dW = dYᵀ·X (d_out, B·T)·(B·T, d_in)
    dX.noalias() = dY * W;
    matrix_view(gradients.weight, 0, d_out, d_in).noalias() = dY.transpose() * X;
  }
  // Y = … + b on every row: db = Σ_rows dY
  if (bias.present()) gradients.bias = sum_rows(grad_y);
  return gradients;
}

Tensor sum_rows(const Tensor& y) {
  const int d = y.shape.back();
  const int rows = static_cast<int>(y.element_count() / d);
  Tensor sum = zeros({d});
  MatrixView(sum.data.data(), 1, d) = matrix_view(y, 0, rows, d).colwise().sum();
  return sum;
}

void accumulate(Tensor& sum, const Tensor& term) {
  for (std::size_t i = 0; i < sum.data.size(); ++i) sum.data[i] += term.data[i];
}

}  // namespace ap
