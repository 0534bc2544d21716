// The fast multi-head pipeline equals the Eigen teaching path (multihead_attention_split, causal) to
// 1e-5, with and without biases and the output projection, on fixture-sized and awkward shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "attention/multihead.h"
#include "kernels/multihead_fast.h"
#include "test_data.h"

namespace ap::kernels {
namespace {

using testing::all_close;
using testing::random_values;

Tensor random_tensor(std::vector<int> shape, unsigned seed, float scale) {
  size_t n = 1;
  for (int d : shape) n *= static_cast<size_t>(d);
  return Tensor{shape, random_values(n, seed, scale)};
}

struct PipelineCase {
  int batch, t, d_in, d_out, heads;
  bool biases, out_projection;
};

class FastMultihead : public ::testing::TestWithParam<PipelineCase> {};

TEST_P(FastMultihead, EqualsTheTeachingSplitPath) {
  const PipelineCase c = GetParam();
  const float weight_scale = 1.0f / std::sqrt(static_cast<float>(c.d_in));
  const Tensor x = random_tensor({c.batch, c.t, c.d_in}, 21, 1.0f);
  ProjectionWeights weights;
  weights.query = random_tensor({c.d_in, c.d_out}, 22, weight_scale);
  weights.key = random_tensor({c.d_in, c.d_out}, 23, weight_scale);
  weights.value = random_tensor({c.d_in, c.d_out}, 24, weight_scale);
  if (c.biases) {
    weights.query_bias = random_tensor({c.d_out}, 25, 0.1f);
    weights.key_bias = random_tensor({c.d_out}, 26, 0.1f);
    weights.value_bias = random_tensor({c.d_out}, 27, 0.1f);
  }
  if (c.out_projection) {
    weights.out_weight = random_tensor({c.d_out, c.d_out}, 28, 1.0f / std::sqrt(static_cast<float>(c.d_out)));
    if (c.biases) weights.out_bias = random_tensor({c.d_out}, 29, 0.1f);
  }
  AttentionOptions options;
  options.causal = true;
  options.heads = c.heads;
  const AttentionResult teaching = multihead_attention_split(x, weights, options);

  auto bias = [](const Tensor& t) { return t.present() ? t.data.data() : nullptr; };
  MultiheadProblem p;
  p.x_query = p.x_context = x.data.data();
  p.batch = c.batch;
  p.tq = p.tk = c.t;
  p.d_query_in = p.d_context_in = c.d_in;
  p.d_out = c.d_out;
  p.heads = c.heads;
  p.query = {weights.query.data.data(), c.d_out, bias(weights.query_bias)};
  p.key = {weights.key.data.data(), c.d_out, bias(weights.key_bias)};
  p.value = {weights.value.data.data(), c.d_out, bias(weights.value_bias)};
  if (c.out_projection) p.out = {weights.out_weight.data.data(), c.d_out, bias(weights.out_bias)};
  p.score_scale = 1.0f / std::sqrt(static_cast<float>(c.d_out / c.heads));
  p.causal = true;
  std::vector<float> output(static_cast<size_t>(c.batch) * c.t * c.d_out);
  multihead_attention_fast(p, output.data());
  EXPECT_TRUE(all_close(output, teaching.output.data, 1e-5, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(FixtureAndAwkwardShapes, FastMultihead,
                         ::testing::Values(PipelineCase{1, 1, 1, 1, 1, false, false}, PipelineCase{2, 5, 3, 4, 2, true, true},
                                           PipelineCase{1, 7, 6, 6, 3, true, false}, PipelineCase{2, 13, 10, 12, 4, false, true},
                                           PipelineCase{1, 67, 17, 24, 3, true, true}, PipelineCase{1, 129, 32, 64, 4, true, true}),
                         [](const auto& info) {
                           const PipelineCase& c = info.param;
                           return "B" + std::to_string(c.batch) + "_T" + std::to_string(c.t) + "_din" + std::to_string(c.d_in) +
                                  "_dout" + std::to_string(c.d_out) + "_H" + std::to_string(c.heads) +
                                  (c.biases ? "_biases" : "") + (c.out_projection ? "_out" : "");
                         });

}  // namespace
}  // namespace ap::kernels
