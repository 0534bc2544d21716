#include "attention/projection.h"

#include "attention/eigen_views.h"

namespace ap {

Tensor project(const Tensor& x, const Tensor& weight, const Tensor& bias, WeightLayout layout) {
  const int batch = x.shape[0], time = x.shape[1], d_in = x.shape[2];
  const int d_out = (layout == WeightLayout::Matrix) ? weight.shape[1] : weight.shape[0];
  const int rows = batch * time;  // (B, T, d_in) viewed as (B·T, d_in): one matrix product for all tokens

  Tensor y = zeros({batch, time, d_out});
  const auto X = matrix_view(x, 0, rows, d_in);
  auto Y = matrix_view(y, 0, rows, d_out);
  if (layout == WeightLayout::Matrix) {
    Y.noalias() = X * matrix_view(weight, 0, d_in, d_out);  // (B·T, d_in)·(d_in, d_out)
  } else {
    // torch.nn.Linear stores (d_out, d_in) and computes X·Wᵀ. Transposing into the matrix layout first,
    // (d_out, d_in) -> (d_in, d_out), runs the very same product, so both layouts agree bit for bit.
    const Matrix W = matrix_view(weight, 0, d_out, d_in).transpose();
    Y.noalias() = X * W;
  }
  if (bias.present()) Y.rowwise() += ConstRowVectorView(bias.data.data(), d_out);
  return y;
}

// region: split-heads
Tensor split_heads(const Tensor& y, int heads) {
  const int batch = y.shape[0], time = y.shape[1], d_out = y.shape[2];
  const int d_head = d_out / heads;
  Tensor split = zeros({batch, heads, time, d_head});
  // (B, T, H·d_head) -> (B, T, H, d_head) -> (B, H, T, d_head)
  for (int b = 0; b < batch; ++b)
    for (int t = 0; t < time; ++t)
      for (int h = 0; h < heads; ++h)
        for (int i = 0; i < d_head; ++i)
          split.data[((static_cast<std::size_t>(b) * heads + h) * time + t) * d_head + i] =
              y.data[(static_cast<std::size_t>(b) * time + t) * d_out + h * d_head + i];
  return split;
}
// endregion

Tensor merge_heads(const Tensor& y) {
  const int batch = y.shape[0], heads = y.shape[1], time = y.shape[2], d_head = y.shape[3];
  const int d_out = heads * d_head;
  Tensor merged = zeros({batch, time, d_out});
  // (B, H, T, d_head) -> (B, T, H, d_head) -> (B, T, H·d_head)
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h)
      for (int t = 0; t < time; ++t)
        for (int i = 0; i < d_head; ++i)
          merged.data[(static_cast<std::size_t>(b) * time + t) * d_out + h * d_head + i] =
              y.data[((static_cast<std::size_t>(b) * heads + h) * time + t) * d_head + i];
  return merged;
}

Tensor column_block(const Tensor& matrix_or_bias, int first, int count) {
  if (!matrix_or_bias.present()) return {};
  const int cols = matrix_or_bias.shape.back();
  const int rows = static_cast<int>(matrix_or_bias.element_count() / cols);
  std::vector<int> shape = matrix_or_bias.shape;
  shape.back() = count;
  Tensor block = zeros(shape);
  matrix_view(block, 0, rows, count) = matrix_view(matrix_or_bias, 0, rows, cols).middleCols(first, count);
  return block;
}

Tensor concatenate_columns(const std::vector<Tensor>& parts) {
  const int rows = parts.front().shape[0] * parts.front().shape[1];
  int total = 0;
  for (const Tensor& part : parts) total += part.shape[2];
  Tensor joined = zeros({parts.front().shape[0], parts.front().shape[1], total});
  auto J = matrix_view(joined, 0, rows, total);
  int first = 0;
  for (const Tensor& part : parts) {
    J.middleCols(first, part.shape[2]) = matrix_view(part, 0, rows, part.shape[2]);
    first += part.shape[2];
  }
  return joined;
}

QueryKeyValue project_heads(const Tensor& x, const std::vector<ProjectionWeights>& heads) {
  std::vector<Tensor> queries, keys, values;
  for (const ProjectionWeights& head : heads) {
    queries.push_back(project(x, head.query, head.query_bias));
    keys.push_back(project(x, head.key, head.key_bias));
    values.push_back(project(x, head.value, head.value_bias));
  }
  return {concatenate_columns(queries), concatenate_columns(keys), concatenate_columns(values)};
}

}  // namespace ap
