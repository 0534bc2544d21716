// Scaled dot-product attention over all heads of already projected queries, keys and values.
//
//   query:   (batch·tq, heads·d_head)  row stride query_stride; head h is columns [h·d_head, (h+1)·d_head)
//   key:     (batch·tk, heads·d_head)  row stride key_stride
//   value:   (batch·tk, heads·d_head)  row stride value_stride
//   context: (batch·tq, heads·d_head)  row stride context_stride, overwritten: the heads concatenated
//
// context[b, i, head h] = Σ_j softmax_j(score_scale · q_i·k_j) v_j, over j ≤ i when causal
// (top-left aligned, as torch.tril, also when tq ≠ tk) and over all j otherwise, leaving out the keys that
// key_padding marks; a query left with no key gets a zero context row, one whose every q·k overflowed float32
// to −∞ a NaN row (the overflow must not pass for a mask).
#pragma once

namespace ap::kernels {

struct AttentionHeads {
  const float* query = nullptr;
  int query_stride = 0;
  const float* key = nullptr;
  int key_stride = 0;
  const float* value = nullptr;
  int value_stride = 0;
  float* context = nullptr;
  int context_stride = 0;
  int batch = 0, tq = 0, tk = 0, heads = 0, d_head = 0;
  float score_scale = 1.0f;  // > 0: 1/√d_head/temperature, or 1/temperature when unscaled
  bool causal = true;
  // Asked for by the backward (attention_heads_backward.h): each query row's log-sum-exp
  //   lse_i = log Σ_j exp(score_scale·q_i·k_j) = score_scale·row_max_i + log_sum_i   over its visible keys,
  // row_max_i = max_j q_i·k_j (raw, before the scale), log_sum_i = log Σ_j exp(score_scale·(q_i·k_j − row_max_i)),
  // each (batch, heads, tq). Two floats because near logits of 1e4 a single float lse has an ulp of ~5e-4.
  // Null: not written.
  float* row_max = nullptr;
  float* log_sum = nullptr;
  // (batch, tk): nonzero = padding, a key no query of that batch element sees (nn.MultiheadAttention's
  // key_padding_mask); null: none. Last, so brace-initialised problems keep their order.
  const float* key_padding = nullptr;
};

// The slow, obvious version: per query row, all scores, the mask, a stable softmax, the weighted sum
// of values. O(tk) scratch per row. What the fused kernel is tested against.
void attention_heads_reference(const AttentionHeads& problem);

// Where query row i of head h, batch b keeps its lse statistics: (batch, heads, tq), row-major.
inline long statistic_index(const AttentionHeads& problem, int b, int h, int i) {
  return (static_cast<long>(b) * problem.heads + h) * problem.tq + i;
}

// The fused kernel: per head, tiles of queries against tiles of keys with an online softmax (a running
// max and a running sum per query, the partial output rescaled when the max grows), skipping key tiles
// entirely above the diagonal when causal. Scratch is O(tile² + tk·d_head), never O(tq·tk).
void attention_heads_fused(const AttentionHeads& problem);

}  // namespace ap::kernels
