#include "attention/multihead.h"

#include <vector>

#include "attention/check_helpers.h"
#include "attention/checks.h"
#include "attention/projection.h"
#include "attention/head_attention.h"

namespace ap {

namespace unchecked {

AttentionResult multihead_attention_stacked(const Tensor& x, const StackedWeights& weights,
                                            const AttentionOptions& options) {
  const int heads = static_cast<int>(weights.heads.size());

  // 1. every head projects on its own: Q_h = X·Wq_h + bq_h, (B, T, d_head), and likewise K_h, V_h;
  // 2. lay the heads side by side, H × (B, T, d_head) -> (B, T, H·d_head): head h is column block h,
  //    exactly where split's single projection puts it; attention never mixes heads, so running them
  //    together below is the same as running them one by one
  const QueryKeyValue projected = project_heads(x, weights.heads);
  return attend_heads(projected.query, projected.key, projected.value, heads, weights.out_weight, weights.out_bias,
                      options);
}

AttentionResult multihead_attention_split(const Tensor& x, const ProjectionWeights& weights,
                                          const AttentionOptions& options) {
  // region: multihead-split
  // 1. one projection each for Q, K, V: (B, T, d_in)·(d_in, d_out) -> (B, T, d_out)
  const Tensor query = project(x, weights.query, weights.query_bias);
  const Tensor key = project(x, weights.key, weights.key_bias);
  const Tensor value = project(x, weights.value, weights.value_bias);
  // 2. split into heads, attend, merge, project out
  return attend_heads(query, key, value, options.heads, weights.out_weight, weights.out_bias, options);
  // endregion
}

AttentionResult multihead_attention_fused(const Tensor& x, const FusedWeights& weights,
                                          const AttentionOptions& options) {
  const int d_out = weights.in_projection.shape[1] / 3;
  // 1. one projection for all three: (B, T, d_in)·(d_in, 3·d_out) -> (B, T, 3·d_out)
  const Tensor qkv = project(x, weights.in_projection, weights.in_bias);
  // 2. cut it into [Q | K | V]: (B, T, 3·d_out) -> 3 × (B, T, d_out)
  const Tensor query = column_block(qkv, 0, d_out);
  const Tensor key = column_block(qkv, d_out, d_out);
  const Tensor value = column_block(qkv, 2 * d_out, d_out);
  // 3. split into heads, attend, merge, project out
  return attend_heads(query, key, value, options.heads, weights.out_weight, weights.out_bias, options);
}

}  // namespace unchecked

AttentionResult multihead_attention_stacked(const Tensor& x, const StackedWeights& weights,
                                            const AttentionOptions& options) {
  return checked(check_multihead_attention_stacked, unchecked::multihead_attention_stacked, x, weights, options);
}

AttentionResult multihead_attention_split(const Tensor& x, const ProjectionWeights& weights,
                                          const AttentionOptions& options) {
  return checked(check_multihead_attention_split, unchecked::multihead_attention_split, x, weights, options);
}

AttentionResult multihead_attention_fused(const Tensor& x, const FusedWeights& weights,
                                          const AttentionOptions& options) {
  return checked(check_multihead_attention_fused, unchecked::multihead_attention_fused, x, weights, options);
}

}  // namespace ap
