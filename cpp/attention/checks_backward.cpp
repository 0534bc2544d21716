#include "attention/checks_backward.h"

#include "attention/check_helpers.h"

namespace ap {

namespace {
// Every check message starts with the JS function's name and ": " (check_helpers.h); the forward's checks
// speak for the backward under the backward's name.
std::string renamed(std::string message, const std::string& forward, const std::string& backward) {
  if (message.empty()) return message;
  return backward + message.substr(forward.size());
}

// The teaching path: the forward is recomputed with its stages.
AttentionOptions with_stages(const AttentionOptions& options) {
  AttentionOptions teaching = options;
  teaching.intermediates = true;
  return teaching;
}

std::size_t count(const ProjectionWeights& w) {
  std::size_t n = 0;
  for (const Tensor* t : {&w.query, &w.key, &w.value, &w.query_bias, &w.key_bias, &w.value_bias, &w.out_weight,
                          &w.out_bias})
    n += t->element_count();
  return n;
}

struct Sizes {
  int batch, heads, rows, cols, d_out;
};

// gradOutput has the forward output's shape (B, Tq, d_out); then the memory the backward holds at once:
// the recomputed forward (projections, their per-head copies, the (B, H, Tq, Tk) stages, context, output),
// the gradients of all of those, one slice's (Tq, Tk) work matrices, and the inputs' gradients.
std::string check_gradient_and_memory(const std::string& function, const Tensor& grad_output, const Sizes& s,
                                      bool cross, const AttentionOptions& options, double inputs_floats,
                                      std::size_t max_bytes) {
  const char* rows_name = cross ? "Tq" : "T";
  if (auto message = check_tensor(function, "gradOutput", grad_output, {"B", rows_name, "d_out"}); !message.empty()) {
    return message;
  }
  if (auto message = check_shape(function, "gradOutput", grad_output, {s.batch, s.rows, s.d_out},
                                 "[B=" + std::to_string(s.batch) + ", " + rows_name + "=" + std::to_string(s.rows) +
                                     ", d_out=" + std::to_string(s.d_out) + "] (the forward output's shape)");
      !message.empty())
    return message;
  const double projected = static_cast<double>(s.batch) * (s.rows + 2.0 * s.cols) * s.d_out;
  const double stage = static_cast<double>(s.batch) * s.heads * s.rows * s.cols;
  const double stages = 3 + (options.causal ? 1 : 0) + (options.dropout > 0 ? 1 : 0);
  const double per_slice = 4.0 * s.rows * s.cols;
  const double outputs = 3.0 * s.batch * s.rows * s.d_out;
  const double floats = 2.0 * inputs_floats + 4.0 * projected + stages * stage + 2.0 * outputs + per_slice;
  std::string sizes = "B=" + std::to_string(s.batch);
  if (s.heads > 1) sizes += ", H=" + std::to_string(s.heads);
  sizes += cross ? ", Tq=" + std::to_string(s.rows) + ", Tk=" + std::to_string(s.cols) : ", T=" + std::to_string(s.rows);
  return check_memory(function, sizes, floats, max_bytes);
}
}  // namespace

std::string check_self_attention_backward(const Tensor& x, const ProjectionWeights& weights, const Tensor& grad_output,
                                          const AttentionOptions& options, std::size_t max_bytes) {
  const std::string function = "selfAttentionBackward";
  if (auto message = renamed(check_self_attention(x, weights, options), "selfAttention", function); !message.empty()) {
    return message;
  }
  const int d_out = options.layout == WeightLayout::Linear ? weights.query.shape[0] : weights.query.shape[1];
  return check_gradient_and_memory(function, grad_output, {x.shape[0], 1, x.shape[1], x.shape[1], d_out}, false,
                                   options, static_cast<double>(x.element_count() + count(weights)), max_bytes);
}

std::string check_multihead_attention_stacked_backward(const Tensor& x, const StackedWeights& weights,
                                                       const Tensor& grad_output, const AttentionOptions& options,
                                                       std::size_t max_bytes) {
  const std::string function = "multiheadAttentionStackedBackward";
  if (auto message = renamed(check_multihead_attention_stacked(x, weights, with_stages(options)),
                             "multiheadAttentionStacked", function);
      !message.empty())
    return message;
  const int heads = static_cast<int>(weights.heads.size());
  double weights_floats = static_cast<double>(weights.out_weight.element_count() + weights.out_bias.element_count());
  for (const ProjectionWeights& head : weights.heads) weights_floats += static_cast<double>(count(head));
  return check_gradient_and_memory(function, grad_output,
                                   {x.shape[0], heads, x.shape[1], x.shape[1], heads * weights.heads[0].query.shape[1]},
                                   false, options, static_cast<double>(x.element_count()) + weights_floats, max_bytes);
}

std::string check_multihead_attention_split_backward(const Tensor& x, const ProjectionWeights& weights,
                                                     const Tensor& grad_output, const AttentionOptions& options,
                                                     std::size_t max_bytes) {
  const std::string function = "multiheadAttentionSplitBackward";
  if (auto message = renamed(check_multihead_attention_split(x, weights, with_stages(options)),
                             "multiheadAttentionSplit", function);
      !message.empty())
    return message;
  return check_gradient_and_memory(function, grad_output,
                                   {x.shape[0], options.heads, x.shape[1], x.shape[1], weights.query.shape[1]}, false,
                                   options, static_cast<double>(x.element_count() + count(weights)), max_bytes);
}

std::string check_multihead_attention_fused_backward(const Tensor& x, const FusedWeights& weights,
                                                     const Tensor& grad_output, const AttentionOptions& options,
                                                     std::size_t max_bytes) {
  const std::string function = "multiheadAttentionFusedBackward";
  if (auto message = renamed(check_multihead_attention_fused(x, weights, with_stages(options)),
                             "multiheadAttentionFused", function);
      !message.empty())
    return message;
  const int d_out = weights.in_projection.shape[1] / 3;
  const double weights_floats = static_cast<double>(weights.in_projection.element_count() + weights.in_bias.element_count() +
                                                    weights.out_weight.element_count() + weights.out_bias.element_count());
  // beside the shared estimate: the (B, T, 3·d_out) projection and its gradient
  const double qkv = 6.0 * x.shape[0] * x.shape[1] * d_out;
  return check_gradient_and_memory(function, grad_output, {x.shape[0], options.heads, x.shape[1], x.shape[1], d_out},
                                   false, options, static_cast<double>(x.element_count()) + weights_floats + qkv,
                                   max_bytes);
}

std::string check_cross_attention_backward(const Tensor& x_query, const Tensor& x_context,
                                           const ProjectionWeights& weights, const Tensor& grad_output,
                                           const AttentionOptions& options, std::size_t max_bytes) {
  const std::string function = "crossAttentionBackward";
  if (auto message = renamed(check_cross_attention(x_query, x_context, weights, with_stages(options)), "crossAttention",
                             function);
      !message.empty())
    return message;
  const double inputs = static_cast<double>(x_query.element_count() + x_context.element_count() + count(weights));
  return check_gradient_and_memory(
      function, grad_output,
      {x_query.shape[0], options.heads, x_query.shape[1], x_context.shape[1], weights.query.shape[1]}, true, options,
      inputs, max_bytes);
}

}  // namespace ap
