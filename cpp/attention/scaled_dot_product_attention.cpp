// scaledDotProductAttention: PyTorch's F.scaled_dot_product_attention on q, k, v of any equal leading axes
// (docs/api.md). The teaching path: every stage is kept, as the other attention functions keep them.
#include <cmath>
#include <cstdint>
#include <limits>

#include "attention/attention.h"
#include "attention/check_helpers.h"
#include "attention/fused_rule.h"
#include "attention/registry_rules.h"

namespace ap {

namespace {
const char* kFn = "scaledDotProductAttention";
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::string shape_error(const char* argument, const Tensor& t, const std::string& expected) {
  return std::string(kFn) + ": " + argument + " has shape " + format_shape(t.shape) + "; expected " + expected;
}
}  // namespace

std::string check_scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                               const SdpaOptions& options, std::size_t max_bytes) {
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"query", &query}, {"key", &key}, {"value", &value}}) {
    std::string message = check_tensor_any_rank(kFn, name, *t);
    if (!message.empty()) return message;
    if (t->rank() < 2) return shape_error(name, *t, "rank ≥ 2 (…, L, E)");
  }
  const int rank = query.rank();
  const int L = query.shape[rank - 2], E = query.shape[rank - 1];
  if (key.rank() != rank) return shape_error("key", key, "rank " + std::to_string(rank) + ", the rank of query (…, S, E)");
  if (value.rank() != rank) return shape_error("value", value, "rank " + std::to_string(rank) + ", the rank of query (…, S, Ev)");
  for (int a = 0; a < rank - 2; ++a) {
    if (key.shape[a] != query.shape[a]) return shape_error("key", key, "the leading axes of query " + format_shape(query.shape));
    if (value.shape[a] != query.shape[a]) return shape_error("value", value, "the leading axes of query " + format_shape(query.shape));
  }
  if (key.shape[rank - 1] != E) return shape_error("key", key, "E=" + std::to_string(E) + " in its last axis, as query");
  const int S = key.shape[rank - 2];
  if (value.shape[rank - 2] != S) return shape_error("value", value, "S=" + std::to_string(S) + " in its second-to-last axis, as key");
  if (options.is_causal && options.mask.present()) {
    return std::string(kFn) + ": options.isCausal=true; expected false when options.attnMask is given (as PyTorch)";
  }
  if (options.mask.present()) {
    const Tensor& mask = options.mask;
    std::string message = check_tensor_any_rank(kFn, "options.attnMask", mask, !options.mask_boolean);
    if (!message.empty()) return message;
    std::vector<int> target(query.shape.begin(), query.shape.end() - 1);
    target.push_back(S);
    bool fits = mask.rank() <= rank;
    for (int a = 1; fits && a <= mask.rank(); ++a) {
      const int size = mask.shape[mask.rank() - a];
      fits = size == 1 || size == target[rank - a];
    }
    if (!fits) return shape_error("options.attnMask", mask, "a shape broadcastable to " + format_shape(target) + " (…, L, S)");
    if (options.mask_boolean && !checking_shapes_only()) {
      for (std::size_t i = 0; i < mask.data.size(); ++i) {
        if (mask.data[i] != 0.0f && mask.data[i] != 1.0f) {
          return std::string(kFn) + ": options.attnMask.data[" + std::to_string(i) + "] is " + format_number(mask.data[i])
                 + "; expected 0 or 1 (a boolean mask: 1 = may attend)";
        }
      }
    }
  }
  if (!std::isfinite(options.scale)) {
    return std::string(kFn) + ": options.scale=" + format_number(options.scale) + "; expected a finite number, or null for 1/√E";
  }
  std::string message = check_option_range(kFn, "dropoutP", options.dropout_p, format_float(options.dropout_p));
  if (message.empty()) message = check_option_range(kFn, "seed", options.seed, format_number(options.seed));
  if (!message.empty()) return message;
  double batch = 1;
  for (int a = 0; a < rank - 2; ++a) batch *= query.shape[a];
  const int Ev = value.shape[rank - 1];
  // the registry's terms on this call's path: the teaching code keeps 5 (…, L, S) stages, or 1 for the output
  // alone; the fused kernel none (the JS planner's sdpaRoute, the same rule)
  if (auto planned = check_sdpa_planned_path(E, Ev, options); !planned.empty()) return planned;
  const bool fused = sdpa_plans_fused(E, Ev, options);
  const MemorySizes sizes{{"batch", batch}, {"L", L}, {"S", S}, {"E", E}, {"Ev", Ev},
                          {"stages", options.intermediates ? 5.0 : 1.0}};
  return check_memory(kFn, "L=" + std::to_string(L) + ", S=" + std::to_string(S),
                      estimate_floats(kFn, fused ? "fused" : "teaching", sizes), max_bytes);
}

namespace unchecked {

SdpaResult scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                        const SdpaOptions& options) {
  const int rank = query.rank();
  const int L = query.shape[rank - 2], E = query.shape[rank - 1], S = key.shape[rank - 2], Ev = value.shape[rank - 1];
  std::vector<int> lead(query.shape.begin(), query.shape.end() - 2);
  std::size_t batch = 1;
  for (int size : lead) batch *= static_cast<std::size_t>(size);
  const float scale = options.has_scale ? options.scale : 1.0f / std::sqrt(static_cast<float>(E));

  // The mask's stride along each axis of (…, L, S), 0 where it broadcasts.
  const Tensor& mask = options.mask;
  const bool masked = mask.present() || options.is_causal;
  std::vector<std::size_t> stride(rank, 0);
  if (mask.present()) {
    std::size_t step = 1;
    for (int a = 1; a <= mask.rank(); ++a) {
      const int size = mask.shape[mask.rank() - a];
      if (size != 1) stride[rank - a] = step;
      step *= static_cast<std::size_t>(size);
    }
  }

  std::vector<int> square_shape = lead;
  square_shape.push_back(L);
  square_shape.push_back(S);
  std::vector<int> output_shape = lead;
  output_shape.push_back(L);
  output_shape.push_back(Ev);
  const std::size_t square = batch * L * S;
  SdpaResult result;
  Tensor scores{square_shape, std::vector<float>(square)};
  Tensor scaled{square_shape, std::vector<float>(square)};
  Tensor logits{square_shape, std::vector<float>(square)};
  Tensor weights{square_shape, std::vector<float>(square)};
  Tensor dropped;
  const bool dropping = options.dropout_p > 0.0f;
  if (dropping) dropped = Tensor{square_shape, std::vector<float>(square)};
  Tensor output{output_shape, std::vector<float>(batch * L * Ev, 0.0f)};

  for (std::size_t n = 0; n < batch; ++n) {
    // the mask's offset of this batch slice
    std::size_t mask_base = 0;
    std::size_t rest = n;
    for (int a = rank - 3; a >= 0; --a) {
      mask_base += (rest % lead[a]) * stride[a];
      rest /= lead[a];
    }
    const float* q = query.data.data() + n * L * E;
    const float* k = key.data.data() + n * S * E;
    const float* v = value.data.data() + n * S * Ev;
    for (int i = 0; i < L; ++i) {
      const std::size_t row = (n * L + i) * S;
      float row_max = kNegInf;
      for (int j = 0; j < S; ++j) {
        float dot = 0.0f;
        for (int e = 0; e < E; ++e) dot += q[i * E + e] * k[j * E + e];
        scores.data[row + j] = dot;
        const float s = dot * scale;
        scaled.data[row + j] = s;
        float x = s;
        if (options.is_causal) {
          if (j > i) x = kNegInf;
        } else if (mask.present()) {
          const float m = mask.data[mask_base + i * stride[rank - 2] + j * stride[rank - 1]];
          x = options.mask_boolean ? (m != 0.0f ? s : kNegInf) : s + m;
        }
        logits.data[row + j] = x;
        if (x > row_max) row_max = x;
      }
      // softmax over S; a fully masked row (max −∞) gets zero weights
      float sum = 0.0f;
      for (int j = 0; j < S; ++j) {
        const float w = row_max == kNegInf ? 0.0f : std::exp(logits.data[row + j] - row_max);
        weights.data[row + j] = w;
        sum += w;
      }
      for (int j = 0; j < S; ++j) {
        if (sum > 0.0f) weights.data[row + j] /= sum;
      }
      const float* p = weights.data.data() + row;
      if (dropping) {
        for (int j = 0; j < S; ++j) {
          const bool keep = dropout_keeps(static_cast<std::uint32_t>(options.seed), static_cast<std::uint32_t>(row + j), options.dropout_p);
          dropped.data[row + j] = keep ? weights.data[row + j] / (1.0f - options.dropout_p) : 0.0f;
        }
        p = dropped.data.data() + row;
      }
      float* out = output.data.data() + (n * L + i) * Ev;
      for (int j = 0; j < S; ++j) {
        for (int c = 0; c < Ev; ++c) out[c] += p[j] * v[j * Ev + c];
      }
    }
  }
  result.output = std::move(output);
  // A score that left float32 keeps every stage (for the API's result check to name): as −∞ it passes for a mask.
  if (!options.intermediates && scores.all_finite() && scaled.all_finite()) return result;
  result.scores = std::move(scores);
  result.scaled = std::move(scaled);
  if (masked) result.masked = std::move(logits);
  result.weights = std::move(weights);
  result.dropped = std::move(dropped);
  return result;
}

}  // namespace unchecked

SdpaResult scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                        const SdpaOptions& options) {
  return checked(check_scaled_dot_product_attention, unchecked::scaled_dot_product_attention, query, key, value,
                 options);
}

}  // namespace ap
