// The attention backward kernels of attention_heads_backward.h, written once against simd.h's vocabulary.
#include "attention_heads_backward.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "gemm.h"
#include "simd.h"

namespace ap::kernels {

namespace {

using namespace simd;

constexpr int kKeyTile = 32;  // keys per tile of the row-by-row variant: their dK and dV (2·32·d_head floats) stay in cache
// The GEMM variant: a strip of up to 128 query rows × 32 keys per product. Causal, the rows that see a key tile
// start at the tile, so the half-masked diagonal block is one tile square: at T = 128, tiles of 32 take 128, 96,
// 64 and 32 rows (320 rows × 32 keys per product) where tiles of 64 took 128 and 64 (192 × 64). Once the GEMM
// kept its panels' memory between calls, the smaller tiles' extra calls cost less than the work they save.
// (32×32 query-by-key tiles took ten tile pairs of five calls plus two transposes and three sums each, and were
// slower.) S, P, dP, dS: 2·16 KiB.
constexpr int kFusedKeyTile = 32;
constexpr int kFusedQueryBlock = 128;

// Σ_p a[p]·b[p], four lanes at a time, then the leftover elements.
float dot(const float* a, const float* b, int n) {
  f32x4 sum = zero();
  int p = 0;
  for (; p + kLanes <= n; p += kLanes) sum = mul_add(load(a + p), load(b + p), sum);
  float total = horizontal_sum(sum);
  for (; p < n; ++p) total += a[p] * b[p];
  return total;
}

// y += alpha·x over n elements.
void add_scaled(float* y, float alpha, const float* x, int n) {
  const f32x4 a = splat(alpha);
  int p = 0;
  for (; p + kLanes <= n; p += kLanes) store(y + p, mul_add(a, load(x + p), load(y + p)));
  for (; p < n; ++p) y[p] += alpha * x[p];
}

// Where row i of head h, batch b, lives in a (batch·t, heads·d_head) matrix with the given row stride.
const float* row_of(const float* base, int stride, int b, int t, int i, int column) {
  return base + static_cast<std::size_t>(b * t + i) * stride + column;
}
float* row_of(float* base, int stride, int b, int t, int i, int column) {
  return base + static_cast<std::size_t>(b * t + i) * stride + column;
}

// Keys j < visible(i) are seen by query i: all of them, or j ≤ i when causal (top-left aligned).
int visible_keys(const AttentionHeads& s, int i) { return s.causal ? std::min(i + 1, s.tk) : s.tk; }

// P_ij from the raw score s = q·k and row i's statistics (attention_heads_backward.h).
struct RowStatistics {
  float scale, row_max, log_sum;
  bool split;  // row_max and log_sum as the forward saves them; else row_max is the lse itself
  float weight(float score) const {
    return split ? std::exp(scale * (score - row_max) - log_sum) : std::exp(scale * score - row_max);
  }
  f32x4 weight(f32x4 score) const {
    return split ? exp(sub(mul(splat(scale), sub(score, splat(row_max))), splat(log_sum)))
                 : exp(sub(mul(splat(scale), score), splat(row_max)));
  }
};

RowStatistics statistics_of(const AttentionHeadsBackward& g, int b, int h, int i) {
  const long at = statistic_index(g.forward, b, h, i);
  return {g.forward.score_scale, g.row_max[at], g.log_sum ? g.log_sum[at] : 0.0f, g.log_sum != nullptr};
}

}  // namespace

void attention_heads_backward_reference(const AttentionHeadsBackward& g) {
  const AttentionHeads& s = g.forward;
  const int d = s.d_head;
  for (int b = 0; b < s.batch; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const int column = h * d;
      for (int j = 0; j < s.tk; ++j) {
        std::fill_n(row_of(g.grad_key, g.grad_key_stride, b, s.tk, j, column), d, 0.0f);
        std::fill_n(row_of(g.grad_value, g.grad_value_stride, b, s.tk, j, column), d, 0.0f);
      }
      for (int i = 0; i < s.tq; ++i) {
        const float* q = row_of(s.query, s.query_stride, b, s.tq, i, column);
        const float* o = row_of(s.context, s.context_stride, b, s.tq, i, column);
        const float* d_o = row_of(g.grad_context, g.grad_context_stride, b, s.tq, i, column);
        float* d_q = row_of(g.grad_query, g.grad_query_stride, b, s.tq, i, column);
        const RowStatistics row = statistics_of(g, b, h, i);
        // D_i = dO_i·O_i
        float row_dot = 0.0f;
        for (int p = 0; p < d; ++p) row_dot += d_o[p] * o[p];
        std::fill_n(d_q, d, 0.0f);
        for (int j = 0; j < visible_keys(s, i); ++j) {
          const float* k = row_of(s.key, s.key_stride, b, s.tk, j, column);
          const float* v = row_of(s.value, s.value_stride, b, s.tk, j, column);
          float score = 0.0f, d_p = 0.0f;
          for (int p = 0; p < d; ++p) {
            score += q[p] * k[p];
            d_p += d_o[p] * v[p];
          }
          // P_ij = exp(s_ij − lse_i);  dS_ij = P_ij·(dP_ij − D_i)
          const float p_ij = row.weight(score);
          const float d_s = p_ij * (d_p - row_dot);
          float* d_k = row_of(g.grad_key, g.grad_key_stride, b, s.tk, j, column);
          float* d_v = row_of(g.grad_value, g.grad_value_stride, b, s.tk, j, column);
          for (int p = 0; p < d; ++p) {
            d_q[p] += s.score_scale * d_s * k[p];
            d_k[p] += s.score_scale * d_s * q[p];
            d_v[p] += p_ij * d_o[p];
          }
        }
      }
    }
  }
}

void attention_heads_backward_rowwise(const AttentionHeadsBackward& g) {
  const AttentionHeads& s = g.forward;
  const int d = s.d_head;
  std::vector<float> row_dots(static_cast<std::size_t>(s.tq));
  std::vector<float> grad_key(static_cast<std::size_t>(kKeyTile) * d), grad_value(grad_key.size());
  for (int b = 0; b < s.batch; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const int column = h * d;
      // 1. D_i = dO_i·O_i for every query row; dQ starts at zero and gathers every key tile's share
      for (int i = 0; i < s.tq; ++i) {
        row_dots[i] = dot(row_of(g.grad_context, g.grad_context_stride, b, s.tq, i, column),
                          row_of(s.context, s.context_stride, b, s.tq, i, column), d);
        std::fill_n(row_of(g.grad_query, g.grad_query_stride, b, s.tq, i, column), d, 0.0f);
      }
      // 2. key tiles outside, queries inside: the tile's dK and dV stay in the scratch until every query is done
      for (int j0 = 0; j0 < s.tk; j0 += kKeyTile) {
        const int j1 = std::min(j0 + kKeyTile, s.tk);
        std::fill(grad_key.begin(), grad_key.end(), 0.0f);
        std::fill(grad_value.begin(), grad_value.end(), 0.0f);
        // causal: queries i < j0 see none of these keys, so the tile is skipped for them
        for (int i = s.causal ? j0 : 0; i < s.tq; ++i) {
          const int j_end = std::min(j1, visible_keys(s, i));
          const float* q = row_of(s.query, s.query_stride, b, s.tq, i, column);
          const float* d_o = row_of(g.grad_context, g.grad_context_stride, b, s.tq, i, column);
          float* d_q = row_of(g.grad_query, g.grad_query_stride, b, s.tq, i, column);
          const RowStatistics row = statistics_of(g, b, h, i);
          for (int j = j0; j < j_end; ++j) {
            const float* k = row_of(s.key, s.key_stride, b, s.tk, j, column);
            const float* v = row_of(s.value, s.value_stride, b, s.tk, j, column);
            // 3. P_ij = exp(s_ij − lse_i), recomputed;  dP_ij = dO_i·v_j;  dS_ij = P_ij·(dP_ij − D_i)
            const float p_ij = row.weight(dot(q, k, d));
            const float d_s = s.score_scale * p_ij * (dot(d_o, v, d) - row_dots[i]);
            // 4. dV_j += P_ij·dO_i;  dK_j += c·dS_ij·q_i;  dQ_i += c·dS_ij·k_j
            add_scaled(grad_value.data() + static_cast<std::size_t>(j - j0) * d, p_ij, d_o, d);
            add_scaled(grad_key.data() + static_cast<std::size_t>(j - j0) * d, d_s, q, d);
            add_scaled(d_q, d_s, k, d);
          }
        }
        // 5. the tile's dK and dV are complete
        for (int j = j0; j < j1; ++j) {
          std::copy_n(grad_key.data() + static_cast<std::size_t>(j - j0) * d, d,
                      row_of(g.grad_key, g.grad_key_stride, b, s.tk, j, column));
          std::copy_n(grad_value.data() + static_cast<std::size_t>(j - j0) * d, d,
                      row_of(g.grad_value, g.grad_value_stride, b, s.tk, j, column));
        }
      }
    }
  }
}

void attention_heads_backward_fused(const AttentionHeadsBackward& g) {
  const AttentionHeads& s = g.forward;
  const int d = s.d_head;
  const std::size_t strip = static_cast<std::size_t>(kFusedQueryBlock) * kFusedKeyTile;
  std::vector<float> row_dots(static_cast<std::size_t>(s.tq));
  std::vector<float> weights(strip), grad_scores(strip);  // S then P, dP then dS: (query rows, keys of the tile)
  for (int b = 0; b < s.batch; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const int column = h * d;
      const float* query = row_of(s.query, s.query_stride, b, s.tq, 0, column);
      const float* key = row_of(s.key, s.key_stride, b, s.tk, 0, column);
      const float* value = row_of(s.value, s.value_stride, b, s.tk, 0, column);
      const float* grad_context = row_of(g.grad_context, g.grad_context_stride, b, s.tq, 0, column);
      float* grad_query = row_of(g.grad_query, g.grad_query_stride, b, s.tq, 0, column);
      float* grad_key = row_of(g.grad_key, g.grad_key_stride, b, s.tk, 0, column);
      float* grad_value = row_of(g.grad_value, g.grad_value_stride, b, s.tk, 0, column);
      // 1. D_i = dO_i·O_i for every query row; dQ starts at zero
      for (int i = 0; i < s.tq; ++i) {
        row_dots[i] = dot(grad_context + static_cast<std::size_t>(i) * g.grad_context_stride,
                          row_of(s.context, s.context_stride, b, s.tq, i, column), d);
        std::fill_n(grad_query + static_cast<std::size_t>(i) * g.grad_query_stride, d, 0.0f);
      }
      // 2. key tiles outside, blocks of the query rows that see them inside
      for (int j0 = 0; j0 < s.tk; j0 += kFusedKeyTile) {
        const int cols = std::min(kFusedKeyTile, s.tk - j0);
        const float* key_tile = key + static_cast<std::size_t>(j0) * s.key_stride;
        const float* value_tile = value + static_cast<std::size_t>(j0) * s.value_stride;
        float* grad_key_tile = grad_key + static_cast<std::size_t>(j0) * g.grad_key_stride;
        float* grad_value_tile = grad_value + static_cast<std::size_t>(j0) * g.grad_value_stride;
        // causal: queries before key j0 see none of the tile; when no query sees it, its dK and dV are zero
        const int first_query = s.causal ? std::min(j0, s.tq) : 0;
        if (first_query == s.tq) {
          for (int j = 0; j < cols; ++j) {
            std::fill_n(grad_key_tile + static_cast<std::size_t>(j) * g.grad_key_stride, d, 0.0f);
            std::fill_n(grad_value_tile + static_cast<std::size_t>(j) * g.grad_value_stride, d, 0.0f);
          }
        }
        for (int i0 = first_query; i0 < s.tq; i0 += kFusedQueryBlock) {
          const int rows = std::min(kFusedQueryBlock, s.tq - i0);
          const bool add = i0 > first_query;  // the first block writes the tile's dK and dV, the others add
          const float* query_block = query + static_cast<std::size_t>(i0) * s.query_stride;
          const float* grad_context_block = grad_context + static_cast<std::size_t>(i0) * g.grad_context_stride;
          // 3. S = Q_i·K_jᵀ (rows, cols), raw; P on the visible keys (step 5), 0 on the masked ones
          matmul(query_block, key_tile, weights.data(), {rows, d, cols, s.query_stride, s.key_stride, cols, true});
          // 4. dP = dO_i·V_jᵀ (rows, cols)
          matmul(grad_context_block, value_tile, grad_scores.data(), {rows, d, cols, g.grad_context_stride, s.value_stride, cols, true});
          for (int r = 0; r < rows; ++r) {
            const int i = i0 + r;
            const RowStatistics row = statistics_of(g, b, h, i);
            const f32x4 scale = splat(s.score_scale), row_dot = splat(row_dots[i]);
            const int visible = std::clamp(visible_keys(s, i) - j0, 0, cols);
            float* p = weights.data() + static_cast<std::size_t>(r) * cols;
            float* ds = grad_scores.data() + static_cast<std::size_t>(r) * cols;
            // 5. P from the raw scores and the row's lse; dS = c·P ⊙ (dP − D_i), four keys at a time
            int c = 0;
            for (; c + kLanes <= visible; c += kLanes) {
              const f32x4 weight_lanes = row.weight(load(p + c));
              store(p + c, weight_lanes);
              store(ds + c, mul(scale, mul(weight_lanes, sub(load(ds + c), row_dot))));
            }
            for (; c < visible; ++c) {
              p[c] = row.weight(p[c]);
              ds[c] = s.score_scale * p[c] * (ds[c] - row_dots[i]);
            }
            std::fill(p + visible, p + cols, 0.0f);
            std::fill(ds + visible, ds + cols, 0.0f);
          }
          // 6. dV_j (=|+=) Pᵀ·dO_i;  dK_j (=|+=) dSᵀ·Q_i;  dQ_i += dS·K_j  (c already in dS). Pᵀ and dSᵀ are
          //    read transposed by the GEMM's packing, and every product lands in its output rows directly.
          MatmulShape transposed{cols, rows, d, cols, g.grad_context_stride, g.grad_value_stride, false};
          transposed.transpose_a = true;
          transposed.accumulate = add;
          matmul(weights.data(), grad_context_block, grad_value_tile, transposed);
          transposed.ldb = s.query_stride;
          transposed.ldc = g.grad_key_stride;
          matmul(grad_scores.data(), query_block, grad_key_tile, transposed);
          MatmulShape into_query{rows, cols, d, cols, s.key_stride, g.grad_query_stride, false};
          into_query.accumulate = true;
          matmul(grad_scores.data(), key_tile, grad_query + static_cast<std::size_t>(i0) * g.grad_query_stride, into_query);
        }
      }
    }
  }
}

}  // namespace ap::kernels
