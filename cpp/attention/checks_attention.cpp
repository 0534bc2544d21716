// Checks for the attention functions: self (steps 6–8), multi-head (step 10) and cross (step 11).
#include "attention/check_helpers.h"
#include "attention/masks.h"
#include "attention/checks.h"
#include "attention/fast_attention.h"

namespace ap {

namespace {
std::string dim(const char* name, int size) { return std::string(name) + "=" + std::to_string(size); }

// An optional (size) bias, e.g. weights.queryBias of [d_out=4].
std::string check_bias(const std::string& function, const std::string& argument, const Tensor& bias,
                       const char* size_name, int size) {
  if (!bias.present()) return "";
  if (auto message = check_tensor(function, argument, bias, {size_name}); !message.empty()) return message;
  return check_shape(function, argument, bias, {size}, "[" + dim(size_name, size) + "]");
}

// A (rows, cols) matrix whose sizes are all known, e.g. weights.key of [d_in=3, d_out=4].
std::string check_matrix(const std::string& function, const std::string& argument, const Tensor& matrix,
                         const char* rows_name, int rows, const char* cols_name, int cols) {
  if (auto message = check_tensor(function, argument, matrix, {rows_name, cols_name}); !message.empty()) {
    return message;
  }
  return check_shape(function, argument, matrix, {rows, cols}, "[" + dim(rows_name, rows) + ", " + dim(cols_name, cols) + "]");
}

// query (d_q, d_out), key and value (d_kv, d_out), their optional biases (d_out); sets d_out from query.
// 'linear' layout (self-attention only) stores each matrix transposed, (d_out, d_in).
std::string check_query_key_value(const std::string& function, const std::string& prefix,
                                  const ProjectionWeights& weights, const char* query_in_name, int query_in,
                                  const char* context_in_name, int context_in, WeightLayout layout, const char* out_name,
                                  int& d_out, const char* value_in_name = nullptr, int value_in = 0) {
  const bool linear = layout == WeightLayout::Linear;
  const std::string query_name = prefix + "query";
  const std::vector<std::string> axes =
      linear ? std::vector<std::string>{out_name, query_in_name} : std::vector<std::string>{query_in_name, out_name};
  if (auto message = check_tensor(function, query_name, weights.query, axes); !message.empty()) return message;
  if (linear) {
    if (auto message = check_shape(function, query_name, weights.query, {-1, query_in},
                                   "[" + std::string(out_name) + ", " + dim(query_in_name, query_in) + "] (layout 'linear')");
        !message.empty())
      return message;
    d_out = weights.query.shape[0];
  } else {
    if (auto message = check_shape(function, query_name, weights.query, {query_in, -1},
                                   "[" + dim(query_in_name, query_in) + ", " + out_name + "]");
        !message.empty())
      return message;
    d_out = weights.query.shape[1];
  }
  for (const auto& [name, matrix] : {std::pair{"key", &weights.key}, std::pair{"value", &weights.value}}) {
    const std::string argument = prefix + name;
    // the values may come from their own input (crossAttention's xValue): (d_xv, d_out)
    const bool own = value_in_name != nullptr && matrix == &weights.value;
    const char* in_name = own ? value_in_name : context_in_name;
    const int in = own ? value_in : context_in;
    const std::string message =
        linear ? check_matrix(function, argument, *matrix, out_name, d_out, in_name, in)
               : check_matrix(function, argument, *matrix, in_name, in, out_name, d_out);
    if (!message.empty()) return linear ? message + " (layout 'linear')" : message;
  }
  for (const auto& [name, bias] : {std::pair{"queryBias", &weights.query_bias}, std::pair{"keyBias", &weights.key_bias},
                                   std::pair{"valueBias", &weights.value_bias}}) {
    if (auto message = check_bias(function, prefix + name, *bias, out_name, d_out); !message.empty()) return message;
  }
  return "";
}

// The optional output projection (d_out, d_out) and its bias (d_out).
std::string check_out_projection(const std::string& function, const Tensor& out_weight, const Tensor& out_bias,
                                 int d_out) {
  if (out_weight.present()) {
    if (auto message = check_matrix(function, "weights.outWeight", out_weight, "d_out", d_out, "d_out", d_out);
        !message.empty())
      return message;
  }
  return check_bias(function, "weights.outBias", out_bias, "d_out", d_out);
}

std::string check_heads_divide(const std::string& function, int d_out, int heads) {
  if (d_out % heads == 0) return "";
  return function + ": d_out=" + std::to_string(d_out) + " is not divisible by heads=" + std::to_string(heads);
}

// Floats held at once by the multi-head path: x, the projections and their per-head copies, the
// (B, H, Tq, Tk) stages (scores, scaled, weights, masked, dropped), per-head context, context, output.
double multihead_floats(const Tensor& x, int batch, int heads, int rows, int cols, int d_out,
                        const AttentionOptions& options) {
  const double stages = 3 + (options.causal || has_masks(options) ? 1 : 0) + (options.dropout > 0 ? 1 : 0);
  const double projections = 2.0 * batch * (static_cast<double>(rows) + 2.0 * cols) * d_out;
  return static_cast<double>(x.element_count()) + projections +
         stages * batch * heads * static_cast<double>(rows) * cols + 3.0 * batch * rows * d_out;
}

// Dropout's RNG counter is the uint32 flat index into the (B, H, Tq, Tk) weights.
std::string check_dropout_counter(const std::string& function, int batch, int heads, int rows, int cols,
                                  const AttentionOptions& options) {
  const double count = static_cast<double>(batch) * heads * rows * cols;
  if (options.dropout <= 0.0f || count <= 4294967296.0) return "";
  return function + ": the weights have " + format_number(count) +
         " values; dropout expects at most 2^32 (its counter is 32 bits)";
}

std::string sizes_text(int batch, int heads, int rows, int cols, bool cross) {
  std::string text = "B=" + std::to_string(batch);
  if (heads > 1) text += ", H=" + std::to_string(heads);
  if (cross) return text + ", Tq=" + std::to_string(rows) + ", Tk=" + std::to_string(cols);
  return text + ", T=" + std::to_string(rows);
}

// What every multi-head form checks once its weights are known: the dropout counter, then memory —
// the fused kernel's O(T·d) when it will run, else the teaching path's (B, H, Tq, Tk) stages.
// extra_teaching_floats and extra_fused_floats are what a form needs beyond the shared estimate.
struct AttentionSizes {
  int batch, heads, rows, cols, d_out;
  bool cross;
};

std::string check_counter_and_memory(const std::string& function, const Tensor& x, const AttentionSizes& sizes,
                                     const AttentionOptions& options, double extra_teaching_floats,
                                     double extra_fused_floats, std::size_t max_bytes) {
  const auto& [batch, heads, rows, cols, d_out, cross] = sizes;
  if (auto message = check_dropout_counter(function, batch, heads, rows, cols, options); !message.empty()) return message;
  if (fused_kernel_applies(options)) {
    return check_fused_kernel_memory(function, batch, rows, cols, d_out, heads, extra_fused_floats, max_bytes);
  }
  return check_memory(function, sizes_text(batch, heads, rows, cols, cross),
                      multihead_floats(x, batch, heads, rows, cols, d_out, options) + extra_teaching_floats, max_bytes);
}
}  // namespace

std::string check_self_attention(const Tensor& x, const ProjectionWeights& weights, const AttentionOptions& options,
                                 std::size_t max_bytes) {
  const std::string function = "selfAttention";
  if (auto message = check_tensor(function, "x", x, {"B", "T", "d_in"}); !message.empty()) return message;
  int d_out = 0;
  if (auto message = check_query_key_value(function, "weights.", weights, "d_in", x.shape[2], "d_in", x.shape[2],
                                           options.layout, "d_out", d_out);
      !message.empty())
    return message;
  if (auto message = check_attention_options(function, options, false); !message.empty()) return message;
  const int batch = x.shape[0], time = x.shape[1];
  if (auto message = check_dropout_counter(function, batch, 1, time, time, options); !message.empty()) return message;
  return check_memory(function, sizes_text(batch, 1, time, time, false),
                      multihead_floats(x, batch, 1, time, time, d_out, options), max_bytes);
}

std::string check_multihead_attention_stacked(const Tensor& x, const StackedWeights& weights,
                                              const AttentionOptions& options, std::size_t max_bytes) {
  const std::string function = "multiheadAttentionStacked";
  if (auto message = check_tensor(function, "x", x, {"B", "T", "d_in"}); !message.empty()) return message;
  if (weights.heads.empty()) return function + ": weights.heads is empty; expected at least one head";
  const int heads = static_cast<int>(weights.heads.size());
  int d_head = 0;
  for (int h = 0; h < heads; ++h) {
    int this_head = 0;
    const std::string prefix = "weights.heads[" + std::to_string(h) + "].";
    if (auto message = check_query_key_value(function, prefix, weights.heads[h], "d_in", x.shape[2], "d_in",
                                             x.shape[2], WeightLayout::Matrix, "d_head", this_head);
        !message.empty())
      return message;
    if (h == 0) d_head = this_head;
    if (this_head != d_head) {
      return check_matrix(function, prefix + "query", weights.heads[h].query, "d_in", x.shape[2], "d_head", d_head);
    }
  }
  const int d_out = heads * d_head;
  if (auto message = check_out_projection(function, weights.out_weight, weights.out_bias, d_out); !message.empty()) {
    return message;
  }
  if (auto message = check_attention_options(function, options, false); !message.empty()) return message;
  const int batch = x.shape[0], time = x.shape[1];
  if (auto message = check_masks(function, options, batch, heads, time, time); !message.empty()) return message;
  // teaching: the heads' projections before they are joined; fused: the heads' weights joined side by side
  return check_counter_and_memory(function, x, {batch, heads, time, time, d_out, false}, options,
                                  3.0 * batch * time * d_out, 3.0 * x.shape[2] * d_out + 3.0 * d_out, max_bytes);
}

std::string check_multihead_attention_split(const Tensor& x, const ProjectionWeights& weights,
                                            const AttentionOptions& options, std::size_t max_bytes) {
  const std::string function = "multiheadAttentionSplit";
  if (auto message = check_tensor(function, "x", x, {"B", "T", "d_in"}); !message.empty()) return message;
  int d_out = 0;
  if (auto message = check_query_key_value(function, "weights.", weights, "d_in", x.shape[2], "d_in", x.shape[2],
                                           WeightLayout::Matrix, "d_out", d_out);
      !message.empty())
    return message;
  if (auto message = check_out_projection(function, weights.out_weight, weights.out_bias, d_out); !message.empty()) {
    return message;
  }
  if (auto message = check_attention_options(function, options, true); !message.empty()) return message;
  if (auto message = check_heads_divide(function, d_out, options.heads); !message.empty()) return message;
  const int batch = x.shape[0], time = x.shape[1];
  if (auto message = check_masks(function, options, batch, options.heads, time, time); !message.empty()) return message;
  return check_counter_and_memory(function, x, {batch, options.heads, time, time, d_out, false}, options, 0, 0,
                                  max_bytes);
}

std::string check_multihead_attention_fused(const Tensor& x, const FusedWeights& weights,
                                            const AttentionOptions& options, std::size_t max_bytes) {
  const std::string function = "multiheadAttentionFused";
  if (auto message = check_tensor(function, "x", x, {"B", "T", "d_in"}); !message.empty()) return message;
  const int d_in = x.shape[2];
  if (auto message = check_tensor(function, "weights.inProjection", weights.in_projection, {"d_in", "3·d_out"});
      !message.empty())
    return message;
  if (weights.in_projection.shape[0] != d_in || weights.in_projection.shape[1] % 3 != 0) {
    return function + ": weights.inProjection has shape " + format_shape(weights.in_projection.shape) +
           "; expected [" + dim("d_in", d_in) + ", 3·d_out] ([Wq | Wk | Wv] side by side)";
  }
  const int d_out = weights.in_projection.shape[1] / 3;
  if (auto message = check_bias(function, "weights.inBias", weights.in_bias, "3·d_out", 3 * d_out); !message.empty()) {
    return message;
  }
  if (auto message = check_out_projection(function, weights.out_weight, weights.out_bias, d_out); !message.empty()) {
    return message;
  }
  if (auto message = check_attention_options(function, options, true); !message.empty()) return message;
  if (auto message = check_heads_divide(function, d_out, options.heads); !message.empty()) return message;
  const int batch = x.shape[0], time = x.shape[1];
  if (auto message = check_masks(function, options, batch, options.heads, time, time); !message.empty()) return message;
  // teaching: the (B, T, 3·d_out) projection before it is split into Q, K, V
  return check_counter_and_memory(function, x, {batch, options.heads, time, time, d_out, false}, options,
                                  3.0 * batch * time * d_out, 0, max_bytes);
}

std::string check_cross_attention(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& weights,
                                  const AttentionOptions& options, std::size_t max_bytes) {
  const std::string function = "crossAttention";
  if (auto message = check_tensor(function, "xQuery", x_query, {"B", "Tq", "d_q"}); !message.empty()) return message;
  if (auto message = check_tensor(function, "xContext", x_context, {"B", "Tk", "d_kv"}); !message.empty()) {
    return message;
  }
  const int batch = x_query.shape[0];
  if (auto message = check_shape(function, "xContext", x_context, {batch, -1, -1}, "[" + dim("B", batch) + ", Tk, d_kv]");
      !message.empty())
    return message;
  const int cols = x_context.shape[1];
  // options.x_value (B, Tk, d_xv): the values' own input, with the batch and Tk of xContext
  const bool own_values = options.x_value.present();
  if (own_values) {
    if (auto message = check_tensor(function, "options.xValue", options.x_value, {"B", "Tk", "d_xv"}); !message.empty()) {
      return message;
    }
    if (auto message = check_shape(function, "options.xValue", options.x_value, {batch, cols, -1},
                                   "[" + dim("B", batch) + ", " + dim("Tk", cols) + ", d_xv] (the batch size and Tk of xContext)");
        !message.empty())
      return message;
  }
  int d_out = 0;
  if (auto message = check_query_key_value(function, "weights.", weights, "d_q", x_query.shape[2], "d_kv",
                                           x_context.shape[2], WeightLayout::Matrix, "d_out", d_out,
                                           own_values ? "d_xv" : nullptr, own_values ? options.x_value.shape[2] : 0);
      !message.empty())
    return message;
  if (auto message = check_out_projection(function, weights.out_weight, weights.out_bias, d_out); !message.empty()) {
    return message;
  }
  if (auto message = check_attention_options(function, options, true); !message.empty()) return message;
  if (auto message = check_heads_divide(function, d_out, options.heads); !message.empty()) return message;
  const int rows = x_query.shape[1];
  if (auto message = check_masks(function, options, batch, options.heads, rows, cols); !message.empty()) return message;
  // teaching: the context sequence's copy beside the query's
  return check_counter_and_memory(function, x_query, {batch, options.heads, rows, cols, d_out, true}, options,
                                  static_cast<double>(x_context.element_count()), 0, max_bytes);
}

}  // namespace ap
