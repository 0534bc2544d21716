// The chain rule through scaled_dot_product_attention, per (b, h) slice, with P the weights after dropout:
//   forward:  S = Q·Kᵀ → S' = S·c (c = 1/√d_k / temperature) → M = mask(S') → W = softmax(M) → P = dropout(W)
//             → O = P·V
//   backward: dP = dO·Vᵀ,  dV = Pᵀ·dO
//             dW = dP ⊙ keep/(1 − p)
//             dM = W ⊙ (dW − rowsum(dW ⊙ W))          (softmax: ∂W_j/∂M_k = W_j(δ_jk − W_k))
//             dS' = dM where the mask kept the score, 0 where it replaced it
//             dS = dS'·c
//             dQ = dS·K,  dK = dSᵀ·Q
#include "attention/head_attention_backward.h"

#include <cmath>
#include <cstdint>

#include "attention/dropout.h"
#include "attention/eigen_views.h"
#include "attention/projection.h"
#include "attention/projection_backward.h"
#include "attention/head_attention.h"
#include "attention/softmax.h"

namespace ap {

namespace {
using ColumnVector = Eigen::VectorXf;

// Entries j > i are query i's future (top-left aligned, as the forward's mask).
template <class Block>
void zero_future(Block&& block) {
  for (int i = 0; i < block.rows(); ++i)
    for (int j = i + 1; j < block.cols(); ++j) block(i, j) = 0.0f;
}

// region: softmax-backward
// W = softmax(M) row by row → dM = W ⊙ (dW − rowsum(dW ⊙ W)), the softmax's Jacobian applied to dW.
Matrix softmax_backward(const Matrix& W, const Matrix& dW) {
  const ColumnVector along = dW.cwiseProduct(W).rowwise().sum();  // (Tq): each row's Σ_k dW_k·W_k
  return W.cwiseProduct(dW.colwise() - along);
}
// endregion
}  // namespace

QueryKeyValueGradients attention_per_head_backward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                   const AttentionResult& forward, const Tensor& grad_context,
                                                   const AttentionOptions& options) {
  const int batch = query.shape[0], heads = query.shape[1], rows = query.shape[2], d_k = query.shape[3];
  const int cols = key.shape[2], d_v = value.shape[3];
  const std::size_t block = static_cast<std::size_t>(rows) * cols;
  const float factor = (options.scale ? 1.0f / std::sqrt(static_cast<float>(d_k)) : 1.0f) / options.temperature;
  const Tensor& dropped = options.dropout > 0.0f ? forward.dropped : forward.weights;
  // the forward's mask: the same generator, seed and flat (B, H, Tq, Tk) index
  const DropoutKeeps keeps(options.dropout_rng, options.seed, options.dropout,
                           options.dropout > 0.0f ? forward.weights.data.size() : 0);

  QueryKeyValueGradients gradients{zeros(query.shape), zeros(key.shape), zeros(value.shape)};
  for (int s = 0; s < batch * heads; ++s) {
    const std::size_t q_at = static_cast<std::size_t>(s) * rows * d_k, k_at = static_cast<std::size_t>(s) * cols * d_k;
    const std::size_t v_at = static_cast<std::size_t>(s) * cols * d_v, o_at = static_cast<std::size_t>(s) * rows * d_v;
    const auto Q = matrix_view(query, q_at, rows, d_k);
    const auto K = matrix_view(key, k_at, cols, d_k);
    const auto V = matrix_view(value, v_at, cols, d_v);
    const auto W = matrix_view(forward.weights, s * block, rows, cols);
    const auto P = matrix_view(dropped, s * block, rows, cols);
    const auto dO = matrix_view(grad_context, o_at, rows, d_v);

    // region: values-backward
    // 6ᵀ. O = P·V:  dP = dO·Vᵀ (Tq, d_v)·(d_v, Tk) -> (Tq, Tk);  dV = Pᵀ·dO (Tk, Tq)·(Tq, d_v) -> (Tk, d_v)
    Matrix dW = dO * V.transpose();
    matrix_view(gradients.value, v_at, cols, d_v).noalias() = P.transpose() * dO;
    // endregion

    // 5ᵀ. dropout: P = W ⊙ keep/(1 − p), with the forward's mask
    if (options.dropout > 0.0f) {
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
          const std::size_t index = s * block + static_cast<std::size_t>(i) * cols + j;
          dW(i, j) = keeps(index) ? dW(i, j) * keeps.scale() : 0.0f;
        }
    }

    // 4ᵀ and 3ᵀ. softmax and mask, in the order the mask mode applied them
    Matrix dScaled;
    if (options.causal && options.mask == MaskMode::Renormalize) {
      // forward: A = softmax(S'), R = A with the future zeroed, W = R / rowsum(R)
      // W = R/r:  dR = (dW − rowsum(dW ⊙ W)) / r;  the zeroed future passes nothing: dA = dR, 0 in the future;
      // then the softmax: dS' = A ⊙ (dA − rowsum(dA ⊙ A)). (dS' is 0 in the future, up to rounding: W is
      // the '-inf' mask's softmax of the allowed scores, so the gradients are the same.)
      const auto R = matrix_view(forward.masked, s * block, rows, cols);
      Matrix A = matrix_view(forward.scaled, s * block, rows, cols);
      for (int i = 0; i < rows; ++i) softmax_row(A.row(i).data(), cols, Normalization::Stable);
      const ColumnVector r = R.rowwise().sum();
      const ColumnVector along = dW.cwiseProduct(W).rowwise().sum();
      Matrix dA = dW.colwise() - along;
      for (int i = 0; i < rows; ++i) dA.row(i) = (r(i) == 0.0f) ? RowVector::Zero(cols) : RowVector(dA.row(i) / r(i));
      zero_future(dA);
      dScaled = softmax_backward(A, dA);
    } else {
      // no mask, '-inf' or 'zero': W = softmax(M); the masked entries of M are constants (−∞ or 0), so
      // their gradient stops there: dS' = dM with the future zeroed ('-inf': W is 0 there, dM already 0)
      dScaled = softmax_backward(W, dW);
      if (options.causal) zero_future(dScaled);
    }

    // region: scores-backward
    // 2ᵀ. S' = S·c: dS = dS'·c
    const Matrix dS = dScaled * factor;

    // 1ᵀ. S = Q·Kᵀ:  dQ = dS·K (Tq, Tk)·(Tk, d_k);  dK = dSᵀ·Q (Tk, Tq)·(Tq, d_k)
    matrix_view(gradients.query, q_at, rows, d_k).noalias() = dS * K;
    matrix_view(gradients.key, k_at, cols, d_k).noalias() = dS.transpose() * Q;
    // endregion
  }
  return gradients;
}

HeadsGradients attend_heads_backward(const Tensor& query, const Tensor& key, const Tensor& value, int heads,
                                     const Tensor& out_weight, const Tensor& out_bias, const Tensor& grad_output,
                                     const AttentionOptions& options) {
  AttentionOptions with_stages = options;
  with_stages.intermediates = true;
  const AttentionResult forward = attend_heads(query, key, value, heads, out_weight, out_bias, with_stages);

  HeadsGradients gradients;
  // 4ᵀ. output = context·Wo + bo:  dContext = dOut·Woᵀ, dWo = contextᵀ·dOut, dbo = Σ_rows dOut
  //     (no out_weight: output = context (+ bo), dContext = dOut)
  Tensor grad_context = grad_output;
  if (out_weight.present()) {
    ProjectionBackward out = project_backward(forward.context, out_weight, out_bias, grad_output);
    grad_context = std::move(out.x);
    gradients.out_weight = std::move(out.weight);
    gradients.out_bias = std::move(out.bias);
  } else if (out_bias.present()) {
    gradients.out_bias = sum_rows(grad_output);
  }

  // 3ᵀ. merge was (B, H, Tq, d_head) -> (B, Tq, d_out); its backward is the split: (B, Tq, d_out) -> (B, H, Tq, d_head)
  const Tensor grad_per_head = split_heads(grad_context, heads);

  // 2ᵀ. attention in every head at once → dQ, dK, dV (B, H, T, d_head)
  const QueryKeyValueGradients per_head = attention_per_head_backward(
      forward.query, forward.key, forward.value, forward, grad_per_head, options);

  // 1ᵀ. split was (B, T, d_out) -> (B, H, T, d_head); its backward is the merge: (B, H, T, d_head) -> (B, T, d_out)
  gradients.projected = {merge_heads(per_head.query), merge_heads(per_head.key), merge_heads(per_head.value)};
  return gradients;
}

}  // namespace ap
