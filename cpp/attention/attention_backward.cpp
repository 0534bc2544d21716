// The backward of steps 6–11: each function's forward passes, in reverse. The attention itself (the part
// every form shares) is head_attention_backward.cpp; here are the projections around it. Pure math:
// the fast entry points (cpp/paths/fast_attention_backward.h) run the fused backward where the options allow it.
#include "attention/attention_backward.h"

#include <vector>

#include "attention/check_helpers.h"
#include "attention/checks_backward.h"
#include "attention/projection.h"
#include "attention/projection_backward.h"
#include "attention/head_attention_backward.h"

namespace ap {

namespace {
// The backward of query, key, value = X_q·Wq + bq, X_c·Wk + bk, X_c·Wv + bv, given dQ, dK, dV (B, T, d_out):
// fills the weights' gradients; returns dX_q and dX_c (the same tensor's two gradients add up for self-attention).
struct InputGradients {
  Tensor x_query;
  Tensor x_context;
};
InputGradients projections_backward(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& weights,
                                    const QueryKeyValueGradients& projected, WeightLayout layout,
                                    ProjectionWeights& weight_gradients) {
  ProjectionBackward dq = project_backward(x_query, weights.query, weights.query_bias, projected.query, layout);
  ProjectionBackward dk = project_backward(x_context, weights.key, weights.key_bias, projected.key, layout);
  ProjectionBackward dv = project_backward(x_context, weights.value, weights.value_bias, projected.value, layout);
  weight_gradients.query = std::move(dq.weight);
  weight_gradients.key = std::move(dk.weight);
  weight_gradients.value = std::move(dv.weight);
  weight_gradients.query_bias = std::move(dq.bias);
  weight_gradients.key_bias = std::move(dk.bias);
  weight_gradients.value_bias = std::move(dv.bias);
  // X_c feeds both K and V: dX_c = dK·Wkᵀ + dV·Wvᵀ
  accumulate(dk.x, dv.x);
  return {std::move(dq.x), std::move(dk.x)};
}

// 1. Q = X_q·Wq + bq, K = X_c·Wk + bk, V = X_c·Wv + bv (as the forward), 2ᵀ. attend_heads backwards,
// 1ᵀ. the projections backwards: dX_q, dX_c and every weight's gradient (out_* absent when the forward had none).
struct AttentionGradients {
  InputGradients inputs;
  ProjectionWeights weights;
};
AttentionGradients projected_attention_backward(const Tensor& x_query, const Tensor& x_context,
                                                const ProjectionWeights& weights, int heads, const Tensor& out_weight,
                                                const Tensor& out_bias, const Tensor& grad_output,
                                                const AttentionOptions& options, WeightLayout layout) {
  const Tensor query = project(x_query, weights.query, weights.query_bias, layout);
  const Tensor key = project(x_context, weights.key, weights.key_bias, layout);
  const Tensor value = project(x_context, weights.value, weights.value_bias, layout);
  const HeadsGradients attended =
      attend_heads_backward(query, key, value, heads, out_weight, out_bias, grad_output, options);
  AttentionGradients gradients;
  gradients.inputs = projections_backward(x_query, x_context, weights, attended.projected, layout, gradients.weights);
  gradients.weights.out_weight = attended.out_weight;
  gradients.weights.out_bias = attended.out_bias;
  return gradients;
}

// Self-attention and split: X feeds Q, K and V, so dX = dQ·Wqᵀ + dK·Wkᵀ + dV·Wvᵀ.
ProjectionGradients self_projected_attention_backward(const Tensor& x, const ProjectionWeights& weights, int heads,
                                                      const Tensor& out_weight, const Tensor& out_bias,
                                                      const Tensor& grad_output, const AttentionOptions& options,
                                                      WeightLayout layout) {
  AttentionGradients attended =
      projected_attention_backward(x, x, weights, heads, out_weight, out_bias, grad_output, options, layout);
  accumulate(attended.inputs.x_query, attended.inputs.x_context);
  ProjectionGradients gradients;
  gradients.x = std::move(attended.inputs.x_query);
  gradients.weights = std::move(attended.weights);
  return gradients;
}
}  // namespace

namespace unchecked {

ProjectionGradients self_attention_backward(const Tensor& x, const ProjectionWeights& weights,
                                            const Tensor& grad_output, const AttentionOptions& options) {
  // 1. project (as the forward) and 2. attend as one head, without an output projection, backwards:
  // (B, T, d_out) is (B, T, 1·d_out)
  return self_projected_attention_backward(x, weights, 1, {}, {}, grad_output, options, options.layout);
}

ProjectionGradients multihead_attention_split_backward(const Tensor& x, const ProjectionWeights& weights,
                                                       const Tensor& grad_output,
                                                       const AttentionOptions& options) {
  // 1. one projection each for Q, K, V: (B, T, d_in)·(d_in, d_out) -> (B, T, d_out); 2ᵀ. the output
  // projection, merge, attention per head and split, backwards; 1ᵀ. dW = Xᵀ·d(QKV), db = Σ_rows d(QKV)
  return self_projected_attention_backward(x, weights, options.heads, weights.out_weight, weights.out_bias,
                                           grad_output, options, WeightLayout::Matrix);
}

StackedGradients multihead_attention_stacked_backward(const Tensor& x, const StackedWeights& weights,
                                                      const Tensor& grad_output,
                                                      const AttentionOptions& options) {
  const int heads = static_cast<int>(weights.heads.size());
  // 1. every head projects on its own, and 2. the heads lie side by side (split's layout), as the forward
  const QueryKeyValue projected = project_heads(x, weights.heads);
  const HeadsGradients joined = attend_heads_backward(projected.query, projected.key, projected.value, heads,
                                                      weights.out_weight, weights.out_bias, grad_output, options);

  // 2ᵀ. joining the heads side by side: head h's gradient is column block h, (B, T, d_out) -> (B, T, d_head)
  // 1ᵀ. each head's projections backwards; X feeds every head: dX = Σ_h (dQ_h·Wq_hᵀ + dK_h·Wk_hᵀ + dV_h·Wv_hᵀ)
  StackedGradients gradients;
  gradients.x = zeros(x.shape);
  const int d_head = joined.projected.query.shape[2] / heads;
  for (int h = 0; h < heads; ++h) {
    const QueryKeyValueGradients head{column_block(joined.projected.query, h * d_head, d_head),
                                      column_block(joined.projected.key, h * d_head, d_head),
                                      column_block(joined.projected.value, h * d_head, d_head)};
    ProjectionWeights head_gradients;
    InputGradients inputs = projections_backward(x, x, weights.heads[h], head, WeightLayout::Matrix, head_gradients);
    accumulate(gradients.x, inputs.x_query);
    accumulate(gradients.x, inputs.x_context);
    gradients.weights.heads.push_back(std::move(head_gradients));
  }
  gradients.weights.out_weight = joined.out_weight;
  gradients.weights.out_bias = joined.out_bias;
  return gradients;
}

FusedGradients multihead_attention_fused_backward(const Tensor& x, const FusedWeights& weights,
                                                  const Tensor& grad_output, const AttentionOptions& options) {
  const int d_out = weights.in_projection.shape[1] / 3;
  // 1. one projection for all three, (B, T, d_in)·(d_in, 3·d_out), and 2. cut into [Q | K | V], as the forward
  const Tensor qkv = project(x, weights.in_projection, weights.in_bias);
  const HeadsGradients heads =
      attend_heads_backward(column_block(qkv, 0, d_out), column_block(qkv, d_out, d_out),
                            column_block(qkv, 2 * d_out, d_out), options.heads, weights.out_weight, weights.out_bias,
                            grad_output, options);

  // 2ᵀ. the cut's backward puts the three gradients back side by side: d(QKV) = [dQ | dK | dV] (B, T, 3·d_out)
  const Tensor grad_qkv =
      concatenate_columns({heads.projected.query, heads.projected.key, heads.projected.value});
  // 1ᵀ. dX = d(QKV)·W_inᵀ, dW_in = Xᵀ·d(QKV) = [dWq | dWk | dWv], db_in = Σ_rows d(QKV)
  ProjectionBackward in = project_backward(x, weights.in_projection, weights.in_bias, grad_qkv);
  FusedGradients gradients;
  gradients.x = std::move(in.x);
  gradients.weights.in_projection = std::move(in.weight);
  gradients.weights.in_bias = std::move(in.bias);
  gradients.weights.out_weight = heads.out_weight;
  gradients.weights.out_bias = heads.out_bias;
  return gradients;
}

CrossAttentionGradients cross_attention_backward(const Tensor& x_query, const Tensor& x_context,
                                                 const ProjectionWeights& weights, const Tensor& grad_output,
                                                 const AttentionOptions& options) {
  // 1. queries from one sequence, keys and values from the other, as the forward, and backwards:
  // dX_q = dQ·Wqᵀ;  dX_c = dK·Wkᵀ + dV·Wvᵀ
  AttentionGradients attended =
      projected_attention_backward(x_query, x_context, weights, options.heads, weights.out_weight, weights.out_bias,
                                   grad_output, options, WeightLayout::Matrix);
  CrossAttentionGradients gradients;
  gradients.x_query = std::move(attended.inputs.x_query);
  gradients.x_context = std::move(attended.inputs.x_context);
  gradients.weights = std::move(attended.weights);
  return gradients;
}

}  // namespace unchecked

ProjectionGradients self_attention_backward(const Tensor& x, const ProjectionWeights& weights,
                                            const Tensor& grad_output, const AttentionOptions& options) {
  return checked(check_self_attention_backward, unchecked::self_attention_backward, x, weights, grad_output, options);
}

ProjectionGradients multihead_attention_split_backward(const Tensor& x, const ProjectionWeights& weights,
                                                       const Tensor& grad_output, const AttentionOptions& options) {
  return checked(check_multihead_attention_split_backward, unchecked::multihead_attention_split_backward,
                 x, weights, grad_output, options);
}

StackedGradients multihead_attention_stacked_backward(const Tensor& x, const StackedWeights& weights,
                                                      const Tensor& grad_output, const AttentionOptions& options) {
  return checked(check_multihead_attention_stacked_backward, unchecked::multihead_attention_stacked_backward,
                 x, weights, grad_output, options);
}

FusedGradients multihead_attention_fused_backward(const Tensor& x, const FusedWeights& weights,
                                                  const Tensor& grad_output, const AttentionOptions& options) {
  return checked(check_multihead_attention_fused_backward, unchecked::multihead_attention_fused_backward,
                 x, weights, grad_output, options);
}

CrossAttentionGradients cross_attention_backward(const Tensor& x_query, const Tensor& x_context,
                                                 const ProjectionWeights& weights, const Tensor& grad_output,
                                                 const AttentionOptions& options) {
  return checked(check_cross_attention_backward, unchecked::cross_attention_backward,
                 x_query, x_context, weights, grad_output, options);
}

}  // namespace ap
