#include "attention/checks_backward.h"

#include <vector>

#include "attention/check_helpers.h"
#include "attention/fast_attention.h"
#include "attention/registry_rules.h"

namespace ap {

namespace {
// Every check message starts with the JS function's name and ": " (check_helpers.h); the forward's checks
// speak for the backward under the backward's name.
std::string renamed(std::string message, const std::string& forward, const std::string& backward) {
  if (message.empty()) return message;
  return backward + message.substr(forward.size());
}

// The options the forward's check is asked with: the path the backward takes. The fused backward recomputes
// the forward on the fused path; the teaching backward recomputes it with its stages.
AttentionOptions forward_path(const AttentionOptions& options) {
  AttentionOptions forward = options;
  forward.intermediates = !fused_kernel_applies(options);
  return forward;
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

// gradOutput has the forward output's shape (B, Tq, d_out) (said as the forward output's shape, which no axis
// rule says); then the memory the backward holds at once, the registry's terms (BACKWARD_MEMORY) over the
// call's sizes and `inputs_floats`, its inputs' and weights' floats.
std::string check_gradient_and_memory(const std::string& function, const Tensor& grad_output, const Sizes& s,
                                      bool cross, const AttentionOptions& options, double inputs_floats,
                                      std::size_t max_bytes) {
  const std::vector<int> expected{s.batch, s.rows, s.d_out};
  if (grad_output.shape != expected) {
    const std::string got = grad_output.present() ? "has shape " + format_shape(grad_output.shape) : "is absent";
    return function + ": gradOutput " + got + "; expected " + format_shape(expected) +
           ", the shape of the forward's output";
  }
  if (auto message = check_tensor(function, "gradOutput", grad_output, {"B", cross ? "Tq" : "T", "d_out"});
      !message.empty())
    return message;
  const double stages = 3 + (options.causal ? 1 : 0) + (options.dropout > 0 ? 1 : 0);
  const MemorySizes memory{{"B", s.batch}, {"H", s.heads}, {"Tq", s.rows}, {"Tk", s.cols}, {"dOut", s.d_out},
                           {"stages", stages}, {"inputFloats", inputs_floats}};
  const double floats = estimate_floats(function, fused_kernel_applies(options) ? "fused" : "teaching", memory);
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
  if (auto message = renamed(check_multihead_attention_stacked(x, weights, forward_path(options)),
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
  if (auto message = renamed(check_multihead_attention_split(x, weights, forward_path(options)),
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
  if (auto message = renamed(check_multihead_attention_fused(x, weights, forward_path(options)),
                             "multiheadAttentionFused", function);
      !message.empty())
    return message;
  const int d_out = weights.in_projection.shape[1] / 3;
  const double weights_floats = static_cast<double>(weights.in_projection.element_count() + weights.in_bias.element_count() +
                                                    weights.out_weight.element_count() + weights.out_bias.element_count());
  // its (B, T, 3·d_out) projection and gradient are its registry entry's own term
  return check_gradient_and_memory(function, grad_output, {x.shape[0], options.heads, x.shape[1], x.shape[1], d_out},
                                   false, options, static_cast<double>(x.element_count()) + weights_floats, max_bytes);
}

std::string check_cross_attention_backward(const Tensor& x_query, const Tensor& x_context,
                                           const ProjectionWeights& weights, const Tensor& grad_output,
                                           const AttentionOptions& options, std::size_t max_bytes) {
  const std::string function = "crossAttentionBackward";
  if (auto message = renamed(check_cross_attention(x_query, x_context, weights, forward_path(options)), "crossAttention",
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
