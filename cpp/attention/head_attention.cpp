#include "attention/head_attention.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "attention/dropout.h"
#include "attention/eigen_views.h"
#include "attention/masks.h"
#include "attention/projection.h"
#include "attention/softmax.h"

namespace ap {

namespace {
// region: fill-future
// Entries j > i of a (Tq, Tk) block are the future of query row i (top-left aligned, as torch.tril).
void fill_future(float* block, int rows, int cols, float value) {
  for (int i = 0; i < rows; ++i)
    for (int j = i + 1; j < cols; ++j) block[static_cast<std::size_t>(i) * cols + j] = value;
}
// endregion

void normalise_rows(float* block, int rows, int cols) {
  for (int i = 0; i < rows; ++i) softmax_row(block + static_cast<std::size_t>(i) * cols, cols, Normalization::Stable);
}
}  // namespace

Tensor attention_per_head(const Tensor& query, const Tensor& key, const Tensor& value,
                          const AttentionOptions& options, AttentionResult& result) {
  const int batch = query.shape[0], heads = query.shape[1], rows = query.shape[2], d_k = query.shape[3];
  const int cols = key.shape[2], d_v = value.shape[3];
  const int slices = batch * heads;  // every (b, h) pair is an independent attention problem
  const std::size_t block = static_cast<std::size_t>(rows) * cols;

  // region: scores-scale
  // 1. scores = Q·Kᵀ, per (b, h): (Tq, d_k)·(d_k, Tk) -> (Tq, Tk)
  result.scores = zeros({batch, heads, rows, cols});
  for (int s = 0; s < slices; ++s) {
    matrix_view(result.scores, s * block, rows, cols).noalias() =
        matrix_view(query, static_cast<std::size_t>(s) * rows * d_k, rows, d_k) *
        matrix_view(key, static_cast<std::size_t>(s) * cols * d_k, cols, d_k).transpose();
  }

  // 2. scale: dot products of d_k random components grow like √d_k; dividing keeps softmax from saturating
  const float factor = (options.scale ? 1.0f / std::sqrt(static_cast<float>(d_k)) : 1.0f) / options.temperature;
  result.scaled = result.scores;
  for (float& v : result.scaled.data) v *= factor;
  // endregion

  // region: mask-softmax
  // 3. mask and 4. softmax, in the order the mask mode prescribes
  Tensor& weights = result.weights;
  if (has_masks(options)) {
    // −∞ in the future (causal), where attn_mask is 0 or adds, where a key is padding; then softmax, where a
    // row left with no key gets zero weights (masks.h; the mask mode is 'neg_inf', checked)
    result.masked = result.scaled;
    if (options.causal) {
      for (int s = 0; s < slices; ++s)
        fill_future(result.masked.data.data() + s * block, rows, cols, -std::numeric_limits<float>::infinity());
    }
    apply_masks(result.masked, options);
    weights = result.masked;
    for (int s = 0; s < slices; ++s) normalise_rows(weights.data.data() + s * block, rows, cols);
  } else if (!options.causal) {
    // region: softmax-weights
    // 4. weights = softmax of each row of the scaled scores: row i says how much query i takes from each key
    weights = result.scaled;
    for (int s = 0; s < slices; ++s) normalise_rows(weights.data.data() + s * block, rows, cols);
    // endregion
  } else if (options.mask == MaskMode::NegInf) {
    // −∞ in the future, then softmax: exp(−∞) = 0, so the future gets exactly zero weight
    result.masked = result.scaled;
    for (int s = 0; s < slices; ++s)
      fill_future(result.masked.data.data() + s * block, rows, cols, -std::numeric_limits<float>::infinity());
    weights = result.masked;
    for (int s = 0; s < slices; ++s) normalise_rows(weights.data.data() + s * block, rows, cols);
  } else if (options.mask == MaskMode::Renormalize) {
    // softmax over everything, zero the future, divide each row by what is left: the same weights
    result.masked = result.scaled;
    for (int s = 0; s < slices; ++s) {
      normalise_rows(result.masked.data.data() + s * block, rows, cols);
      fill_future(result.masked.data.data() + s * block, rows, cols, 0.0f);
    }
    weights = result.masked;
    for (std::size_t r = 0; r < static_cast<std::size_t>(slices) * rows; ++r) {
      float* row = weights.data.data() + r * cols;
      float sum = 0.0f;
      for (int j = 0; j < cols; ++j) sum += row[j];
      // sum is 0 only if every allowed entry underflowed; zeros, as for a fully masked row
      for (int j = 0; j < cols; ++j) row[j] = (sum == 0.0f) ? 0.0f : row[j] / sum;
    }
  } else {
    // MaskMode::Zero, the classic mistake: a 0 score is exp(0) = 1 after softmax, so the future leaks in
    result.masked = result.scaled;
    for (int s = 0; s < slices; ++s) fill_future(result.masked.data.data() + s * block, rows, cols, 0.0f);
    weights = result.masked;
    for (int s = 0; s < slices; ++s) normalise_rows(weights.data.data() + s * block, rows, cols);
  }
  // endregion

  // region: dropout-weights
  // 5. dropout on the weights (training only), over the flat (B, H, Tq, Tk) index
  const Tensor* used = &weights;
  if (options.dropout > 0.0f) {
    const DropoutKeeps keeps(options.dropout_rng, options.seed, options.dropout, weights.data.size());
    result.dropped = weights;
    for (std::size_t i = 0; i < result.dropped.data.size(); ++i) {
      result.dropped.data[i] = keeps(i) ? result.dropped.data[i] * keeps.scale() : 0.0f;
    }
    used = &result.dropped;
  }
  // endregion

  // region: context
  // 6. context = weights·V, per (b, h): (Tq, Tk)·(Tk, d_v) -> (Tq, d_v)
  Tensor context = zeros({batch, heads, rows, d_v});
  for (int s = 0; s < slices; ++s) {
    matrix_view(context, static_cast<std::size_t>(s) * rows * d_v, rows, d_v).noalias() =
        matrix_view(*used, s * block, rows, cols) *
        matrix_view(value, static_cast<std::size_t>(s) * cols * d_v, cols, d_v);
  }
  return context;
  // endregion
}

// region: attend-heads
AttentionResult attend_heads(const Tensor& query, const Tensor& key, const Tensor& value, int heads,
                             const Tensor& out_weight, const Tensor& out_bias, const AttentionOptions& options) {
  AttentionResult result;
  // 1. split: (B, T, d_out) -> (B, H, T, d_head) for each of Q, K, V
  result.query = split_heads(query, heads);
  result.key = split_heads(key, heads);
  result.value = split_heads(value, heads);

  // 2. attention in every head at once: (B, H, Tq, d_head)
  const Tensor per_head = attention_per_head(result.query, result.key, result.value, options, result);

  // 3. merge: (B, H, Tq, d_head) -> (B, Tq, d_out), the heads side by side
  result.context = merge_heads(per_head);

  // 4. output projection mixes the heads: (B, Tq, d_out)·(d_out, d_out) + b
  if (out_weight.present()) {
    result.output = project(result.context, out_weight, out_bias);
  } else {
    // no projection: output is the context (plus out_bias, should one be given alone)
    result.output = result.context;
    if (out_bias.present()) {
      const int d_out = out_bias.shape[0];
      for (std::size_t i = 0; i < result.output.data.size(); ++i) result.output.data[i] += out_bias.data[i % d_out];
    }
  }

  // Without intermediates only the output is returned, unless a score left float32: then every stage stays,
  // for the API's result check to name, since the overflowed −∞ scores would pass for a mask in the output.
  if (!options.intermediates && result.scores.all_finite() && result.scaled.all_finite()) {
    Tensor output = std::move(result.output);
    result = AttentionResult{};
    result.output = std::move(output);
  }
  return result;
}
// endregion

}  // namespace ap
