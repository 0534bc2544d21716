// The backward of attention over all heads (attention_heads.h's layout), FlashAttention-2 style: the
// weights P are never stored; they are recomputed tile by tile from the forward's per-row log-sum-exp.
//
// Per query row i of a head (s_ij = q_i·k_j over the visible keys j, c = score_scale, as the forward):
//   lse_i = log Σ_j exp(c·s_ij)                    saved by the forward as c·row_max_i + log_sum_i (attention_heads.h)
//   P_ij  = exp(c·(s_ij − row_max_i) − log_sum_i)   recomputed: s − row_max first, exact where q·k is
//   D_i   = Σ_d dO_id·O_id   (= Σ_j P_ij·dP_ij)    one dot product per row, from the forward's output O
//   dP_ij = dO_i·v_j,  dS_ij = P_ij·(dP_ij − D_i)
//   dQ_i  = c·Σ_j dS_ij·k_j,  dK_j = c·Σ_i dS_ij·q_i,  dV_j = Σ_i P_ij·dO_i
// A caller holding only the lse passes it as row_max with log_sum = null: then P_ij = exp(c·s_ij − lse_i).
#pragma once

#include "attention_heads.h"

namespace ap::kernels {

struct AttentionHeadsBackward {
  AttentionHeads forward;      // query, key, value, context = the forward's output O (read), sizes, scale, causal;
                               // its row_max and log_sum are not read (the two below are)
  const float* grad_context = nullptr;  // dO (batch·tq, heads·d_head), row stride grad_context_stride
  int grad_context_stride = 0;
  const float* row_max = nullptr;       // (batch, heads, tq): the forward's, or the lse itself when log_sum is null
  const float* log_sum = nullptr;       // (batch, heads, tq), or null
  float* grad_query = nullptr;          // dQ (batch·tq, heads·d_head), overwritten
  int grad_query_stride = 0;
  float* grad_key = nullptr;            // dK (batch·tk, heads·d_head), overwritten
  int grad_key_stride = 0;
  float* grad_value = nullptr;          // dV (batch·tk, heads·d_head), overwritten
  int grad_value_stride = 0;
};

// The slow, obvious backward: one query row at a time, the formulas above as they read. O(tk) scratch.
void attention_heads_backward_reference(const AttentionHeadsBackward& problem);

// Variant 2, row by row: per head, key tiles in the outer loop, their dK and dV accumulated in a tile-sized
// scratch while every query that sees the tile passes (query rows before a causal tile's first key are
// skipped: the tile is masked for them); dQ accumulated in place. Dot products and updates vectorised along
// d_head (simd.h). Scratch O(tq + tile·d_head): never a (tq, tk) matrix.
void attention_heads_backward_rowwise(const AttentionHeadsBackward& problem);

// Variant 3, the fused backward the pipeline runs: per head, key tiles of 32 outside, blocks of up to 128 of
// the query rows that see the tile inside, each product one GEMM call (gemm.h: S = Q·Kᵀ, dP = dO·Vᵀ,
// dV (=|+=) Pᵀ·dO and dK (=|+=) dSᵀ·Q read transposed by the GEMM's packing, dQ += dS·K), written straight
// into the outputs; P and dS computed four keys at a time; causal query rows before a key tile are skipped.
// Scratch O(tq + 128·32): never a (tq, tk) matrix beyond one block.
void attention_heads_backward_fused(const AttentionHeadsBackward& problem);

}  // namespace ap::kernels
