// The backward of attention over all heads (attention_heads.h's layout), FlashAttention-2 style: the
// weights P are never stored; they are recomputed tile by tile from the forward's per-row log-sum-exp.
//
// Per query row i of a head (s_ij = q_i·k_j over the visible keys j, c = score_scale, as the forward):
//   lse_i = log Σ_j exp(c·s_ij)                    saved by the forward as c·row_max_i + log_sum_i (attention_heads.h)
//   P_ij  = exp(c·(s_ij − row_max_i) − log_sum_i)   recomputed: s − row_max first, exact where q·k is
//   dP_ij = dO_i·v_j,  dS_ij = P_ij·(dP_ij − D_i),  D_i = Σ_j P_ij·dP_ij
//   dQ_i  = c·Σ_j dS_ij·k_j,  dK_j = c·Σ_i dS_ij·q_i,  dV_j = Σ_i P_ij·dO_i
// The bracket is computed from dP alone, shifted by the row's first visible key r_i = dP_i0:
//   dP_ij − D_i = (dP_ij − r_i) − D'_i,  D'_i = Σ_j P_ij·(dP_ij − r_i)        (Σ_j P_ij = 1)
// not from FlashAttention-2's D_i = dO_i·O_i, which equals Σ_j P_ij·dP_ij only in exact arithmetic: with one
// visible key (P_i0 = 1, the softmax's gradient is exactly 0, as torch gives) dO_i·O_i and dO_i·v_0 round
// differently, and their ~1e-8 difference, which AdamW divides by its √v, moved weights whose gradient is 0.
// Shifted, that row's bracket is (dP_i0 − dP_i0) − P_i0·0 = 0 exactly, whatever P_i0's rounding; each row of dS
// sums to D'_i·(1 − Σ_j P_ij), near 0; and the differences dP_ij − r_i cancel no digits of the bracket.
// A caller holding only the lse passes it as row_max with log_sum = null: then P_ij = exp(c·s_ij − lse_i).
#pragma once

#include "attention_heads.h"

namespace ap::kernels {

struct AttentionHeadsBackward {
  AttentionHeads forward;      // query, key, value (read), sizes, scale, causal; its context (the forward's
                               // output), row_max and log_sum are not read (the two below are)
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

// The backward of `forward` with every gradient packed like its inputs: dO read, dQ, dK and dV written, each a
// (rows, heads·d_head) matrix of row stride heads·d_head; the statistics are the forward's row_max and log_sum.
AttentionHeadsBackward packed_backward(const AttentionHeads& forward, const float* grad_context, float* grad_query,
                                       float* grad_key, float* grad_value);

// The slow, obvious backward: one query row at a time, the formulas above as they read. O(tk) scratch.
void attention_heads_backward_reference(const AttentionHeadsBackward& problem);

// Variant 2, row by row: per head, each row's r_i and D'_i first (one pass over its keys), then key tiles in
// the outer loop, their dK and dV accumulated in a tile-sized scratch while every query that sees the tile
// passes (query rows before a causal tile's first key are skipped: the tile is masked for them); dQ
// accumulated in place. Dot products and updates vectorised along d_head (simd.h). Scratch
// O(tq + tile·d_head): never a (tq, tk) matrix.
void attention_heads_backward_rowwise(const AttentionHeadsBackward& problem);

// Variant 3, the fused backward the pipeline runs: per head, blocks of up to 128 query rows outside, key tiles
// of 32 inside, taken twice: first S = Q·Kᵀ → P and dP = dO·Vᵀ → dP − r_i for the rows that see each tile,
// D'_i summed over the tiles; then dS and the products dV += Pᵀ·dO and dK += dSᵀ·Q (read transposed by the
// GEMM's packing) and dQ += dS·K, each one GEMM call (gemm.h) written straight into the outputs; P and dS
// computed four keys at a time; causal query rows before a key tile are skipped. Scratch O(128·tk): P and dP
// of one block of query rows, never the whole (tq, tk) matrix.
void attention_heads_backward_fused(const AttentionHeadsBackward& problem);

}  // namespace ap::kernels
