#include "attention/checks_backward.h"

#include <vector>

#include "attention/check_helpers.h"
#include "attention/fused_rule.h"
#include "attention/registry_rules.h"

namespace ap {

namespace {
// The options the forward's check is asked with: the path the backward takes. The fused backward recomputes
// the forward on the fused path; the teaching backward recomputes it with its stages.
AttentionOptions forward_path(const AttentionOptions& options) {
  AttentionOptions forward = options;
  forward.intermediates = !plans_fused_backward(options);
  return forward;
}

std::size_t count(const ProjectionWeights& w) {
  std::size_t n = 0;
  for (const Tensor* t : {&w.query, &w.key, &w.value, &w.query_bias, &w.key_bias, &w.value_bias, &w.out_weight,
                          &w.out_bias})
    n += t->element_count();
  return n;
}

// After the forward's check (its message under the backward's name: every message starts with the JS function's
// name and ": "), gradOutput has the forward output's shape (B, Tq, d_out), said as such, which no axis rule says;
// then the memory the backward holds at once: the registry's terms (BACKWARD_MEMORY) over the sizes the forward
// named and `inputs_floats`, its inputs' and weights' floats.
std::string check_gradient_and_memory(const std::string& forward_message, const AxisSizes& forward,
                                      const Tensor& grad_output, const AttentionOptions& options, double inputs_floats,
                                      std::size_t max_bytes) {
  const std::string function = forward.function() + "Backward";
  if (!forward_message.empty()) return function + forward_message.substr(forward.function().size());
  const bool cross = forward["Tq"] != 0;  // crossAttention names Tq and Tk, the others T
  const int batch = forward["B"], heads = forward["H"], d_out = forward["d_out"];
  const int rows = cross ? forward["Tq"] : forward["T"], cols = cross ? forward["Tk"] : rows;
  const std::vector<int> expected{batch, rows, d_out};
  if (grad_output.shape != expected) {
    const std::string got = grad_output.present() ? "has shape " + format_shape(grad_output.shape) : "is absent";
    return function + ": gradOutput " + got + "; expected " + format_shape(expected) +
           ", the shape of the forward's output";
  }
  AxisSizes gradient(function);
  if (auto message = gradient.check("gradOutput", grad_output); !message.empty()) return message;
  const double stages = 3 + (options.causal ? 1 : 0) + (options.dropout > 0 ? 1 : 0);
  const MemorySizes memory{{"B", batch}, {"H", heads}, {"Tq", rows}, {"Tk", cols}, {"dOut", d_out},
                           {"stages", stages}, {"inputFloats", inputs_floats}};
  std::string sizes = "B=" + std::to_string(batch);
  if (heads > 1) sizes += ", H=" + std::to_string(heads);
  sizes += cross ? ", Tq=" + std::to_string(rows) + ", Tk=" + std::to_string(cols) : ", T=" + std::to_string(rows);
  return check_memory(function, sizes,
                      estimate_floats(function, plans_fused_backward(options) ? "fused" : "teaching", memory), max_bytes);
}
}  // namespace

std::string check_self_attention_backward(const Tensor& x, const ProjectionWeights& weights, const Tensor& grad_output,
                                          const AttentionOptions& options, std::size_t max_bytes) {
  AxisSizes forward("selfAttention");
  const std::string message = check_self_attention(x, weights, options, no_memory_limit, forward);
  return check_gradient_and_memory(message, forward, grad_output, options,
                                   static_cast<double>(x.element_count() + count(weights)), max_bytes);
}

std::string check_multihead_attention_stacked_backward(const Tensor& x, const StackedWeights& weights,
                                                       const Tensor& grad_output, const AttentionOptions& options,
                                                       std::size_t max_bytes) {
  AxisSizes forward("multiheadAttentionStacked");
  const std::string message = check_multihead_attention_stacked(x, weights, forward_path(options), no_memory_limit, forward);
  double weights_floats = static_cast<double>(weights.out_weight.element_count() + weights.out_bias.element_count());
  for (const ProjectionWeights& head : weights.heads) weights_floats += static_cast<double>(count(head));
  return check_gradient_and_memory(message, forward, grad_output, options,
                                   static_cast<double>(x.element_count()) + weights_floats, max_bytes);
}

std::string check_multihead_attention_split_backward(const Tensor& x, const ProjectionWeights& weights,
                                                     const Tensor& grad_output, const AttentionOptions& options,
                                                     std::size_t max_bytes) {
  AxisSizes forward("multiheadAttentionSplit");
  const std::string message = check_multihead_attention_split(x, weights, forward_path(options), no_memory_limit, forward);
  return check_gradient_and_memory(message, forward, grad_output, options,
                                   static_cast<double>(x.element_count() + count(weights)), max_bytes);
}

std::string check_multihead_attention_fused_backward(const Tensor& x, const FusedWeights& weights,
                                                     const Tensor& grad_output, const AttentionOptions& options,
                                                     std::size_t max_bytes) {
  AxisSizes forward("multiheadAttentionFused");
  const std::string message = check_multihead_attention_fused(x, weights, forward_path(options), no_memory_limit, forward);
  // its (B, T, 3·d_out) projection and gradient are its registry entry's own term
  const double weights_floats = static_cast<double>(weights.in_projection.element_count() + weights.in_bias.element_count() +
                                                    weights.out_weight.element_count() + weights.out_bias.element_count());
  return check_gradient_and_memory(message, forward, grad_output, options,
                                   static_cast<double>(x.element_count()) + weights_floats, max_bytes);
}

std::string check_cross_attention_backward(const Tensor& x_query, const Tensor& x_context,
                                           const ProjectionWeights& weights, const Tensor& grad_output,
                                           const AttentionOptions& options, std::size_t max_bytes) {
  AxisSizes forward("crossAttention");
  const std::string message = check_cross_attention(x_query, x_context, weights, forward_path(options), no_memory_limit, forward);
  return check_gradient_and_memory(message, forward, grad_output, options,
                                   static_cast<double>(x_query.element_count() + x_context.element_count() + count(weights)),
                                   max_bytes);
}

}  // namespace ap
