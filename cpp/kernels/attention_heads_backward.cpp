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
// slower.) A block's P and dP over all its tiles are kept (2·128·tk floats) so that D'_i is complete before dS.
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

AttentionHeadsBackward packed_backward(const AttentionHeads& forward, const float* grad_context, float* grad_query,
                                       float* grad_key, float* grad_value) {
  const int width = forward.heads * forward.d_head;  // every row stride: the heads side by side
  return {forward,  grad_context, width, forward.row_max, forward.log_sum, grad_query, width,
          grad_key, width,        grad_value, width};
}

void attention_heads_backward_reference(const AttentionHeadsBackward& g) {
  const AttentionHeads& s = g.forward;
  const int d = s.d_head;
  std::vector<float> weights(static_cast<std::size_t>(s.tk)), shifted(weights.size());
  for (int b = 0; b < s.batch; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const int column = h * d;
      for (int j = 0; j < s.tk; ++j) {
        std::fill_n(row_of(g.grad_key, g.grad_key_stride, b, s.tk, j, column), d, 0.0f);
        std::fill_n(row_of(g.grad_value, g.grad_value_stride, b, s.tk, j, column), d, 0.0f);
      }
      for (int i = 0; i < s.tq; ++i) {
        const float* q = row_of(s.query, s.query_stride, b, s.tq, i, column);
        const float* d_o = row_of(g.grad_context, g.grad_context_stride, b, s.tq, i, column);
        float* d_q = row_of(g.grad_query, g.grad_query_stride, b, s.tq, i, column);
        const RowStatistics row = statistics_of(g, b, h, i);
        const int visible = visible_keys(s, i);
        std::fill_n(d_q, d, 0.0f);
        // P_ij = exp(s_ij − lse_i);  dP_ij = dO_i·v_j, kept as dP_ij − r_i with r_i = dP_i0;  D'_i = Σ_j P_ij·(dP_ij − r_i)
        float reference = 0.0f, shifted_dot = 0.0f;
        for (int j = 0; j < visible; ++j) {
          const float* k = row_of(s.key, s.key_stride, b, s.tk, j, column);
          const float* v = row_of(s.value, s.value_stride, b, s.tk, j, column);
          float score = 0.0f, d_p = 0.0f;
          for (int p = 0; p < d; ++p) {
            score += q[p] * k[p];
            d_p += d_o[p] * v[p];
          }
          if (j == 0) reference = d_p;
          weights[j] = row.weight(score);
          shifted[j] = d_p - reference;
          shifted_dot += weights[j] * shifted[j];
        }
        for (int j = 0; j < visible; ++j) {
          const float* k = row_of(s.key, s.key_stride, b, s.tk, j, column);
          // dS_ij = P_ij·((dP_ij − r_i) − D'_i)
          const float d_s = weights[j] * (shifted[j] - shifted_dot);
          float* d_k = row_of(g.grad_key, g.grad_key_stride, b, s.tk, j, column);
          float* d_v = row_of(g.grad_value, g.grad_value_stride, b, s.tk, j, column);
          for (int p = 0; p < d; ++p) {
            d_q[p] += s.score_scale * d_s * k[p];
            d_k[p] += s.score_scale * d_s * q[p];
            d_v[p] += weights[j] * d_o[p];
          }
        }
      }
    }
  }
}

void attention_heads_backward_rowwise(const AttentionHeadsBackward& g) {
  const AttentionHeads& s = g.forward;
  const int d = s.d_head;
  std::vector<float> references(static_cast<std::size_t>(s.tq)), shifted_dots(references.size());
  std::vector<float> grad_key(static_cast<std::size_t>(kKeyTile) * d), grad_value(grad_key.size());
  for (int b = 0; b < s.batch; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const int column = h * d;
      // 1. every query row's r_i = dP_i0 and D'_i = Σ_j P_ij·(dP_ij − r_i), by the same dot products step 3
      //    recomputes (the key tiles below need D'_i complete); dQ starts at zero and gathers every tile's share
      for (int i = 0; i < s.tq; ++i) {
        const float* q = row_of(s.query, s.query_stride, b, s.tq, i, column);
        const float* d_o = row_of(g.grad_context, g.grad_context_stride, b, s.tq, i, column);
        const RowStatistics row = statistics_of(g, b, h, i);
        float reference = 0.0f, shifted_dot = 0.0f;
        for (int j = 0; j < visible_keys(s, i); ++j) {
          const float d_p = dot(d_o, row_of(s.value, s.value_stride, b, s.tk, j, column), d);
          if (j == 0) reference = d_p;
          shifted_dot += row.weight(dot(q, row_of(s.key, s.key_stride, b, s.tk, j, column), d)) * (d_p - reference);
        }
        references[i] = reference;
        shifted_dots[i] = shifted_dot;
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
            // 3. P_ij = exp(s_ij − lse_i), recomputed;  dS_ij = P_ij·((dP_ij − r_i) − D'_i)
            const float p_ij = row.weight(dot(q, k, d));
            const float d_s = s.score_scale * p_ij * ((dot(d_o, v, d) - references[i]) - shifted_dots[i]);
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
  const int block_rows = std::min(kFusedQueryBlock, s.tq);
  // S then P, dP then dS of one block of query rows over every key tile it sees, the tiles one after another
  const std::size_t strip = static_cast<std::size_t>(block_rows) * s.tk;
  std::vector<float> weights(strip), grad_scores(strip);
  std::vector<float> references(static_cast<std::size_t>(block_rows)), shifted_dots(references.size());
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
      // 1. dQ, dK and dV start at zero; every block of query rows adds its share (keys no query sees stay 0)
      for (int i = 0; i < s.tq; ++i) std::fill_n(grad_query + static_cast<std::size_t>(i) * g.grad_query_stride, d, 0.0f);
      for (int j = 0; j < s.tk; ++j) {
        std::fill_n(grad_key + static_cast<std::size_t>(j) * g.grad_key_stride, d, 0.0f);
        std::fill_n(grad_value + static_cast<std::size_t>(j) * g.grad_value_stride, d, 0.0f);
      }
      for (int i0 = 0; i0 < s.tq; i0 += kFusedQueryBlock) {
        const int i1 = std::min(i0 + kFusedQueryBlock, s.tq);
        const int key_end = s.causal ? std::min(i1, s.tk) : s.tk;  // the keys the block's last row sees
        // The tiles of this block, in order: keys [j0, j0 + cols) seen by rows [first, i1) (causal: rows before
        // j0 see none of the tile), their P and dP at `at` in the scratch.
        const auto for_each_tile = [&](auto&& visit) {
          std::size_t at = 0;
          for (int j0 = 0; j0 < key_end; j0 += kFusedKeyTile) {
            const int cols = std::min(kFusedKeyTile, key_end - j0);
            const int first = s.causal ? std::max(i0, j0) : i0;
            visit(j0, cols, first, i1 - first, weights.data() + at, grad_scores.data() + at);
            at += static_cast<std::size_t>(i1 - first) * cols;
          }
        };
        // 2. per tile: S = Q·Kᵀ → P (0 on the masked keys); dP = dO·Vᵀ, kept as dP − r_i with r_i = dP_i0 (key 0
        //    is in the first tile, which every row sees); D'_i = Σ_j P_ij·(dP_ij − r_i) over every tile
        for_each_tile([&](int j0, int cols, int first, int rows, float* p_tile, float* dp_tile) {
          matmul(query + static_cast<std::size_t>(first) * s.query_stride, key + static_cast<std::size_t>(j0) * s.key_stride,
                 p_tile, {rows, d, cols, s.query_stride, s.key_stride, cols, true});
          matmul(grad_context + static_cast<std::size_t>(first) * g.grad_context_stride,
                 value + static_cast<std::size_t>(j0) * s.value_stride, dp_tile,
                 {rows, d, cols, g.grad_context_stride, s.value_stride, cols, true});
          for (int r = 0; r < rows; ++r) {
            const int i = first + r;
            const RowStatistics row = statistics_of(g, b, h, i);
            const int visible = std::clamp(visible_keys(s, i) - j0, 0, cols);
            float* p = p_tile + static_cast<std::size_t>(r) * cols;
            float* dp = dp_tile + static_cast<std::size_t>(r) * cols;
            if (j0 == 0) references[i - i0] = dp[0];
            const float reference = references[i - i0];
            const f32x4 reference_lanes = splat(reference);
            f32x4 sum = zero();
            int c = 0;
            for (; c + kLanes <= visible; c += kLanes) {
              const f32x4 weight_lanes = row.weight(load(p + c));
              const f32x4 shifted_lanes = sub(load(dp + c), reference_lanes);
              store(p + c, weight_lanes);
              store(dp + c, shifted_lanes);
              sum = mul_add(weight_lanes, shifted_lanes, sum);
            }
            float partial = horizontal_sum(sum);
            for (; c < visible; ++c) {
              p[c] = row.weight(p[c]);
              dp[c] -= reference;
              partial += p[c] * dp[c];
            }
            std::fill(p + visible, p + cols, 0.0f);
            std::fill(dp + visible, dp + cols, 0.0f);
            shifted_dots[i - i0] = (j0 == 0 ? 0.0f : shifted_dots[i - i0]) + partial;
          }
        });
        // 3. per tile: dS = c·P ⊙ ((dP − r_i) − D'_i), four keys at a time; then dV_j += Pᵀ·dO_i,
        //    dK_j += dSᵀ·Q_i, dQ_i += dS·K_j (c already in dS). Pᵀ and dSᵀ are read transposed by the GEMM's
        //    packing, and every product lands in its output rows directly.
        for_each_tile([&](int j0, int cols, int first, int rows, float* p_tile, float* ds_tile) {
          const f32x4 scale = splat(s.score_scale);
          for (int r = 0; r < rows; ++r) {
            const float shifted_dot = shifted_dots[first + r - i0];
            const f32x4 shifted_dot_lanes = splat(shifted_dot);
            const float* p = p_tile + static_cast<std::size_t>(r) * cols;
            float* ds = ds_tile + static_cast<std::size_t>(r) * cols;
            int c = 0;
            for (; c + kLanes <= cols; c += kLanes)
              store(ds + c, mul(scale, mul(load(p + c), sub(load(ds + c), shifted_dot_lanes))));
            for (; c < cols; ++c) ds[c] = s.score_scale * p[c] * (ds[c] - shifted_dot);
          }
          const float* query_rows = query + static_cast<std::size_t>(first) * s.query_stride;
          const float* grad_context_rows = grad_context + static_cast<std::size_t>(first) * g.grad_context_stride;
          MatmulShape transposed{cols, rows, d, cols, g.grad_context_stride, g.grad_value_stride, false};
          transposed.transpose_a = true;
          transposed.accumulate = true;
          matmul(p_tile, grad_context_rows, grad_value + static_cast<std::size_t>(j0) * g.grad_value_stride, transposed);
          transposed.ldb = s.query_stride;
          transposed.ldc = g.grad_key_stride;
          matmul(ds_tile, query_rows, grad_key + static_cast<std::size_t>(j0) * g.grad_key_stride, transposed);
          MatmulShape into_query{rows, cols, d, cols, s.key_stride, g.grad_query_stride, false};
          into_query.accumulate = true;
          matmul(ds_tile, key + static_cast<std::size_t>(j0) * s.key_stride,
                 grad_query + static_cast<std::size_t>(first) * g.grad_query_stride, into_query);
        });
      }
    }
  }
}

}  // namespace ap::kernels
