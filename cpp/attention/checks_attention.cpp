// Checks for the attention functions: self (steps 6–8), multi-head (step 10) and cross (step 11).
// The shapes, the heads | d_out rule and the memory estimates are the registry's (web/src/core/registry.js:
// args' axes, weights' shapes, `divides`, `memory`), applied by registry_rules.h. Written here, because the table
// does not say them: the order of the checks; the options (ranges are the registry's, check_helpers.h); the
// linear layout's transposed weights; the stacked form's list of heads (non-empty, d_out = H·d_head); the fused
// form's inProjection, whose width must be a multiple of 3 ([Wq | Wk | Wv]); the masks (masks.cpp: broadcasting
// and 0/1 values); the dropout counter's 2^32 bound; and how a memory message names the sizes.
#include "attention/check_helpers.h"
#include "attention/checks.h"
#include "attention/checks_backward.h"
#include "attention/fused_rule.h"
#include "attention/masks.h"
#include "attention/registry_rules.h"

namespace ap {

namespace {
// query, key, value and their optional biases, as the registry shapes them (`prefix` + name: weights. or
// weights.heads[].), shown as `shown_prefix` + name. The values take their own input's row when crossAttention's
// options.xValue is given (own_values); `linear`: the 'linear' layout (self-attention only) stores each matrix
// transposed, (d_out, d_in).
std::string check_projections(AxisSizes& sizes, const ProjectionWeights& weights, bool linear, bool own_values,
                              const std::string& prefix = "weights.", const std::string& shown_prefix = "weights.") {
  for (const auto& [name, tensor] : {std::pair{"query", &weights.query}, std::pair{"key", &weights.key},
                                     std::pair{"value", &weights.value}}) {
    AxisSizes::Read read{shown_prefix + name};
    read.when = tensor == &weights.value && own_values ? "options.xValue" : "";
    read.transposed = linear;
    read.suffix = linear ? " (layout 'linear')" : "";
    if (auto message = sizes.check(prefix + name, *tensor, read); !message.empty()) return message;
  }
  for (const auto& [name, bias] : {std::pair{"queryBias", &weights.query_bias}, std::pair{"keyBias", &weights.key_bias},
                                   std::pair{"valueBias", &weights.value_bias}}) {
    if (!bias->present()) continue;
    if (auto message = sizes.check(prefix + name, *bias, {shown_prefix + name}); !message.empty()) return message;
  }
  return "";
}

// The optional output projection (d_out, d_out) and its bias (d_out).
std::string check_out_projection(AxisSizes& sizes, const Tensor& out_weight, const Tensor& out_bias) {
  if (auto message = sizes.check_optional("weights.outWeight", out_weight); !message.empty()) return message;
  return sizes.check_optional("weights.outBias", out_bias);
}

// Dropout's RNG counter is the uint32 flat index into the (B, H, Tq, Tk) weights.
std::string check_dropout_counter(const std::string& function, int batch, int heads, int rows, int cols,
                                  const AttentionOptions& options) {
  const double count = static_cast<double>(batch) * heads * rows * cols;
  if (options.dropout <= 0.0f || count <= 4294967296.0) return "";
  return function + ": the weights have " + format_number(count) +
         " values; dropout expects at most 2^32 (its counter is 32 bits)";
}

// The sizes a memory message names: "B=2, H=4, T=16", "B=2, Tq=3, Tk=5"; the fused kernel's omit H.
std::string sizes_text(int batch, int heads, int rows, int cols, bool cross, bool fused) {
  std::string text = "B=" + std::to_string(batch);
  if (heads > 1 && !fused) text += ", H=" + std::to_string(heads);
  if (fused ? rows != cols : cross) return text + ", Tq=" + std::to_string(rows) + ", Tk=" + std::to_string(cols);
  return text + ", T=" + std::to_string(rows);
}

// What every attention form checks once its weights are known: the dropout counter, then memory on the planner's
// path — the fused kernel's O(T·d) when it will run, else the teaching path's (B, H, Tq, Tk) stages — from the
// registry's terms over the call's sizes.
std::string check_counter_and_memory(const AxisSizes& sizes, const Tensor& x, const Tensor& context, int heads,
                                     const AttentionOptions& options, std::size_t max_bytes, bool may_fuse = true) {
  const std::string& function = sizes.function();
  const bool cross = &x != &context;
  const int batch = sizes["B"], rows = x.shape[1], cols = context.shape[1], d_out = sizes["d_out"];
  if (auto message = check_dropout_counter(function, batch, heads, rows, cols, options); !message.empty()) return message;
  if (auto message = check_planned_path(function, options, may_fuse); !message.empty()) return message;
  const bool fused = may_fuse && plans_fused_kernel(options);
  // scores, scaled, weights; masked with causal or a mask; dropped with dropout > 0
  const double stages = 3 + (options.causal || has_masks(options) ? 1 : 0) + (options.dropout > 0 ? 1 : 0);
  const MemorySizes memory{{"B", batch}, {"H", heads}, {"Tq", rows}, {"Tk", cols}, {"dIn", x.shape[2]},
                           {"dOut", d_out}, {"dHead", static_cast<double>(d_out) / heads}, {"stages", stages},
                           {"xFloats", static_cast<double>(x.element_count())},
                           {"contextFloats", static_cast<double>(context.element_count())}};
  return check_memory(function, sizes_text(batch, heads, rows, cols, cross, fused),
                      estimate_floats(function, fused ? "fused" : "teaching", memory), max_bytes);
}

// The rest of a split, fused or cross call once its weights are known: the options, options.heads | d_out, the
// masks against (B, H, Tq, Tk), then the dropout counter and memory.
std::string check_heads_and_memory(const Tensor& x, const Tensor& context, const AttentionOptions& options,
                                   std::size_t max_bytes, AxisSizes& sizes) {
  const std::string& function = sizes.function();
  if (auto message = check_attention_options(function, options, true); !message.empty()) return message;
  if (auto message = sizes.check_divides("heads", options.heads); !message.empty()) return message;
  sizes.bind("H", options.heads);
  if (auto message = check_masks(function, options, sizes["B"], options.heads, x.shape[1], context.shape[1]);
      !message.empty()) {
    return message;
  }
  return check_counter_and_memory(sizes, x, context, options.heads, options, max_bytes);
}
}  // namespace

std::string check_self_attention(const Tensor& x, const ProjectionWeights& weights, const AttentionOptions& options,
                                 std::size_t max_bytes, AxisSizes& sizes) {
  if (auto message = sizes.check("x", x); !message.empty()) return message;
  sizes.bind("H", 1);
  if (auto message = check_projections(sizes, weights, options.layout == WeightLayout::Linear, false); !message.empty()) {
    return message;
  }
  if (auto message = check_attention_options(sizes.function(), options, false); !message.empty()) return message;
  // one head, on the teaching path (selfAttention has no fused kernel)
  return check_counter_and_memory(sizes, x, x, 1, options, max_bytes, false);
}

std::string check_multihead_attention_stacked(const Tensor& x, const StackedWeights& weights,
                                              const AttentionOptions& options, std::size_t max_bytes, AxisSizes& sizes) {
  const std::string& function = sizes.function();
  if (auto message = sizes.check("x", x); !message.empty()) return message;
  if (weights.heads.empty()) return function + ": weights.heads is empty; expected at least one head";
  const int heads = static_cast<int>(weights.heads.size());
  sizes.bind("H", heads);
  for (int h = 0; h < heads; ++h) {
    if (auto message = check_projections(sizes, weights.heads[h], false, false, "weights.heads[].",
                                          "weights.heads[" + std::to_string(h) + "].");
        !message.empty())
      return message;
  }
  sizes.bind("d_out", heads * sizes["d_head"]);  // the heads side by side
  if (auto message = check_out_projection(sizes, weights.out_weight, weights.out_bias); !message.empty()) return message;
  if (auto message = check_attention_options(function, options, false); !message.empty()) return message;
  if (auto message = check_masks(function, options, sizes["B"], heads, x.shape[1], x.shape[1]); !message.empty()) {
    return message;
  }
  return check_counter_and_memory(sizes, x, x, heads, options, max_bytes);
}

std::string check_multihead_attention_split(const Tensor& x, const ProjectionWeights& weights,
                                            const AttentionOptions& options, std::size_t max_bytes, AxisSizes& sizes) {
  if (auto message = sizes.check("x", x); !message.empty()) return message;
  if (auto message = check_projections(sizes, weights, false, false); !message.empty()) return message;
  if (auto message = check_out_projection(sizes, weights.out_weight, weights.out_bias); !message.empty()) return message;
  return check_heads_and_memory(x, x, options, max_bytes, sizes);
}

std::string check_multihead_attention_fused(const Tensor& x, const FusedWeights& weights,
                                            const AttentionOptions& options, std::size_t max_bytes, AxisSizes& sizes) {
  const std::string& function = sizes.function();
  if (auto message = sizes.check("x", x); !message.empty()) return message;
  // inProjection (d_in, 3·d_out): its width a multiple of 3, which no axis rule says
  const Tensor& in = weights.in_projection;
  if (auto message = sizes.check("weights.inProjection", in); !message.empty()) return message;
  if (in.shape[1] % 3 != 0) {
    return function + ": weights.inProjection has shape " + format_shape(in.shape) + "; expected [d_in=" +
           std::to_string(sizes["d_in"]) + ", 3·d_out] ([Wq | Wk | Wv] side by side)";
  }
  sizes.bind("d_out", in.shape[1] / 3);
  if (auto message = sizes.check_optional("weights.inBias", weights.in_bias); !message.empty()) return message;
  if (auto message = check_out_projection(sizes, weights.out_weight, weights.out_bias); !message.empty()) return message;
  return check_heads_and_memory(x, x, options, max_bytes, sizes);
}

std::string check_cross_attention(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& weights,
                                  const AttentionOptions& options, std::size_t max_bytes, AxisSizes& sizes) {
  if (auto message = sizes.check("xQuery", x_query); !message.empty()) return message;
  if (auto message = sizes.check("xContext", x_context); !message.empty()) return message;
  // options.xValue (B, Tk, d_xv): the values' own input, with the batch and Tk of xContext
  if (options.x_value.present()) {
    if (auto message = sizes.check("options.xValue", options.x_value); !message.empty()) return message;
  }
  if (auto message = check_projections(sizes, weights, false, options.x_value.present()); !message.empty()) return message;
  if (auto message = check_out_projection(sizes, weights.out_weight, weights.out_bias); !message.empty()) return message;
  return check_heads_and_memory(x_query, x_context, options, max_bytes, sizes);
}

// The public checks: the same, their sizes left unread.
std::string check_self_attention(const Tensor& x, const ProjectionWeights& weights, const AttentionOptions& options,
                                 std::size_t max_bytes) {
  AxisSizes sizes("selfAttention");
  return check_self_attention(x, weights, options, max_bytes, sizes);
}
std::string check_multihead_attention_stacked(const Tensor& x, const StackedWeights& weights,
                                              const AttentionOptions& options, std::size_t max_bytes) {
  AxisSizes sizes("multiheadAttentionStacked");
  return check_multihead_attention_stacked(x, weights, options, max_bytes, sizes);
}
std::string check_multihead_attention_split(const Tensor& x, const ProjectionWeights& weights,
                                            const AttentionOptions& options, std::size_t max_bytes) {
  AxisSizes sizes("multiheadAttentionSplit");
  return check_multihead_attention_split(x, weights, options, max_bytes, sizes);
}
std::string check_multihead_attention_fused(const Tensor& x, const FusedWeights& weights,
                                            const AttentionOptions& options, std::size_t max_bytes) {
  AxisSizes sizes("multiheadAttentionFused");
  return check_multihead_attention_fused(x, weights, options, max_bytes, sizes);
}
std::string check_cross_attention(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& weights,
                                  const AttentionOptions& options, std::size_t max_bytes) {
  AxisSizes sizes("crossAttention");
  return check_cross_attention(x_query, x_context, weights, options, max_bytes, sizes);
}

}  // namespace ap
