// The backward of attention over all heads (attention_heads.h's layout), FlashAttention-2 style: the
// weights P are never stored; they are recomputed tile by tile from the forward's per-row log-sum-exp.
//
// Per query row i of a head (s_ij = score_scale·q_i·k_j over the visible keys j, as the forward):
//   lse_i = log Σ_j exp(s_ij)                      saved by the forward, as row_max_i + log_sum_i
//   P_ij  = exp(s_ij − lse_i)                       recomputed
//   D_i   = Σ_d dO_id·O_id   (= Σ_j P_ij·dP_ij)    one dot product per row, from the forward's output O
//   dP_ij = dO_i·v_j,  dS_ij = P_ij·(dP_ij − D_i)
//   dQ_i  = score_scale·Σ_j dS_ij·k_j,  dK_j = score_scale·Σ_i dS_ij·q_i,  dV_j = Σ_i P_ij·dO_i
//
// lse is kept as two floats, row_max (the row's largest scaled score) and log_sum = log Σ_j exp(s_ij − row_max):
// near logits of 1e4 one float lse has an ulp of ~5e-4, so exp(s − lse) would be off by that much, while
// (s − row_max) is exact there and log_sum is small. A caller holding only lse passes it as row_max and
// log_sum = null (zeros).
#pragma once

#include "attention_heads.h"

namespace ap::kernels {

struct AttentionHeadsBackward {
  AttentionHeads forward;      // query, key, value, context = the forward's output O (read), sizes, scale, causal
  const float* grad_context = nullptr;  // dO (batch·tq, heads·d_head), row stride grad_context_stride
  int grad_context_stride = 0;
  const float* row_max = nullptr;       // (batch, heads, tq)
  const float* log_sum = nullptr;       // (batch, heads, tq), or null: zeros (row_max is then lse itself)
  float* grad_query = nullptr;          // dQ (batch·tq, heads·d_head), overwritten
  int grad_query_stride = 0;
  float* grad_key = nullptr;            // dK (batch·tk, heads·d_head), overwritten
  int grad_key_stride = 0;
  float* grad_value = nullptr;          // dV (batch·tk, heads·d_head), overwritten
  int grad_value_stride = 0;
};

// The forward with its statistics: writes problem.context like attention_heads_reference, and row_max and
// log_sum (batch, heads, tq) as above. One query row at a time: its scores (O(tk) scratch), max, sum, Σ P·v.
void attention_heads_with_statistics(const AttentionHeads& problem, float* row_max, float* log_sum);

// The slow, obvious backward: one query row at a time, the formulas above as they read. O(tk) scratch.
void attention_heads_backward_reference(const AttentionHeadsBackward& problem);

// Variant 2, row by row: per head, key tiles in the outer loop, their dK and dV accumulated in a tile-sized
// scratch while every query that sees the tile passes (query rows before a causal tile's first key are
// skipped: the tile is masked for them); dQ accumulated in place. Dot products and updates vectorised along
// d_head (simd.h). Scratch O(tq + tile·d_head): never a (tq, tk) matrix.
void attention_heads_backward_rowwise(const AttentionHeadsBackward& problem);

// Variant 3, the fused backward the pipeline runs: the same loops over (32 queries × 32 keys) tiles, each
// product a GEMM call (gemm.h: S = Q·Kᵀ, dP = dO·Vᵀ, dV += Pᵀ·dO, dK += dSᵀ·Q, dQ += dS·K) and P, dS computed
// four keys at a time; query tiles that end before a causal key tile begins are skipped.
// Scratch O(tq + tile² + tile·d_head).
void attention_heads_backward_fused(const AttentionHeadsBackward& problem);

}  // namespace ap::kernels
