// The fused attention kernel (FlashAttention's loop, on a CPU): for one head, a tile of queries meets
// the keys one tile at a time; the softmax is computed online, so the (tq, tk) weights never exist.
//
// For each query row the tile loop keeps m (a running reference, about the largest score seen),
// l (Σ 2^(s−m)) and o (Σ 2^(s−m)·v), with the scores in base 2: the queries are pre-multiplied by
// scale·log2(e), so 2^s = e^(scale·q·k) and the exponential needs no range reduction by ln 2.
// A new key tile with scores s_j: when max_j s_j > m + margin, m' = max_j s_j and α = 2^(m−m')
// rescale l and o (else m stays);  l ← l + Σ_j 2^(s_j−m),  o ← o + Σ_j 2^(s_j−m)·v_j;  at the end
// context = o / l (any m gives the same quotient).
// Causal: key tiles that start after a query tile's last row are never visited (half the work), and
// inside a diagonal tile each row only takes keys j ≤ i.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attention_heads.h"
#include "replaceable_tiles.h"
#include "register_tile.h"
#include "simd.h"

namespace ap::kernels {

namespace {

using namespace simd;

// Scores use the 6×8 relaxed-SIMD tile when installed (12 accumulators: each splat of a query and
// each load of a key panel feed more multiply-adds), else the inline 4×8 tile (a plain 6×8 spills);
// weights·V uses 4-row tiles that read the probabilities in place.
constexpr int kValueRows = 4;
constexpr int kQueryBlock = 48;  // queries per tile; a multiple of 4 and 6
constexpr int kKeyBlock = 64;    // keys per tile; a multiple of kTileCols
constexpr float kRescaleMargin = 12.0f;  // 2^12 = 4096: how far scores may exceed the running max
constexpr float kLog2e = 1.44269504088896341f;

int round_up(int x, int multiple) { return (x + multiple - 1) / multiple * multiple; }

struct Scratch {
  explicit Scratch(const AttentionHeads& s)
      : padded_d_head(round_up(s.d_head, kTileCols)),
        query_rows(relaxed_tile_installed() ? 6 : 4),
        packed_key(static_cast<size_t>(round_up(s.tk, kTileCols)) * s.d_head),
        packed_query(static_cast<size_t>(kQueryBlock) * s.d_head),
        scores(static_cast<size_t>(kQueryBlock) * kKeyBlock),
        output(static_cast<size_t>(kQueryBlock) * padded_d_head),
        running_max(kQueryBlock),
        running_sum(kQueryBlock),
        installed_tile(relaxed_tile_installed() ? replaceable_register_tile6() : nullptr),
        installed_rows_tile(relaxed_tile_installed() ? replaceable_rows_tile() : nullptr) {}
  int padded_d_head;
  int query_rows;                           // rows of one score tile: 6 (relaxed SIMD) or 4
  std::vector<float> packed_key;            // one head's K as 8-key panels: for each p, k[j..j+8)[p]
  std::vector<float> packed_query;          // the query tile as query_rows-row panels, times scale·log2(e)
  std::vector<float> scores;                // (kQueryBlock, kKeyBlock) scores, then probabilities
  std::vector<float> output;                // (kQueryBlock, padded_d_head) running, unnormalised o
  std::vector<float> running_max, running_sum;
  RegisterTileFunction installed_tile;      // the relaxed-SIMD 6×8 and rows tiles, or null for the inline ones
  RowsTileFunction installed_rows_tile;
};

// K (tk, d_head) of head `column` → panels of 8 keys, zero beyond tk: Kᵀ in GEMM's packed-B layout.
void pack_keys(const AttentionHeads& s, const float* key, int column, float* packed) {
  for (int j0 = 0; j0 < s.tk; j0 += kTileCols) {
    for (int p = 0; p < s.d_head; ++p) {
      for (int j = 0; j < kTileCols; ++j) {
        *packed++ = j0 + j < s.tk ? key[static_cast<size_t>(j0 + j) * s.key_stride + column + p] : 0.0f;
      }
    }
  }
}

// Query rows [i0, i0+rows) of head `column`, times the scale → panels of panel_rows, zero-padded rows.
void pack_queries(const AttentionHeads& s, const float* query, int column, int i0, int rows, int panel_rows, float* packed) {
  for (int r0 = 0; r0 < round_up(rows, panel_rows); r0 += panel_rows) {
    for (int p = 0; p < s.d_head; ++p) {
      for (int r = 0; r < panel_rows; ++r) {
        const int row = r0 + r;
        *packed++ = row < rows ? s.score_scale * kLog2e * query[static_cast<size_t>(i0 + row) * s.query_stride + column + p] : 0.0f;
      }
    }
  }
}

// 2^x for x ≤ kRescaleMargin (−∞ included), about 2 ulp: x = n + f with n = round(x), |f| ≤ ½;
// 2^f = 1 + f·q(f), q of degree 4 (Chebyshev interpolation of (2^f − 1)/f on [−½, ½], max relative
// error 2.7e-7 in float); 2^n from the exponent bits. Below −127 (the clamp) the result is exactly 0:
// exp2_integral(−127) is the all-zero bit pattern. 18 operations against the general exp's ~30.
f32x4 exp2(f32x4 x) {
  const f32x4 clamped = max(x, splat(-127.0f));
  const f32x4 n = floor(add(clamped, splat(0.5f)));
  const f32x4 f = sub(clamped, n);
  f32x4 q = splat(1.338130212e-3f);
  q = mul_add(q, f, splat(9.666368365e-3f));
  q = mul_add(q, f, splat(5.550381169e-2f));
  q = mul_add(q, f, splat(2.402234972e-1f));
  q = mul_add(q, f, splat(6.931471825e-1f));
  return mul(mul_add(q, f, splat(1.0f)), exp2_integral(n));
}

float exp2(float x) {
  float lanes[kLanes];
  store(lanes, exp2(splat(x)));
  return lanes[0];
}

float row_max(const float* row, int n) {
  f32x4 best = splat(-std::numeric_limits<float>::infinity());
  int j = 0;
  for (; j + kLanes <= n; j += kLanes) best = max(best, load(row + j));
  float result = horizontal_max(best);
  for (; j < n; ++j) result = std::max(result, row[j]);  // leftover keys
  return result;
}

// row[j] ← 2^(row[j] − shift) for j < n; returns their sum.
float exponentiate_row(float* row, int n, float shift) {
  const f32x4 shift4 = splat(shift);
  f32x4 sum4 = zero();
  int j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const f32x4 e = exp2(sub(load(row + j), shift4));
    store(row + j, e);
    sum4 = add(sum4, e);
  }
  float sum = horizontal_sum(sum4);
  for (; j < n; ++j) {  // leftover keys
    row[j] = exp2(row[j] - shift);
    sum += row[j];
  }
  return sum;
}

void scale_row(float* row, int n, float factor) {
  const f32x4 factor4 = splat(factor);
  int j = 0;
  for (; j + kLanes <= n; j += kLanes) store(row + j, mul(load(row + j), factor4));
  for (; j < n; ++j) row[j] *= factor;
}

// One query tile [i0, i0+rows) of one head against keys [0, key_end), written to the context.
void attend_query_tile(const AttentionHeads& s, int batch_index, int column, int i0, int rows, Scratch& w) {
  const float* query = s.query + static_cast<size_t>(batch_index) * s.tq * s.query_stride;
  const float* value = s.value + static_cast<size_t>(batch_index) * s.tk * s.value_stride;
  const int panels = round_up(rows, w.query_rows) / w.query_rows;
  const int value_panels = round_up(rows, kValueRows) / kValueRows;
  const int full_column_groups = s.d_head / kTileCols;
  pack_queries(s, query, column, i0, rows, w.query_rows, w.packed_query.data());
  std::fill(w.output.begin(), w.output.end(), 0.0f);
  std::fill(w.running_max.begin(), w.running_max.end(), -std::numeric_limits<float>::infinity());
  std::fill(w.running_sum.begin(), w.running_sum.end(), 0.0f);

  // Causal: the tile's last query, i0+rows−1, sees keys up to itself; later key tiles are all masked.
  const int key_end = s.causal ? std::min(s.tk, i0 + rows) : s.tk;
  for (int j0 = 0; j0 < key_end; j0 += kKeyBlock) {
    const int keys = std::min(kKeyBlock, key_end - j0);
    // 1. scores (queries × keys) = (scale·Q)·Kᵀ, 6×8 (relaxed SIMD) or 4×8 register tiles over d_head:
    //    GEMM's packed layouts exactly.
    for (int panel = 0; panel < panels; ++panel) {
      for (int g = 0; g < round_up(keys, kTileCols); g += kTileCols) {
        const float* packed_query = w.packed_query.data() + static_cast<size_t>(panel) * w.query_rows * s.d_head;
        const float* packed_key = w.packed_key.data() + static_cast<size_t>(j0 + g) * s.d_head;
        float* scores = w.scores.data() + panel * w.query_rows * kKeyBlock + g;
        if (w.installed_tile != nullptr) {
          w.installed_tile(s.d_head, packed_query, packed_key, scores, kKeyBlock, 0);
        } else {
          register_tile<4>(s.d_head, packed_query, packed_key, scores, kKeyBlock, false);
        }
      }
    }
    // 2. online softmax per row over its visible keys; masked keys get probability 0.
    for (int r = 0; r < value_panels * kValueRows; ++r) {
      float* row = w.scores.data() + r * kKeyBlock;
      const int i = i0 + r;
      const int visible = r >= rows ? 0 : (s.causal ? std::clamp(i - j0 + 1, 0, keys) : keys);
      if (visible > 0) {
        // Lazy rescaling: m only moves when a score exceeds it by more than kRescaleMargin, so most
        // tiles skip rescaling o; the terms 2^(s−m) ≤ 2^kRescaleMargin stay far from overflow.
        const float tile_max = row_max(row, visible);
        if (tile_max > w.running_max[r] + kRescaleMargin) {
          const float rescale = exp2(w.running_max[r] - tile_max);  // 2^(−∞) = 0 on the first tile
          w.running_sum[r] *= rescale;
          w.running_max[r] = tile_max;
          scale_row(w.output.data() + static_cast<size_t>(r) * w.padded_d_head, s.d_head, rescale);
        }
        w.running_sum[r] += exponentiate_row(row, visible, w.running_max[r]);
      }
      std::fill(row + visible, row + keys, 0.0f);
    }
    // 3. output += probabilities · V, both read in place (the probabilities are rows of `scores`).
    for (int panel = 0; panel < value_panels; ++panel) {
      const float* probabilities = w.scores.data() + panel * kValueRows * kKeyBlock;
      const float* value_tile = value + static_cast<size_t>(j0) * s.value_stride + column;
      float* output_panel = w.output.data() + static_cast<size_t>(panel) * kValueRows * w.padded_d_head;
      for (int g = 0; g < full_column_groups; ++g) {
        if (w.installed_rows_tile != nullptr) {
          w.installed_rows_tile(keys, probabilities, kKeyBlock, value_tile + g * kTileCols, s.value_stride,
                                output_panel + g * kTileCols, w.padded_d_head);
        } else {
          register_tile_accumulate_rows<kValueRows>(keys, probabilities, kKeyBlock, value_tile + g * kTileCols, s.value_stride,
                                                    output_panel + g * kTileCols, w.padded_d_head);
        }
      }
      for (int c = full_column_groups * kTileCols; c < s.d_head; ++c) {  // leftover columns of the head
        for (int r = 0; r < kValueRows; ++r) {
          float sum = 0.0f;
          for (int j = 0; j < keys; ++j) sum += probabilities[r * kKeyBlock + j] * value_tile[static_cast<size_t>(j) * s.value_stride + c];
          output_panel[static_cast<size_t>(r) * w.padded_d_head + c] += sum;
        }
      }
    }
  }
  // 4. context = o / l.
  for (int r = 0; r < rows; ++r) {
    float* context = s.context + static_cast<size_t>(batch_index * s.tq + i0 + r) * s.context_stride + column;
    const float* output = w.output.data() + static_cast<size_t>(r) * w.padded_d_head;
    const float inverse_sum = 1.0f / w.running_sum[r];
    for (int p = 0; p < s.d_head; ++p) context[p] = output[p] * inverse_sum;
  }
}

}  // namespace

void attention_heads_fused(const AttentionHeads& s) {
  Scratch scratch(s);
  for (int b = 0; b < s.batch; ++b) {
    const float* key = s.key + static_cast<size_t>(b) * s.tk * s.key_stride;
    for (int h = 0; h < s.heads; ++h) {
      const int column = h * s.d_head;
      pack_keys(s, key, column, scratch.packed_key.data());
      for (int i0 = 0; i0 < s.tq; i0 += kQueryBlock) {
        attend_query_tile(s, b, column, i0, std::min(kQueryBlock, s.tq - i0), scratch);
      }
    }
  }
}

}  // namespace ap::kernels
