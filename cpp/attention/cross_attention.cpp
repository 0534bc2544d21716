#include "attention/cross_attention.h"

#include "attention/check_helpers.h"
#include "attention/checks.h"
#include "attention/projection.h"
#include "attention/head_attention.h"

namespace ap {

namespace unchecked {

AttentionResult cross_attention(const Tensor& x_query, const Tensor& x_context,
                                const ProjectionWeights& weights, const AttentionOptions& options) {
  // region: cross-attention
  // 1. queries come from one sequence, keys and values from the other:
  //    (B, Tq, d_q)·(d_q, d_out) -> (B, Tq, d_out); (B, Tk, d_kv)·(d_kv, d_out) -> (B, Tk, d_out)
  const Tensor query = project(x_query, weights.query, weights.query_bias);
  const Tensor key = project(x_context, weights.key, weights.key_bias);
  //    the values from their own input when options.x_value is given (seed 004's encodings_for_v):
  //    (B, Tk, d_xv)·(d_xv, d_out) -> (B, Tk, d_out)
  const Tensor value = project(options.x_value.present() ? options.x_value : x_context, weights.value, weights.value_bias);
  // 2. split into heads, attend (Tq rows, Tk columns), merge, project out
  return attend_heads(query, key, value, options.heads, weights.out_weight, weights.out_bias, options);
  // endregion
}

}  // namespace unchecked

AttentionResult cross_attention(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& weights,
                                const AttentionOptions& options) {
  return checked(check_cross_attention, unchecked::cross_attention, x_query, x_context, weights, options);
}

}  // namespace ap
