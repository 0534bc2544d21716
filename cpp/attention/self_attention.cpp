#include "attention/self_attention.h"

#include "attention/check_helpers.h"
#include "attention/checks.h"
#include "attention/projection.h"
#include "attention/head_attention.h"

namespace ap {

namespace unchecked {

// region: self-attention
AttentionResult self_attention(const Tensor& x, const ProjectionWeights& weights, const AttentionOptions& options) {
  const int batch = x.shape[0], time = x.shape[1];

  AttentionResult result;
  // 1. project: query, key, value = X·Wq + bq, X·Wk + bk, X·Wv + bv, each (B, T, d_out)
  result.query = project(x, weights.query, weights.query_bias, options.layout);
  result.key = project(x, weights.key, weights.key_bias, options.layout);
  result.value = project(x, weights.value, weights.value_bias, options.layout);
  // endregion

  // region: self-attention-one-head
  const int d_out = result.query.shape[2];

  // 2. attend, as one head: (B, T, d_out) -> (B, 1, T, d_out) is only a new shape, same data
  auto as_one_head = [](Tensor t) {
    t.shape.insert(t.shape.begin() + 1, 1);
    return t;
  };
  Tensor output = attention_per_head(as_one_head(result.query), as_one_head(result.key),
                                   as_one_head(result.value), options, result);

  // 3. drop the head axis again: (B, 1, T, T) -> (B, T, T), (B, 1, T, d_out) -> (B, T, d_out)
  for (Tensor* stage : {&result.scores, &result.scaled, &result.masked, &result.weights, &result.dropped}) {
    if (stage->present()) stage->shape = {batch, time, time};
  }
  output.shape = {batch, time, d_out};
  result.output = std::move(output);
  return result;
  // endregion
}

}  // namespace unchecked

AttentionResult self_attention(const Tensor& x, const ProjectionWeights& weights, const AttentionOptions& options) {
  return checked(check_self_attention, unchecked::self_attention, x, weights, options);
}

}  // namespace ap
