#include "paths/fast_attention_backward.h"

#include <stdexcept>
#include <vector>

#include "attention/fused_rule.h"
#include "paths/fast_attention.h"
#include "attention/projection.h"
#include "kernels/multihead_backward_fast.h"
#include "paths/multihead_problem.h"

namespace ap {

namespace {

// The fused backward where the planned path (or its rule) says so; a plan its rule refuses is a bug, said loudly.
bool runs_fused_backward(const AttentionOptions& options) {
  if (auto message = check_planned_backward_path("the fused backward kernel", options); !message.empty())
    throw std::logic_error(message);
  return plans_fused_backward(options);
}

const float* data_or_null(const Tensor& tensor) { return tensor.present() ? tensor.data.data() : nullptr; }
float* data_or_null(Tensor& tensor) { return tensor.present() ? tensor.data.data() : nullptr; }

// A tensor of zeros shaped like `like`, absent when `like` is.
Tensor zeros_like(const Tensor& like) { return like.present() ? zeros(like.shape) : Tensor{}; }

// The forward problem (sizes, output projection, scale) and the output projection's gradients.
kernels::MultiheadBackwardProblem problem_for(const Tensor& x_query, const Tensor& x_context, int d_out, int heads,
                                              const Tensor& out_weight, const Tensor& out_bias,
                                              const Tensor& grad_output, const AttentionOptions& options,
                                              Tensor& grad_out_weight, Tensor& grad_out_bias) {
  kernels::MultiheadBackwardProblem g;
  g.forward = multihead_problem(x_query, x_context, d_out, heads, out_weight, out_bias, options);
  g.grad_output = grad_output.data.data();
  grad_out_weight = zeros_like(out_weight);
  grad_out_bias = zeros_like(out_bias);
  g.out = {data_or_null(grad_out_weight), d_out, data_or_null(grad_out_bias)};
  return g;
}

// A (d_in, d_out) projection and where its gradients go (allocated here, shaped like the weights).
void set_projection(const Tensor& weight, const Tensor& bias, Tensor& grad_weight, Tensor& grad_bias,
                    kernels::Projection& forward, kernels::ProjectionGradient& gradient) {
  grad_weight = zeros(weight.shape);
  grad_bias = zeros_like(bias);
  forward = projection_of(weight, bias);
  gradient = {grad_weight.data.data(), weight.shape[1], data_or_null(grad_bias)};
}

// split and cross share everything but whether the two inputs are one.
void run_projection_weights(const Tensor& x_query, const Tensor& x_context, bool shared, const ProjectionWeights& weights,
                            const Tensor& grad_output, const AttentionOptions& options, ProjectionWeights& gradients,
                            Tensor& grad_x_query, Tensor& grad_x_context) {
  kernels::MultiheadBackwardProblem g =
      problem_for(x_query, x_context, weights.query.shape[1], options.heads, weights.out_weight, weights.out_bias,
                  grad_output, options, gradients.out_weight, gradients.out_bias);
  set_projection(weights.query, weights.query_bias, gradients.query, gradients.query_bias, g.forward.query, g.query);
  set_projection(weights.key, weights.key_bias, gradients.key, gradients.key_bias, g.forward.key, g.key);
  set_projection(weights.value, weights.value_bias, gradients.value, gradients.value_bias, g.forward.value, g.value);
  g.shared_input = shared;
  grad_x_query = zeros(x_query.shape);
  g.grad_x_query = grad_x_query.data.data();
  if (!shared) {
    grad_x_context = zeros(x_context.shape);
    g.grad_x_context = grad_x_context.data.data();
  }
  kernels::multihead_attention_backward_fast(g);
}

// (rows, cols) → (1, rows, cols) and back: concatenate_columns and column_block work on the last axis.
Tensor as_batch_of_one(Tensor t) {
  t.shape.insert(t.shape.begin(), 1);
  return t;
}
Tensor drop_batch_axis(Tensor t) {
  t.shape.erase(t.shape.begin());
  return t;
}

}  // namespace

ProjectionGradients fused_kernel_backward_split(const Tensor& x, const ProjectionWeights& weights,
                                                const Tensor& grad_output, const AttentionOptions& options) {
  ProjectionGradients gradients;
  Tensor unused;
  run_projection_weights(x, x, true, weights, grad_output, options, gradients.weights, gradients.x, unused);
  return gradients;
}

CrossAttentionGradients fused_kernel_backward_cross(const Tensor& x_query, const Tensor& x_context,
                                                    const ProjectionWeights& weights, const Tensor& grad_output,
                                                    const AttentionOptions& options) {
  CrossAttentionGradients gradients;
  run_projection_weights(x_query, x_context, false, weights, grad_output, options, gradients.weights,
                         gradients.x_query, gradients.x_context);
  return gradients;
}

FusedGradients fused_kernel_backward_fused(const Tensor& x, const FusedWeights& weights, const Tensor& grad_output,
                                           const AttentionOptions& options) {
  const int stride = weights.in_projection.shape[1], d_out = stride / 3;
  FusedGradients gradients;
  kernels::MultiheadBackwardProblem g = problem_for(x, x, d_out, options.heads, weights.out_weight, weights.out_bias,
                                                    grad_output, options, gradients.weights.out_weight,
                                                    gradients.weights.out_bias);
  gradients.weights.in_projection = zeros(weights.in_projection.shape);
  gradients.weights.in_bias = zeros_like(weights.in_bias);
  // Q, K and V are the column blocks of [Wq | Wk | Wv], read in place; so are their gradients, written in place
  const float* in = weights.in_projection.data.data();
  const float* bias = data_or_null(weights.in_bias);
  float* grad_in = gradients.weights.in_projection.data.data();
  float* grad_bias = data_or_null(gradients.weights.in_bias);
  kernels::Projection* forward[3] = {&g.forward.query, &g.forward.key, &g.forward.value};
  kernels::ProjectionGradient* gradient[3] = {&g.query, &g.key, &g.value};
  for (int part = 0; part < 3; ++part) {
    *forward[part] = {in + part * d_out, stride, bias ? bias + part * d_out : nullptr};
    *gradient[part] = {grad_in + part * d_out, stride, grad_bias ? grad_bias + part * d_out : nullptr};
  }
  g.shared_input = true;
  gradients.x = zeros(x.shape);
  g.grad_x_query = gradients.x.data.data();
  kernels::multihead_attention_backward_fast(g);
  return gradients;
}

StackedGradients fused_kernel_backward_stacked(const Tensor& x, const StackedWeights& weights,
                                               const Tensor& grad_output, const AttentionOptions& options) {
  const int heads = static_cast<int>(weights.heads.size()), d_head = weights.heads[0].query.shape[1];
  // H × (d_in, d_head) -> (d_in, H·d_head): head h is column block h, split's layout; absent biases as zeros
  // where another head has one
  ProjectionWeights joined;
  const auto join = [&](Tensor ProjectionWeights::*member, bool bias) {
    bool any = false;
    for (const ProjectionWeights& head : weights.heads) any = any || (head.*member).present();
    if (!any) return Tensor{};
    std::vector<Tensor> parts;
    for (const ProjectionWeights& head : weights.heads) {
      const Tensor& part = head.*member;
      parts.push_back(as_batch_of_one(part.present() ? part : zeros({d_head})));
      if (bias) parts.back().shape.insert(parts.back().shape.begin(), 1);  // (d_head) -> (1, 1, d_head)
    }
    Tensor all = drop_batch_axis(concatenate_columns(parts));
    if (bias) all = drop_batch_axis(all);
    return all;
  };
  joined.query = join(&ProjectionWeights::query, false);
  joined.key = join(&ProjectionWeights::key, false);
  joined.value = join(&ProjectionWeights::value, false);
  joined.query_bias = join(&ProjectionWeights::query_bias, true);
  joined.key_bias = join(&ProjectionWeights::key_bias, true);
  joined.value_bias = join(&ProjectionWeights::value_bias, true);
  joined.out_weight = weights.out_weight;
  joined.out_bias = weights.out_bias;
  AttentionOptions with_heads = options;
  with_heads.heads = heads;
  const ProjectionGradients all = fused_kernel_backward_split(x, joined, grad_output, with_heads);

  // (d_in, H·d_head) -> H × (d_in, d_head): head h's gradient is column block h; a bias it lacked has none
  StackedGradients gradients;
  gradients.x = all.x;
  for (int h = 0; h < heads; ++h) {
    const ProjectionWeights& head = weights.heads[h];
    ProjectionWeights grad;
    grad.query = column_block(all.weights.query, h * d_head, d_head);
    grad.key = column_block(all.weights.key, h * d_head, d_head);
    grad.value = column_block(all.weights.value, h * d_head, d_head);
    if (head.query_bias.present()) grad.query_bias = column_block(all.weights.query_bias, h * d_head, d_head);
    if (head.key_bias.present()) grad.key_bias = column_block(all.weights.key_bias, h * d_head, d_head);
    if (head.value_bias.present()) grad.value_bias = column_block(all.weights.value_bias, h * d_head, d_head);
    gradients.weights.heads.push_back(std::move(grad));
  }
  gradients.weights.out_weight = all.weights.out_weight;
  gradients.weights.out_bias = all.weights.out_bias;
  return gradients;
}

StackedGradients multihead_attention_stacked_backward_fast(const Tensor& x, const StackedWeights& weights,
                                                           const Tensor& grad_output, const AttentionOptions& options) {
  if (runs_fused_backward(options)) return fused_kernel_backward_stacked(x, weights, grad_output, options);
  return unchecked::multihead_attention_stacked_backward(x, weights, grad_output, options);
}

ProjectionGradients multihead_attention_split_backward_fast(const Tensor& x, const ProjectionWeights& weights,
                                                            const Tensor& grad_output, const AttentionOptions& options) {
  if (runs_fused_backward(options)) return fused_kernel_backward_split(x, weights, grad_output, options);
  return unchecked::multihead_attention_split_backward(x, weights, grad_output, options);
}

FusedGradients multihead_attention_fused_backward_fast(const Tensor& x, const FusedWeights& weights,
                                                       const Tensor& grad_output, const AttentionOptions& options) {
  if (runs_fused_backward(options)) return fused_kernel_backward_fused(x, weights, grad_output, options);
  return unchecked::multihead_attention_fused_backward(x, weights, grad_output, options);
}

CrossAttentionGradients cross_attention_backward_fast(const Tensor& x_query, const Tensor& x_context,
                                                      const ProjectionWeights& weights, const Tensor& grad_output,
                                                      const AttentionOptions& options) {
  if (runs_fused_backward(options)) {
    return fused_kernel_backward_cross(x_query, x_context, weights, grad_output, options);
  }
  return unchecked::cross_attention_backward(x_query, x_context, weights, grad_output, options);
}

}  // namespace ap
