// The attention backward kernels of attention_heads_backward.h, written once against simd.h's vocabulary.
#include "attention_heads_backward.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "simd.h"

namespace ap::kernels {

namespace {

using namespace simd;

constexpr int kKeyTile = 32;  // keys per tile: their dK and dV (2·32·d_head floats) stay in cache

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

// exp(s − lse) with lse = row_max + log_sum: (s − row_max) first, exact where s is near the max.
float weight(float score, float row_max, float log_sum) { return std::exp((score - row_max) - log_sum); }

std::size_t statistic_index(const AttentionHeads& s, int b, int h, int i) {
  return (static_cast<std::size_t>(b) * s.heads + h) * s.tq + i;
}

}  // namespace

void attention_heads_with_statistics(const AttentionHeads& s, float* row_max, float* log_sum) {
  std::vector<float> scores(static_cast<std::size_t>(std::max(s.tk, 1)));
  for (int b = 0; b < s.batch; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const int column = h * s.d_head;
      for (int i = 0; i < s.tq; ++i) {
        const float* q = row_of(s.query, s.query_stride, b, s.tq, i, column);
        const int visible = visible_keys(s, i);
        // 1. scores s_j = scale·q·k_j and their max
        float max_score = -std::numeric_limits<float>::infinity();
        for (int j = 0; j < visible; ++j) {
          scores[j] = s.score_scale * dot(q, row_of(s.key, s.key_stride, b, s.tk, j, column), s.d_head);
          max_score = std::max(max_score, scores[j]);
        }
        // 2. exp(s_j − max) and their sum l; lse = max + log l
        float sum = 0.0f;
        for (int j = 0; j < visible; ++j) {
          scores[j] = std::exp(scores[j] - max_score);
          sum += scores[j];
        }
        row_max[statistic_index(s, b, h, i)] = max_score;
        log_sum[statistic_index(s, b, h, i)] = std::log(sum);
        // 3. context = Σ_j (exp(s_j − max)/l)·v_j
        float* out = row_of(s.context, s.context_stride, b, s.tq, i, column);
        std::fill(out, out + s.d_head, 0.0f);
        for (int j = 0; j < visible; ++j) {
          add_scaled(out, scores[j] / sum, row_of(s.value, s.value_stride, b, s.tk, j, column), s.d_head);
        }
      }
    }
  }
}

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
        const std::size_t at = statistic_index(s, b, h, i);
        const float m = g.row_max[at], log_l = g.log_sum ? g.log_sum[at] : 0.0f;
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
          const float p_ij = weight(s.score_scale * score, m, log_l);
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

void attention_heads_backward_fused(const AttentionHeadsBackward& g) {
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
          const std::size_t at = statistic_index(s, b, h, i);
          const float m = g.row_max[at], log_l = g.log_sum ? g.log_sum[at] : 0.0f;
          for (int j = j0; j < j_end; ++j) {
            const float* k = row_of(s.key, s.key_stride, b, s.tk, j, column);
            const float* v = row_of(s.value, s.value_stride, b, s.tk, j, column);
            // 3. P_ij = exp(s_ij − lse_i), recomputed;  dP_ij = dO_i·v_j;  dS_ij = P_ij·(dP_ij − D_i)
            const float p_ij = weight(s.score_scale * dot(q, k, d), m, log_l);
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

}  // namespace ap::kernels
