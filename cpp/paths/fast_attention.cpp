#include "paths/fast_attention.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "attention/check_helpers.h"
#include "attention/cross_attention.h"
#include "attention/masks.h"
#include "attention/multihead.h"
#include "kernels/attention_heads.h"
#include "kernels/multihead_fast.h"
#include "paths/multihead_problem.h"

namespace ap {

bool runs_fused_kernel(const AttentionOptions& options) {
  if (auto message = check_planned_path("the fused kernel", options); !message.empty()) throw std::logic_error(message);
  return plans_fused_kernel(options);
}

namespace {
const float* data_or_null(const Tensor& tensor) { return tensor.present() ? tensor.data.data() : nullptr; }
}  // namespace

kernels::Projection projection_of(const Tensor& weight, const Tensor& bias) {
  return {data_or_null(weight), weight.present() ? weight.shape[1] : 0, data_or_null(bias)};
}

kernels::MultiheadProblem multihead_problem(const Tensor& x_query, const Tensor& x_context, int d_out, int heads,
                                            const Tensor& out_weight, const Tensor& out_bias,
                                            const AttentionOptions& options) {
  kernels::MultiheadProblem problem;
  problem.x_query = x_query.data.data();
  problem.x_context = x_context.data.data();
  problem.batch = x_query.shape[0];
  problem.tq = x_query.shape[1];
  problem.tk = x_context.shape[1];
  problem.d_query_in = x_query.shape[2];
  problem.d_context_in = x_context.shape[2];
  problem.d_out = d_out;
  problem.heads = heads;
  problem.out = projection_of(out_weight, out_bias);
  problem.causal = options.causal;
  // the kernel skips padded keys (checked: (B, Tk) of 0/1, and mask 'neg_inf')
  problem.key_padding = options.key_padding_mask.present() ? options.key_padding_mask.data.data() : nullptr;
  const int d_head = d_out / heads;
  problem.score_scale = (options.scale ? 1.0f / std::sqrt(static_cast<float>(d_head)) : 1.0f) / options.temperature;
  return problem;
}

namespace {

// Runs the fused pipeline → {output: (B, Tq, d_out)}.
AttentionResult run(const kernels::MultiheadProblem& problem) {
  AttentionResult result;
  result.output = zeros({problem.batch, problem.tq, problem.d_out});
  kernels::multihead_attention_fast(problem, result.output.data.data());
  return result;
}

// Head h's (d_in, d_head) matrices side by side: H × (d_in, d_head) -> (d_in, H·d_head), split's layout.
Tensor join_heads(const std::vector<ProjectionWeights>& heads, const Tensor ProjectionWeights::*matrix) {
  const int rows = (heads[0].*matrix).shape[0], d_head = (heads[0].*matrix).shape[1];
  const int width = d_head * static_cast<int>(heads.size());
  Tensor joined = zeros({rows, width});
  for (std::size_t h = 0; h < heads.size(); ++h) {
    const Tensor& part = heads[h].*matrix;
    for (int r = 0; r < rows; ++r) {
      std::copy_n(part.data.begin() + static_cast<std::size_t>(r) * d_head, d_head,
                  joined.data.begin() + static_cast<std::size_t>(r) * width + h * d_head);
    }
  }
  return joined;
}

// The heads' biases side by side, H × (d_head) -> (H·d_head), absent ones as zeros; absent when none has one.
Tensor join_biases(const std::vector<ProjectionWeights>& heads, const Tensor ProjectionWeights::*bias, int d_head) {
  const bool any = std::any_of(heads.begin(), heads.end(), [&](const ProjectionWeights& head) { return (head.*bias).present(); });
  if (!any) return {};
  Tensor joined = zeros({d_head * static_cast<int>(heads.size())});
  for (std::size_t h = 0; h < heads.size(); ++h) {
    const Tensor& part = heads[h].*bias;
    if (part.present()) std::copy(part.data.begin(), part.data.end(), joined.data.begin() + h * d_head);
  }
  return joined;
}

}  // namespace

AttentionResult fused_kernel_attention(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& weights,
                                       const AttentionOptions& options) {
  kernels::MultiheadProblem problem =
      multihead_problem(x_query, x_context, weights.query.shape[1], options.heads, weights.out_weight, weights.out_bias, options);
  problem.query = projection_of(weights.query, weights.query_bias);
  problem.key = projection_of(weights.key, weights.key_bias);
  problem.value = projection_of(weights.value, weights.value_bias);
  return run(problem);
}

AttentionResult fused_kernel_attention(const Tensor& x, const FusedWeights& weights, const AttentionOptions& options) {
  const int stride = weights.in_projection.shape[1], d_out = stride / 3;
  kernels::MultiheadProblem problem = multihead_problem(x, x, d_out, options.heads, weights.out_weight, weights.out_bias, options);
  // Q, K and V are the three column blocks of [Wq | Wk | Wv], read in place with the full row stride.
  const float* in = weights.in_projection.data.data();
  const float* bias = data_or_null(weights.in_bias);
  problem.query = {in, stride, bias};
  problem.key = {in + d_out, stride, bias ? bias + d_out : nullptr};
  problem.value = {in + 2 * d_out, stride, bias ? bias + 2 * d_out : nullptr};
  return run(problem);
}

AttentionResult fused_kernel_attention(const Tensor& x, const StackedWeights& weights, const AttentionOptions& options) {
  const int heads = static_cast<int>(weights.heads.size()), d_head = weights.heads[0].query.shape[1];
  ProjectionWeights joined;
  joined.query = join_heads(weights.heads, &ProjectionWeights::query);
  joined.key = join_heads(weights.heads, &ProjectionWeights::key);
  joined.value = join_heads(weights.heads, &ProjectionWeights::value);
  joined.query_bias = join_biases(weights.heads, &ProjectionWeights::query_bias, d_head);
  joined.key_bias = join_biases(weights.heads, &ProjectionWeights::key_bias, d_head);
  joined.value_bias = join_biases(weights.heads, &ProjectionWeights::value_bias, d_head);
  kernels::MultiheadProblem problem =
      multihead_problem(x, x, heads * d_head, heads, weights.out_weight, weights.out_bias, options);
  problem.query = projection_of(joined.query, joined.query_bias);
  problem.key = projection_of(joined.key, joined.key_bias);
  problem.value = projection_of(joined.value, joined.value_bias);
  return run(problem);
}

AttentionResult multihead_attention_stacked_fast(const Tensor& x, const StackedWeights& weights,
                                                const AttentionOptions& options) {
  if (runs_fused_kernel(options)) return fused_kernel_attention(x, weights, options);
  return unchecked::multihead_attention_stacked(x, weights, options);
}

AttentionResult multihead_attention_split_fast(const Tensor& x, const ProjectionWeights& weights,
                                              const AttentionOptions& options) {
  if (runs_fused_kernel(options)) return fused_kernel_attention(x, x, weights, options);
  return unchecked::multihead_attention_split(x, weights, options);
}

AttentionResult multihead_attention_fused_fast(const Tensor& x, const FusedWeights& weights, const AttentionOptions& options) {
  if (runs_fused_kernel(options)) return fused_kernel_attention(x, weights, options);
  return unchecked::multihead_attention_fused(x, weights, options);
}

AttentionResult cross_attention_fast(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& weights,
                                     const AttentionOptions& options) {
  if (runs_fused_kernel(options)) return fused_kernel_attention(x_query, x_context, weights, options);
  return unchecked::cross_attention(x_query, x_context, weights, options);
}

SdpaResult scaled_dot_product_attention_fast(const Tensor& query, const Tensor& key, const Tensor& value,
                                             const SdpaOptions& options) {
  const int rank = query.rank();
  const int L = query.shape[rank - 2], E = query.shape[rank - 1], S = key.shape[rank - 2], Ev = value.shape[rank - 1];
  if (sdpa_plans_fused(E, Ev, options) && !sdpa_fused_applies(E, Ev, options)) {
    throw std::logic_error("scaledDotProductAttention: the call was planned onto the fused kernel, whose rule does not take it");
  }
  if (!sdpa_plans_fused(E, Ev, options)) return unchecked::scaled_dot_product_attention(query, key, value, options);
  int batch = 1;
  for (int a = 0; a < rank - 2; ++a) batch *= query.shape[a];
  std::vector<int> output_shape(query.shape.begin(), query.shape.end() - 1);
  output_shape.push_back(Ev);
  SdpaResult result;
  result.output = Tensor{output_shape, std::vector<float>(static_cast<std::size_t>(batch) * L * Ev, 0.0f)};
  kernels::AttentionHeads problem;
  problem.query = query.data.data();
  problem.query_stride = E;
  problem.key = key.data.data();
  problem.key_stride = E;
  problem.value = value.data.data();
  problem.value_stride = Ev;
  problem.context = result.output.data.data();
  problem.context_stride = Ev;
  problem.batch = batch;
  problem.tq = L;
  problem.tk = S;
  problem.heads = 1;
  problem.d_head = E;
  problem.score_scale = options.has_scale ? options.scale : 1.0f / std::sqrt(static_cast<float>(E));
  problem.causal = options.is_causal;
  kernels::attention_heads_fused(problem);
  return result;
}

}  // namespace ap
