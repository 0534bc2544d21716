// The fused attention kernel (FlashAttention's loop, on a CPU): for one head, a tile of queries meets
// the keys one tile at a time; the softmax is computed online, so the (tq, tk) weights never exist.
//
// Transposed, so that every product runs on GEMM's register tile and the softmax needs no horizontal
// operations: per panel of 8 queries the tile loop holds Sᵀ (keys × 8 queries) and Oᵀ (d_head × 8):
//   1. Sᵀ = K·Qᵀ                A = K in panels of R keys, B = the 8 queries (R×8 register tiles)
//   2. per query (one lane):    m' = max(m, max_j s_j),  Pᵀ = 2^(c·(Sᵀ − m')),  α = 2^(c·(m − m')),
//                               l ← α·l + Σ_j p_j,  Oᵀ ← α·Oᵀ
//   3. Oᵀ += Vᵀ·Pᵀ              A = V in panels of R head columns, B = Pᵀ as it lies (R×8 tiles)
//   4. context = (Oᵀ / l)ᵀ; when asked, each row's lse as its raw max m and log l (attention_heads.h)
// R = 6 with the relaxed-SIMD tile installed (12 accumulators), else 4 (the inline tile; a plain 6×8
// spills). The exponential is in base 2 with c = scale·log2(e) > 0: 2^(c·x) = e^(scale·x), so it needs
// no range reduction by ln 2. The scores stay raw q·k and the running max is subtracted BEFORE the
// multiply by c, which is not exact: at logits near 1e4 a c folded into the queries rounds each score by
// up to ~1e4·log2(e)·2⁻²⁴ ≈ 1e-3 before the max is taken, and the weights move by as much (measured:
// outputs off by up to 1.3e-3 on the fixtures with dyadic inputs, whose q·k is exact). s − m is exact
// whenever s and m are within a factor 2 (Sterbenz), so the rounding left is relative to s − m, as in
// the teaching path (now within 3e-7 of PyTorch on those fixtures). One more multiply per score. m is
// exactly the running max (rescaling Oᵀ is 2 multiplies per head column, cheap next to step 3), so
// 2^(c·(s−m)) ≤ 1.
// Causal: key tiles that start after a query panel's last query are never visited (half the work);
// in a diagonal tile the keys after a query get a score of −∞ (probability 0). Padded keys (key_padding)
// score −∞ in every lane. The running max starts at the lowest finite float, not −∞, so a query that has seen
// no key yet (its first keys padded) keeps 2^(c·(s − m)) = 0 rather than NaN; one that never sees a key keeps
// l = 0 and gets a zero context row. A query that had a key and still ends with l = 0 scored −∞ on every one:
// q·k overflowed float32, and its row is NaN, not zeros, so the overflow cannot pass for a masked row.
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

constexpr int kPanelQueries = kTileCols;  // queries per panel: the register tile's 8 columns
constexpr int kQueryBlock = 48;           // queries per tile (6 panels)
constexpr int kKeyBlock = 192;           // keys per tile; a multiple of 4 and 6, so tiles start on a key panel
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kNegativeInfinity = -std::numeric_limits<float>::infinity();
constexpr float kLowest = std::numeric_limits<float>::lowest();

int round_up(int x, int multiple) { return (x + multiple - 1) / multiple * multiple; }

// Rows of the register tile for the last panel of head columns: the d_head mod R columns left over
// (R when none) go to the smallest tile that holds them, 4, 5 or 6 rows with the relaxed-SIMD tiles
// (d_head = 64 with R = 6: 10 panels of 6 and one of 4, not 11 of 6 with 2 rows of zeros), else 4.
int last_value_rows(int d_head, int rows) {
  const int left = d_head - (d_head - 1) / rows * rows;
  return rows == 6 ? std::max(left, 4) : rows;
}

struct Scratch {
  explicit Scratch(const AttentionHeads& s)
      : rows(relaxed_tile_installed() ? relaxed_attention_rows() : 4),
        last_rows(last_value_rows(s.d_head, rows)),
        padded_d_head((s.d_head - 1) / rows * rows + last_rows),
        packed_key(static_cast<size_t>(round_up(s.tk, rows)) * s.d_head),
        packed_value(static_cast<size_t>(padded_d_head) * s.tk),
        packed_query(static_cast<size_t>(kQueryBlock) * s.d_head),
        scores(static_cast<size_t>(kKeyBlock) * kPanelQueries),
        output(static_cast<size_t>(kQueryBlock) * padded_d_head),
        installed_tile(relaxed_tile_installed() ? replaceable_register_tile6() : nullptr),
        installed_tile4(relaxed_tile_installed() ? replaceable_register_tile() : nullptr),
        installed_tile5(relaxed_tile_installed() ? replaceable_register_tile5() : nullptr) {}
  int rows;                            // R: rows of one register tile, relaxed_attention_rows() (relaxed SIMD) or 4
  int last_rows;                       // rows of the last head-column panel's tile: last_value_rows
  int padded_d_head;                   // d_head rounded up to whole panels: R per panel, last_rows in the last
  std::vector<float> packed_key;       // K of one head in panels of R keys: for each p, k[j..j+R)[p]
  std::vector<float> packed_value;     // V of one head in panels of R columns: for each key j, v[j][d..d+R)
  std::vector<float> packed_query;     // the query tile in panels of 8: for each p, q[i..i+8)[p]
  std::vector<float> scores;           // Sᵀ, then Pᵀ, of one panel and one key tile: (kKeyBlock, 8)
  std::vector<float> output;           // Oᵀ per panel: (padded_d_head, 8), unnormalised
  f32x4 running_max[kQueryBlock / kLanes], running_sum[kQueryBlock / kLanes];
  RegisterTileFunction installed_tile;  // the relaxed-SIMD 6×8 tile, or null for the inline 4×8
  RegisterTileFunction installed_tile4, installed_tile5;  // the relaxed-SIMD 4×8 and 5×8 tiles, or null
};

// c (rows×8, row stride ldc) = (or +=) packed_a (depth×rows) · packed_b (depth×8); rows is R or, for the
// last head-column panel, last_rows.
void tile(const Scratch& w, int rows, int depth, const float* packed_a, const float* packed_b, float* c, int ldc, bool accumulate) {
  if (w.installed_tile != nullptr) {
    const RegisterTileFunction installed = rows == 6 ? w.installed_tile : rows == 5 ? w.installed_tile5 : w.installed_tile4;
    installed(depth, packed_a, packed_b, c, ldc, accumulate ? 1 : 0);
  } else {
    register_tile<4>(depth, packed_a, packed_b, c, ldc, accumulate);
  }
}

// One panel of kRows keys, none beyond tk: for each p, k[0..kRows)[p]. Fixed-size and unchecked, so the
// compiler unrolls it: the general loops below were a visible share of a long call.
template <int kRows>
void pack_key_panel(const float* key, size_t stride, int d_head, float* packed) {
  const float* row[kRows];
  for (int r = 0; r < kRows; ++r) row[r] = key + r * stride;
  pack_panel<kRows>(row, d_head, packed);
}

// K (tk, d_head) of head `column` → panels of R keys, zero beyond tk: GEMM's packed-A layout.
void pack_keys(const AttentionHeads& s, const float* key, int column, int rows, float* packed) {
  const int whole = s.tk / rows * rows;
  for (int j0 = 0; j0 < whole; j0 += rows) {
    const float* first = key + static_cast<size_t>(j0) * s.key_stride + column;
    if (rows == 6) {
      pack_key_panel<6>(first, s.key_stride, s.d_head, packed);
    } else {
      pack_key_panel<4>(first, s.key_stride, s.d_head, packed);
    }
    packed += static_cast<size_t>(rows) * s.d_head;
  }
  for (int j0 = whole; j0 < s.tk; j0 += rows) {
    for (int p = 0; p < s.d_head; ++p) {
      for (int r = 0; r < rows; ++r) {
        *packed++ = j0 + r < s.tk ? key[static_cast<size_t>(j0 + r) * s.key_stride + column + p] : 0.0f;
      }
    }
  }
}

// One panel of kWidth head columns, all within d_head: for each key j, v[j][0..kWidth).
template <int kWidth>
void pack_value_panel(const float* value, size_t stride, int tk, float* packed) {
  for (int j = 0; j < tk; ++j) {
    for (int r = 0; r < kWidth; ++r) packed[j * kWidth + r] = value[j * stride + r];
  }
}

// V (tk, d_head) of head `column` → panels of R head columns, the last of last_rows (zero beyond d_head),
// each (tk, width): Vᵀ in GEMM's packed-A layout, the keys being the depth.
void pack_values(const AttentionHeads& s, const float* value, int column, int rows, int last_rows, float* packed) {
  for (int d0 = 0; d0 < s.d_head; d0 += rows) {
    const int width = d0 + rows < s.d_head ? rows : last_rows;
    const float* first = value + column + d0;
    if (d0 + width <= s.d_head && (width == 4 || width == 5 || width == 6)) {
      if (width == 6) pack_value_panel<6>(first, s.value_stride, s.tk, packed);
      if (width == 5) pack_value_panel<5>(first, s.value_stride, s.tk, packed);
      if (width == 4) pack_value_panel<4>(first, s.value_stride, s.tk, packed);
      packed += static_cast<size_t>(width) * s.tk;
      continue;
    }
    for (int j = 0; j < s.tk; ++j) {
      for (int r = 0; r < width; ++r) {
        *packed++ = d0 + r < s.d_head ? first[static_cast<size_t>(j) * s.value_stride + r] : 0.0f;
      }
    }
  }
}

// Query rows [i0, i0+count) of head `column` → panels of 8, zero-padded: packed-B layout. Not scaled
// (see the top: the scale comes after the running max is subtracted).
void pack_queries(const AttentionHeads& s, const float* query, int column, int i0, int count, float* packed) {
  for (int q0 = 0; q0 < round_up(count, kPanelQueries); q0 += kPanelQueries) {
    if (q0 + kPanelQueries <= count) {  // a whole panel: 8 query rows side by side (register_tile.h)
      const float* row[kPanelQueries];
      for (int c = 0; c < kPanelQueries; ++c) row[c] = query + static_cast<size_t>(i0 + q0 + c) * s.query_stride + column;
      pack_panel<kPanelQueries>(row, s.d_head, packed);
      packed += static_cast<size_t>(s.d_head) * kPanelQueries;
      continue;
    }
    for (int p = 0; p < s.d_head; ++p) {
      for (int c = 0; c < kPanelQueries; ++c) {
        const int q = q0 + c;
        *packed++ = q < count ? query[static_cast<size_t>(i0 + q) * s.query_stride + column + p] : 0.0f;
      }
    }
  }
}

// 2^x for x ≤ 0 (−∞ included), about 2 ulp: x = n + f with n = round(x), |f| ≤ ½; 2^f = 1 + f·q(f),
// q of degree 4 (Chebyshev interpolation of (2^f − 1)/f on [−½, ½], max relative error 2.7e-7 in
// float); n and 2^n from one add of 1.5·2^23 (simd.h). Below −127 (the clamp) the result is exactly 0:
// 2^−127 is built as the all-zero bit pattern. 16 operations against the general exp's ~30.
f32x4 exp2(f32x4 x) {
  const f32x4 clamped = max(x, splat(-127.0f));
  const f32x4 shifted = add_rounding_shift(clamped);
  const f32x4 f = sub(clamped, sub(shifted, splat(kRoundingShift)));
  f32x4 q = splat(1.338130212e-3f);
  q = mul_add(q, f, splat(9.666368365e-3f));
  q = mul_add(q, f, splat(5.550381169e-2f));
  q = mul_add(q, f, splat(2.402234972e-1f));
  q = mul_add(q, f, splat(6.931471825e-1f));
  return mul(mul_add(q, f, splat(1.0f)), exp2_of_shifted(shifted));
}

// 2. The online softmax of one panel over one key tile. scores: raw Sᵀ = q·k (keys, 8), overwritten with
// Pᵀ; exponent_scale: c = scale·log2(e) > 0; queries: the panel's query indices as floats (lanes 0–3,
// 4–7); first_masked: the first key row (0-based in the tile) after some query of the panel, when causal
// (else keys: none masked). running_max is in raw units.
void online_softmax(float* scores, int keys, int first_masked, int key0, f32x4 exponent_scale, const f32x4 queries[2],
                    f32x4 running_max[2], f32x4 running_sum[2], float* output, int padded_d_head, const float* padding) {
  // Causal mask on the diagonal rows: a key after its query scores −∞.
  for (int j = first_masked; j < keys; ++j) {
    const f32x4 key_index = splat(static_cast<float>(key0 + j));
    for (int half = 0; half < 2; ++half) {
      float* row = scores + j * kPanelQueries + half * kLanes;
      // −∞ where key − query ≥ 1 (the key comes after the query), 0 where it is visible.
      const f32x4 mask = zero_below(splat(kNegativeInfinity), sub(key_index, queries[half]), 1.0f);
      store(row, add(load(row), mask));
    }
  }
  // Padded keys (padding: the tile's flags, or null) score −∞ for every query.
  for (int j = 0; padding != nullptr && j < keys; ++j) {
    if (padding[j] == 0.0f) continue;
    store(scores + j * kPanelQueries, splat(kNegativeInfinity));
    store(scores + j * kPanelQueries + kLanes, splat(kNegativeInfinity));
  }
  f32x4 tile_max[2] = {splat(kNegativeInfinity), splat(kNegativeInfinity)};
  for (int j = 0; j < keys; ++j) {
    tile_max[0] = max(tile_max[0], load(scores + j * kPanelQueries));
    tile_max[1] = max(tile_max[1], load(scores + j * kPanelQueries + kLanes));
  }
  f32x4 sum[2] = {zero(), zero()};
  f32x4 rescale[2];
  // Past the first tiles the max rarely moves: when no lane's does, α = 1 and Oᵀ is left alone.
  const bool max_moved = horizontal_max(max(sub(max(running_max[0], tile_max[0]), running_max[0]),
                                            sub(max(running_max[1], tile_max[1]), running_max[1]))) > 0.0f;
  for (int half = 0; half < 2; ++half) {
    // m starts at the lowest finite float (never −∞), so 2^(m − m') is a number: 0 at a query's first key.
    const f32x4 new_max = max(running_max[half], tile_max[half]);
    rescale[half] = exp2(mul(sub(running_max[half], new_max), exponent_scale));  // 2^(−∞) = 0 on the first tile
    running_max[half] = new_max;
  }
  for (int j = 0; j < keys; ++j) {
    for (int half = 0; half < 2; ++half) {
      float* row = scores + j * kPanelQueries + half * kLanes;
      const f32x4 p = exp2(mul(sub(load(row), running_max[half]), exponent_scale));
      store(row, p);
      sum[half] = add(sum[half], p);
    }
  }
  for (int half = 0; half < 2; ++half) running_sum[half] = mul_add(running_sum[half], rescale[half], sum[half]);
  if (!max_moved) return;
  for (int d = 0; d < padded_d_head; ++d) {
    float* row = output + d * kPanelQueries;
    store(row, mul(load(row), rescale[0]));
    store(row + kLanes, mul(load(row + kLanes), rescale[1]));
  }
}

// One query tile [i0, i0+count) of one head against its visible keys, written to the context.
void attend_query_tile(const AttentionHeads& s, int batch_index, int column, int i0, int count, Scratch& w) {
  const float* query = s.query + static_cast<size_t>(batch_index) * s.tq * s.query_stride;
  const int panels = round_up(count, kPanelQueries) / kPanelQueries;
  pack_queries(s, query, column, i0, count, w.packed_query.data());
  std::fill(w.output.begin(), w.output.end(), 0.0f);
  std::fill(std::begin(w.running_max), std::end(w.running_max), splat(kLowest));
  std::fill(std::begin(w.running_sum), std::end(w.running_sum), zero());

  for (int panel = 0; panel < panels; ++panel) {
    const int q0 = i0 + panel * kPanelQueries;  // the panel's first query
    const float* packed_query = w.packed_query.data() + static_cast<size_t>(panel) * kPanelQueries * s.d_head;
    float* output = w.output.data() + static_cast<size_t>(panel) * w.padded_d_head * kPanelQueries;
    f32x4* running_max = w.running_max + panel * 2;
    f32x4* running_sum = w.running_sum + panel * 2;
    alignas(16) static const float kLane[kPanelQueries] = {0, 1, 2, 3, 4, 5, 6, 7};
    const f32x4 queries[2] = {add(splat(static_cast<float>(q0)), load(kLane)), add(splat(static_cast<float>(q0)), load(kLane + kLanes))};
    const f32x4 exponent_scale = splat(s.score_scale * kLog2e);
    // Causal: the panel's last query, q0+7, sees keys up to itself; later key tiles are all masked.
    const int key_end = s.causal ? std::min(s.tk, q0 + kPanelQueries) : s.tk;
    for (int j0 = 0; j0 < key_end; j0 += kKeyBlock) {
      const int keys = std::min(kKeyBlock, key_end - j0);
      // 1. Sᵀ (keys, 8) = K·Qᵀ, one R×8 register tile per panel of R keys.
      for (int j = 0; j < keys; j += w.rows) {
        tile(w, w.rows, s.d_head, w.packed_key.data() + static_cast<size_t>(j0 + j) * s.d_head, packed_query,
             w.scores.data() + j * kPanelQueries, kPanelQueries, false);
      }
      // 2. online softmax; keys from q0+1 on come after some query of the panel.
      const int first_masked = s.causal ? std::clamp(q0 + 1 - j0, 0, keys) : keys;
      const float* padding = s.key_padding != nullptr ? s.key_padding + static_cast<size_t>(batch_index) * s.tk + j0 : nullptr;
      online_softmax(w.scores.data(), keys, first_masked, j0, exponent_scale, queries, running_max, running_sum, output,
                     w.padded_d_head, padding);
      // 3. Oᵀ (padded_d_head, 8) += Vᵀ·Pᵀ, one R×8 register tile per panel of R head columns.
      for (int d = 0; d < w.padded_d_head; d += w.rows) {
        const int width = d + w.rows < s.d_head ? w.rows : w.last_rows;
        tile(w, width, keys, w.packed_value.data() + static_cast<size_t>(d) * s.tk + static_cast<size_t>(j0) * width,
             w.scores.data(), output + d * kPanelQueries, kPanelQueries, true);
      }
    }
  }
  // 4. context = (Oᵀ / l)ᵀ. A query has a key from the batch's first unpadded one on (every key, when causal
  // is off); with l = 0 it gets NaN, and without a key zeros.
  const float* padding = s.key_padding != nullptr ? s.key_padding + static_cast<size_t>(batch_index) * s.tk : nullptr;
  const int first_key = padding == nullptr ? 0 : static_cast<int>(std::find(padding, padding + s.tk, 0.0f) - padding);
  const auto has_key = [&](int i) { return first_key < s.tk && (!s.causal || first_key <= i); };
  for (int panel = 0; panel < panels; ++panel) {
    alignas(16) float sums[kPanelQueries];
    store(sums, w.running_sum[panel * 2]);
    store(sums + kLanes, w.running_sum[panel * 2 + 1]);
    const float* output = w.output.data() + static_cast<size_t>(panel) * w.padded_d_head * kPanelQueries;
    alignas(16) float maxima[kPanelQueries];
    store(maxima, w.running_max[panel * 2]);
    store(maxima + kLanes, w.running_max[panel * 2 + 1]);
    alignas(16) float factors[kPanelQueries];
    for (int c = 0; c < kPanelQueries; ++c) {
      const float no_weight = has_key(i0 + panel * kPanelQueries + c) ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
      factors[c] = sums[c] > 0.0f ? 1.0f / sums[c] : no_weight;
    }
    float* first_context = s.context + static_cast<size_t>(batch_index * s.tq + i0 + panel * kPanelQueries) * s.context_stride + column;
    const bool whole = (panel + 1) * kPanelQueries <= count && s.d_head % kLanes == 0;
    // a whole panel: Oᵀ back to rows by 4×4 transposes, four head columns of four queries at a time
    for (int d = 0; whole && d < s.d_head; d += kLanes) {
      for (int c0 = 0; c0 < kPanelQueries; c0 += kLanes) {
        f32x4 rows[kLanes];
        for (int k = 0; k < kLanes; ++k) rows[k] = load(output + (d + k) * kPanelQueries + c0);
        transpose(rows[0], rows[1], rows[2], rows[3]);
        for (int k = 0; k < kLanes; ++k)
          store(first_context + static_cast<size_t>(c0 + k) * s.context_stride + d, mul(rows[k], splat(factors[c0 + k])));
      }
    }
    for (int c = 0; c < kPanelQueries && panel * kPanelQueries + c < count; ++c) {
      const int i = i0 + panel * kPanelQueries + c;
      float* context = first_context + static_cast<size_t>(c) * s.context_stride;
      for (int d = 0; !whole && d < s.d_head; ++d) context[d] = output[d * kPanelQueries + c] * factors[c];
      // when asked: the row's lse = c·m + log l, as its raw max m and log l (attention_heads.h)
      if (s.row_max != nullptr) s.row_max[statistic_index(s, batch_index, column / s.d_head, i)] = maxima[c];
      if (s.log_sum != nullptr) s.log_sum[statistic_index(s, batch_index, column / s.d_head, i)] = std::log(sums[c]);
    }
  }
}

}  // namespace

void attention_heads_fused(const AttentionHeads& s) {
  Scratch scratch(s);
  for (int b = 0; b < s.batch; ++b) {
    const float* key = s.key + static_cast<size_t>(b) * s.tk * s.key_stride;
    const float* value = s.value + static_cast<size_t>(b) * s.tk * s.value_stride;
    for (int h = 0; h < s.heads; ++h) {
      const int column = h * s.d_head;
      pack_keys(s, key, column, scratch.rows, scratch.packed_key.data());
      pack_values(s, value, column, scratch.rows, scratch.last_rows, scratch.packed_value.data());
      for (int i0 = 0; i0 < s.tq; i0 += kQueryBlock) {
        attend_query_tile(s, b, column, i0, std::min(kQueryBlock, s.tq - i0), scratch);
      }
    }
  }
}

}  // namespace ap::kernels
