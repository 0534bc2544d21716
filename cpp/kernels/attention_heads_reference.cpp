// The reference for the fused attention kernel: one query row at a time, exactly as the math reads.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attention_heads.h"

namespace ap::kernels {

void attention_heads_reference(const AttentionHeads& s) {
  std::vector<float> weights(static_cast<size_t>(s.tk));
  for (int b = 0; b < s.batch; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const int column = h * s.d_head;
      for (int i = 0; i < s.tq; ++i) {
        const float* q = s.query + static_cast<size_t>(b * s.tq + i) * s.query_stride + column;
        const int visible = s.causal ? std::min(i + 1, s.tk) : s.tk;  // keys j < visible
        const float* padding = s.key_padding != nullptr ? s.key_padding + static_cast<size_t>(b) * s.tk : nullptr;
        const auto padded = [&](int j) { return padding != nullptr && padding[j] != 0.0f; };
        // 1. scores = scale·q·kⱼ  2. mask: j ≥ visible is −∞, i.e. left out  3. stable softmax, the max
        //    subtracted from the raw q·kⱼ before the scale (as the fused kernel: exact where q·k is)
        float max_dot = -std::numeric_limits<float>::infinity();
        int seen = 0;  // visible keys not padded
        for (int j = 0; j < visible; ++j) {
          if (padded(j)) continue;
          ++seen;
          const float* k = s.key + static_cast<size_t>(b * s.tk + j) * s.key_stride + column;
          float dot = 0.0f;
          for (int p = 0; p < s.d_head; ++p) dot += q[p] * k[p];
          weights[j] = dot;
          max_dot = std::max(max_dot, dot);
        }
        float sum = 0.0f;
        for (int j = 0; j < visible; ++j) {
          if (padded(j)) {
            weights[j] = 0.0f;
            continue;
          }
          weights[j] = std::exp(s.score_scale * (weights[j] - max_dot));
          sum += weights[j];
        }
        if (s.row_max != nullptr) s.row_max[statistic_index(s, b, h, i)] = max_dot;
        if (s.log_sum != nullptr) s.log_sum[statistic_index(s, b, h, i)] = std::log(sum);
        // 4. context = Σ weights·v: no key left, a zero row; keys that all scored −∞ (q·k overflowed), NaN
        float* out = s.context + static_cast<size_t>(b * s.tq + i) * s.context_stride + column;
        std::fill(out, out + s.d_head, seen > 0 && !(sum > 0.0f) ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
        for (int j = 0; j < visible && sum > 0.0f; ++j) {  // no key left: a zero row
          const float* v = s.value + static_cast<size_t>(b * s.tk + j) * s.value_stride + column;
          const float w = weights[j] / sum;
          for (int p = 0; p < s.d_head; ++p) out[p] += w * v[p];
        }
      }
    }
  }
}

}  // namespace ap::kernels
