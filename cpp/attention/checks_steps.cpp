// Checks for steps 1–5, 8 and 9 (checks_attention.cpp has the attention functions). The axes of x and every
// memory estimate are the registry's (registry_rules.h); written here, because the table does not say them:
// nextTokenPairs' Int32 tokens and its L ≥ 2, softmax's −∞ and its finite scale·x, dropout's 2^32 counter,
// compare's "like actual".
#include <cmath>
#include <limits>

#include "attention/check_helpers.h"
#include "attention/checks.h"
#include "attention/registry_rules.h"

namespace ap {

std::string check_next_token_pairs(const IntTensor& tokens, std::size_t max_bytes) {
  const std::string function = "nextTokenPairs";
  if (!tokens.present()) return function + ": tokens is missing; expected a (B, L) tensor of token ids";
  if (tokens.rank() != 2) {
    return function + ": tokens has shape " + format_shape(tokens.shape) + "; expected rank 2 (B, L)";
  }
  if (tokens.shape[0] < 1) {
    return function + ": tokens has shape " + format_shape(tokens.shape) + "; expected every size ≥ 1 (B=" +
           std::to_string(tokens.shape[0]) + ")";
  }
  if (tokens.shape[1] < 2) {
    return function + ": tokens has shape " + format_shape(tokens.shape) +
           "; expected L ≥ 2 tokens per sequence (a context and a target)";
  }
  const double count = static_cast<double>(tokens.shape[0]) * tokens.shape[1];
  if (!checking_shapes_only() && static_cast<double>(tokens.data.size()) != count) {
    return function + ": tokens has " + std::to_string(tokens.data.size()) + " values for shape " +
           format_shape(tokens.shape) + "; expected " + format_number(count);
  }
  return check_memory(function, "B=" + std::to_string(tokens.shape[0]) + ", L=" + std::to_string(tokens.shape[1]),
                      estimate_floats(function, "teaching", {{"B", tokens.shape[0]}, {"L", tokens.shape[1]}}), max_bytes);
}

namespace {
// The causal averages and attentionWithoutWeights take x (B, T, C) alone; they differ in their memory terms.
std::string check_sequence_step(const std::string& function, const Tensor& x, std::size_t max_bytes) {
  AxisSizes sizes(function);
  if (auto message = sizes.check("x", x); !message.empty()) return message;
  return check_memory(function, "B=" + std::to_string(sizes["B"]) + ", T=" + std::to_string(sizes["T"]),
                      estimate_floats(function, "teaching", {{"B", sizes["B"]}, {"T", sizes["T"]}, {"C", sizes["C"]}}),
                      max_bytes);
}
}  // namespace

std::string check_causal_average_loop(const Tensor& x, std::size_t max_bytes) {
  return check_sequence_step("causalAverageLoop", x, max_bytes);
}
std::string check_causal_average_matmul(const Tensor& x, std::size_t max_bytes) {
  return check_sequence_step("causalAverageMatmul", x, max_bytes);
}
std::string check_causal_average_softmax(const Tensor& x, std::size_t max_bytes) {
  return check_sequence_step("causalAverageSoftmax", x, max_bytes);
}

std::string check_softmax(const Tensor& x, const SoftmaxOptions& options, std::size_t max_bytes) {
  const std::string function = "softmax";
  // −∞ is how a caller masks an entry; NaN and +∞ have no meaning as scores.
  if (auto message = check_tensor_any_rank(function, "x", x, true); !message.empty()) return message;
  if (auto message = check_option_range(function, "scale", options.scale, format_float(options.scale)); !message.empty()) {
    return message;
  }
  if (auto message = check_memory(function, "x of shape " + format_shape(x.shape),
                                  estimate_floats(function, "teaching", {{"size", static_cast<double>(x.element_count())}}),
                                  max_bytes);
      !message.empty()) {
    return message;
  }
  // scale·x, formed in float32, must stay finite: a finite x taken to −∞ would read as a mask (its row silently
  // all zeros) and one taken to +∞ makes the row NaN. Only |scale| > 1 can leave the range.
  if (checking_shapes_only() || !(std::fabs(options.scale) > 1.0f)) return "";
  for (const float value : x.data) {
    const float scaled = value * options.scale;
    if (value != -std::numeric_limits<float>::infinity() && !std::isfinite(scaled)) {
      return function + ": the scaled scores overflow float32 (scale=" + format_float(options.scale) +
             " makes scale·x reach " + format_float(scaled) + ")";
    }
  }
  return "";
}

std::string check_attention_without_weights(const Tensor& x, Normalization, std::size_t max_bytes) {
  return check_sequence_step("attentionWithoutWeights", x, max_bytes);
}

std::string check_attention_dropout(const Tensor& weights, const DropoutOptions& options, std::size_t max_bytes) {
  const std::string function = "attentionDropout";
  if (auto message = check_tensor_any_rank(function, "weights", weights); !message.empty()) return message;
  if (auto message = check_dropout_options(function, options.dropout, options.seed); !message.empty()) {
    return message;
  }
  // The RNG counter is a uint32 flat index.
  if (static_cast<double>(weights.element_count()) > 4294967296.0) {
    return function + ": weights has " + std::to_string(weights.element_count()) +
           " values; expected at most 2^32 (the dropout counter is 32 bits)";
  }
  return check_memory(function, "weights of shape " + format_shape(weights.shape),
                      estimate_floats(function, "teaching", {{"size", static_cast<double>(weights.element_count())}}),
                      max_bytes);
}

std::string check_compare(const Tensor& actual, const Tensor& expected, const CompareOptions& options,
                          std::size_t) {
  const std::string function = "compare";
  if (auto message = check_tensor_any_rank(function, "actual", actual); !message.empty()) return message;
  if (auto message = check_tensor_any_rank(function, "expected", expected); !message.empty()) return message;
  if (expected.shape != actual.shape) {
    return check_shape(function, "expected", expected, actual.shape, format_shape(actual.shape) + " like actual");
  }
  for (const auto& [name, value] : {std::pair{"atol", options.atol}, std::pair{"rtol", options.rtol}}) {
    if (auto message = check_option_range(function, name, value, format_number(value)); !message.empty()) return message;
  }
  return "";  // compare allocates nothing beyond its inputs
}

}  // namespace ap
