// Steps 6, 7, 10 and 11 by their properties: the mask modes, the weight layouts, and the three
// multi-head formulations agreeing when their weights correspond.
#include <cmath>
#include <limits>

#include "paths/fast_attention.h"
#include "test_support.h"

namespace ap {
namespace {

using testing::all_close;
using testing::at;
using testing::random_tensor;
using testing::tensor;
using testing::transpose;

constexpr float inf = std::numeric_limits<float>::infinity();

ProjectionWeights random_projection(int d_in, int d_out, unsigned salt, bool biases = true, bool out = false) {
  ProjectionWeights w;
  w.query = random_tensor({d_in, d_out}, salt);
  w.key = random_tensor({d_in, d_out}, salt + 1);
  w.value = random_tensor({d_in, d_out}, salt + 2);
  if (biases) {
    w.query_bias = random_tensor({d_out}, salt + 3);
    w.key_bias = random_tensor({d_out}, salt + 4);
    w.value_bias = random_tensor({d_out}, salt + 5);
  }
  if (out) {
    w.out_weight = random_tensor({d_out, d_out}, salt + 6);
    w.out_bias = random_tensor({d_out}, salt + 7);
  }
  return w;
}

AttentionOptions causal_with(MaskMode mask) {
  AttentionOptions options;
  options.causal = true;
  options.mask = mask;
  return options;
}

TEST(SelfAttention, ScoresAreScaledByOneOverRootDOut) {
  const Tensor x = random_tensor({2, 5, 3}, 10);
  const AttentionResult result = self_attention(x, random_projection(3, 4, 11));
  for (std::size_t i = 0; i < result.scores.data.size(); ++i) {
    EXPECT_FLOAT_EQ(result.scaled.data[i], result.scores.data[i] / 2.0f);
  }
  EXPECT_EQ(result.weights.shape, (std::vector<int>{2, 5, 5}));
  EXPECT_EQ(result.output.shape, (std::vector<int>{2, 5, 4}));
  EXPECT_FALSE(result.masked.present());
  EXPECT_FALSE(result.dropped.present());
  EXPECT_FALSE(result.context.present());
}

TEST(SelfAttention, TemperatureDividesTheScaledScores) {
  AttentionOptions hot;
  hot.scale = false;
  hot.temperature = 4;
  const AttentionResult result = self_attention(random_tensor({1, 4, 3}, 12), random_projection(3, 2, 13), hot);
  for (std::size_t i = 0; i < result.scores.data.size(); ++i) {
    EXPECT_FLOAT_EQ(result.scaled.data[i], result.scores.data[i] / 4.0f);
  }
}

TEST(SelfAttention, LinearLayoutEqualsMatrixLayoutWithTransposedWeights) {
  const Tensor x = random_tensor({2, 5, 4}, 14);
  const ProjectionWeights matrix = random_projection(4, 3, 15);
  ProjectionWeights linear = matrix;
  linear.query = transpose(matrix.query);
  linear.key = transpose(matrix.key);
  linear.value = transpose(matrix.value);
  AttentionOptions options;
  options.layout = WeightLayout::Linear;
  const AttentionResult a = self_attention(x, matrix);
  const AttentionResult b = self_attention(x, linear, options);
  EXPECT_TRUE(all_close(b.query, a.query, 0, 0));
  EXPECT_TRUE(all_close(b.weights, a.weights, 0, 0));
  EXPECT_TRUE(all_close(b.output, a.output, 0, 0));
}

TEST(CausalMask, WeightsAreZeroAboveTheDiagonal) {
  for (MaskMode mask : {MaskMode::NegInf, MaskMode::Renormalize}) {
    const AttentionResult result = self_attention(random_tensor({2, 6, 3}, 16), random_projection(3, 4, 17), causal_with(mask));
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 6; ++i) {
        float row_sum = 0;
        for (int j = 0; j < 6; ++j) {
          row_sum += at(result.weights, {b, i, j});
          if (j > i) EXPECT_EQ(at(result.weights, {b, i, j}), 0.0f) << option_name(mask) << " row " << i;
        }
        EXPECT_NEAR(row_sum, 1.0f, 1e-6f);
      }
  }
}

TEST(CausalMask, NegInfMaskPutsMinusInfinityInTheFuture) {
  const AttentionResult result = self_attention(random_tensor({1, 3, 3}, 18), random_projection(3, 2, 19), causal_with(MaskMode::NegInf));
  EXPECT_EQ(at(result.masked, {0, 0, 1}), -inf);
  EXPECT_EQ(at(result.masked, {0, 1, 2}), -inf);
  EXPECT_EQ(at(result.masked, {0, 2, 1}), at(result.scaled, {0, 2, 1}));
}

TEST(CausalMask, RenormalizeEqualsNegInfAndZeroMaskLeaksTheFuture) {
  const Tensor x = random_tensor({2, 5, 4}, 20);
  const ProjectionWeights w = random_projection(4, 4, 21);
  const AttentionResult neg_inf = self_attention(x, w, causal_with(MaskMode::NegInf));
  const AttentionResult renormalize = self_attention(x, w, causal_with(MaskMode::Renormalize));
  const AttentionResult zero = self_attention(x, w, causal_with(MaskMode::Zero));
  EXPECT_TRUE(all_close(renormalize.weights, neg_inf.weights));
  EXPECT_TRUE(all_close(renormalize.output, neg_inf.output));
  // exp(0) = 1: every future position keeps a positive weight, so the result differs
  EXPECT_GT(at(zero.weights, {0, 0, 4}), 0.0f);
  EXPECT_FALSE(all_close(zero.output, neg_inf.output));
}

TEST(CausalMask, FirstRowAttendsOnlyToItself) {
  const AttentionResult result = self_attention(random_tensor({1, 4, 3}, 22), random_projection(3, 2, 23), causal_with(MaskMode::NegInf));
  EXPECT_EQ(at(result.weights, {0, 0, 0}), 1.0f);
  EXPECT_FLOAT_EQ(at(result.output, {0, 0, 1}), at(result.value, {0, 0, 1}));
}

TEST(SelfAttention, LogitsNear1e4GiveFiniteOneHotWeights) {
  // One-hot tokens and weights that make q·k reach 10000 on the diagonal.
  const Tensor x = tensor({1, 2, 2}, {1, 0, 0, 1});
  ProjectionWeights w;
  w.query = tensor({2, 2}, {100, 0, 0, 100});
  w.key = w.query;
  w.value = tensor({2, 2}, {1, 0, 0, 1});
  AttentionOptions options;
  options.scale = false;
  const AttentionResult result = self_attention(x, w, options);
  EXPECT_TRUE(all_close(result.weights, tensor({1, 2, 2}, {1, 0, 0, 1})));
  for (float v : result.output.data) EXPECT_TRUE(std::isfinite(v));
}

// Split's (d_in, d_out) matrices cut into H column blocks are the stacked heads' matrices.
StackedWeights stack_from_split(const ProjectionWeights& split, int heads) {
  StackedWeights stacked;
  const int d_out = split.query.shape[1], d_head = d_out / heads, d_in = split.query.shape[0];
  for (int h = 0; h < heads; ++h) {
    auto block = [&](const Tensor& m) {
      Tensor b = zeros({d_in, d_head});
      for (int r = 0; r < d_in; ++r)
        for (int c = 0; c < d_head; ++c) b.data[r * d_head + c] = m.data[r * d_out + h * d_head + c];
      return b;
    };
    auto bias_block = [&](const Tensor& v) {
      return tensor({d_head}, std::vector<float>(v.data.begin() + h * d_head, v.data.begin() + (h + 1) * d_head));
    };
    ProjectionWeights head;
    head.query = block(split.query);
    head.key = block(split.key);
    head.value = block(split.value);
    head.query_bias = bias_block(split.query_bias);
    head.key_bias = bias_block(split.key_bias);
    head.value_bias = bias_block(split.value_bias);
    stacked.heads.push_back(head);
  }
  stacked.out_weight = split.out_weight;
  stacked.out_bias = split.out_bias;
  return stacked;
}

// [Wq | Wk | Wv] side by side, as torch.nn.MultiheadAttention's in_proj_weight transposed.
FusedWeights fuse_from_split(const ProjectionWeights& split) {
  FusedWeights fused;
  const int d_in = split.query.shape[0], d_out = split.query.shape[1];
  fused.in_projection = zeros({d_in, 3 * d_out});
  fused.in_bias = zeros({3 * d_out});
  const Tensor* parts[] = {&split.query, &split.key, &split.value};
  const Tensor* biases[] = {&split.query_bias, &split.key_bias, &split.value_bias};
  for (int p = 0; p < 3; ++p) {
    for (int r = 0; r < d_in; ++r)
      for (int c = 0; c < d_out; ++c) fused.in_projection.data[r * 3 * d_out + p * d_out + c] = parts[p]->data[r * d_out + c];
    for (int c = 0; c < d_out; ++c) fused.in_bias.data[p * d_out + c] = biases[p]->data[c];
  }
  fused.out_weight = split.out_weight;
  fused.out_bias = split.out_bias;
  return fused;
}

void expect_same_attention(const AttentionResult& a, const AttentionResult& b) {
  EXPECT_TRUE(all_close(a.query, b.query)) << "query";
  EXPECT_TRUE(all_close(a.key, b.key)) << "key";
  EXPECT_TRUE(all_close(a.value, b.value)) << "value";
  EXPECT_TRUE(all_close(a.scores, b.scores)) << "scores";
  EXPECT_TRUE(all_close(a.weights, b.weights)) << "weights";
  EXPECT_TRUE(all_close(a.dropped, b.dropped)) << "dropped";
  EXPECT_TRUE(all_close(a.context, b.context)) << "context";
  EXPECT_TRUE(all_close(a.output, b.output)) << "output";
}

TEST(Multihead, SplitHeadsEqualStackedHeadsAndFusedProjection) {
  const Tensor x = random_tensor({2, 5, 6}, 30);
  const ProjectionWeights split = random_projection(6, 6, 31, true, true);
  AttentionOptions options;
  options.heads = 3;
  options.causal = true;
  options.dropout = 0.2f;
  options.seed = 9;
  const AttentionResult a = multihead_attention_split(x, split, options);
  const AttentionResult b = multihead_attention_stacked(x, stack_from_split(split, 3), options);
  const AttentionResult c = multihead_attention_fused(x, fuse_from_split(split), options);
  EXPECT_EQ(a.weights.shape, (std::vector<int>{2, 3, 5, 5}));
  EXPECT_EQ(a.query.shape, (std::vector<int>{2, 3, 5, 2}));
  expect_same_attention(b, a);
  expect_same_attention(c, a);
}

TEST(Multihead, OneHeadEqualsSelfAttention) {
  const Tensor x = random_tensor({2, 4, 3}, 32);
  const ProjectionWeights w = random_projection(3, 4, 33);
  const AttentionResult single = self_attention(x, w, causal_with(MaskMode::NegInf));
  const AttentionResult multi = multihead_attention_split(x, w, causal_with(MaskMode::NegInf));
  EXPECT_TRUE(all_close(multi.weights, tensor({2, 1, 4, 4}, single.weights.data)));
  EXPECT_TRUE(all_close(multi.output, single.output));
  EXPECT_TRUE(all_close(multi.context, single.output));  // no out projection: output = context
}

TEST(Multihead, HeadsAreIndependent) {
  // Changing head 1's value weights leaves head 0's columns of the context untouched.
  const Tensor x = random_tensor({1, 4, 4}, 34);
  ProjectionWeights w = random_projection(4, 4, 35, false);
  AttentionOptions options;
  options.heads = 2;
  const AttentionResult before = multihead_attention_split(x, w, options);
  for (int r = 0; r < 4; ++r) w.value.data[r * 4 + 3] += 1.0f;  // column 3 belongs to head 1
  const AttentionResult after = multihead_attention_split(x, w, options);
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(at(after.context, {0, t, 0}), at(before.context, {0, t, 0}));
    EXPECT_EQ(at(after.context, {0, t, 1}), at(before.context, {0, t, 1}));
  }
}

TEST(Multihead, WithoutIntermediatesOnlyTheOutputRemains) {
  const Tensor x = random_tensor({1, 4, 4}, 36);
  const ProjectionWeights w = random_projection(4, 4, 37, true, true);
  AttentionOptions options;
  options.heads = 2;
  options.dropout = 0.1f;  // the teaching code runs, so the output is bit for bit the same (the fused kernel: below)
  const AttentionResult full = multihead_attention_split(x, w, options);
  options.intermediates = false;
  const AttentionResult lean = multihead_attention_split(x, w, options);
  EXPECT_TRUE(all_close(lean.output, full.output, 0, 0));
  EXPECT_FALSE(lean.weights.present());
  EXPECT_FALSE(lean.context.present());
  EXPECT_FALSE(lean.query.present());
}

// intermediates=false: the fast entry points route to the fused kernel when the options allow it (dropout 0, 'neg_inf' mask) and
// to the teaching code otherwise; either way the output equals the teaching output.
TEST(Multihead, WithoutIntermediatesEveryFormEqualsTheTeachingOutput) {
  struct Case {
    const char* name;
    int time;  // 70: three query tiles of 32 and two key tiles of 64
    AttentionOptions options;
  };
  AttentionOptions tiled = causal_with(MaskMode::NegInf);
  AttentionOptions dropped = causal_with(MaskMode::NegInf);
  dropped.dropout = 0.25f;
  dropped.seed = 7;
  const Case cases[] = {{"tiled, fused kernel", 70, tiled},
                        {"dropout, falls back", 9, dropped},
                        {"renormalize, falls back", 9, causal_with(MaskMode::Renormalize)}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor x = random_tensor({2, c.time, 12}, 50);
    const Tensor x_context = random_tensor({2, c.time + 5, 10}, 51);
    ProjectionWeights split = random_projection(12, 16, 52, true, true);
    AttentionOptions teaching = c.options;
    teaching.heads = 4;
    AttentionOptions lean = teaching;
    lean.intermediates = false;
    const AttentionResult expected = multihead_attention_split(x, split, teaching);
    // The fast entry points (paths/fast_attention.h) choose; the teaching functions are pure math.
    const AttentionResult lean_split = multihead_attention_split_fast(x, split, lean);
    EXPECT_TRUE(all_close(lean_split.output, expected.output)) << "split";
    EXPECT_FALSE(lean_split.weights.present());
    EXPECT_FALSE(lean_split.context.present());
    EXPECT_TRUE(all_close(multihead_attention_fused_fast(x, fuse_from_split(split), lean).output, expected.output)) << "fused";
    EXPECT_TRUE(all_close(multihead_attention_stacked_fast(x, stack_from_split(split, 4), lean).output, expected.output))
        << "stacked";
    ProjectionWeights cross = random_projection(10, 16, 53, true, true);
    cross.query = split.query;
    const AttentionResult lean_cross = cross_attention_fast(x, x_context, cross, lean);
    EXPECT_TRUE(all_close(lean_cross.output, cross_attention(x, x_context, cross, teaching).output)) << "cross";
    EXPECT_FALSE(lean_cross.weights.present());
  }
}

TEST(CrossAttention, WithItselfEqualsSplitSelfAttention) {
  const Tensor x = random_tensor({2, 5, 4}, 38);
  const ProjectionWeights w = random_projection(4, 4, 39, true, true);
  AttentionOptions options;
  options.heads = 2;
  expect_same_attention(cross_attention(x, x, w, options), multihead_attention_split(x, w, options));
}

TEST(CrossAttention, ShapesFollowQueryRowsAndContextColumns) {
  const Tensor x_query = random_tensor({2, 3, 5}, 40);
  const Tensor x_context = random_tensor({2, 7, 6}, 41);
  ProjectionWeights w = random_projection(6, 4, 42);
  w.query = random_tensor({5, 4}, 43);
  AttentionOptions options;
  options.heads = 2;
  const AttentionResult result = cross_attention(x_query, x_context, w, options);
  EXPECT_EQ(result.query.shape, (std::vector<int>{2, 2, 3, 2}));
  EXPECT_EQ(result.key.shape, (std::vector<int>{2, 2, 7, 2}));
  EXPECT_EQ(result.weights.shape, (std::vector<int>{2, 2, 3, 7}));
  EXPECT_EQ(result.output.shape, (std::vector<int>{2, 3, 4}));
}

TEST(CrossAttention, CausalRowsAreTopLeftAligned) {
  // Tq = 2 < Tk = 4: row 0 sees key 0, row 1 sees keys 0 and 1, never the rest.
  ProjectionWeights w = random_projection(3, 2, 44);
  const AttentionResult result =
      cross_attention(random_tensor({1, 2, 3}, 45), random_tensor({1, 4, 3}, 46), w, causal_with(MaskMode::NegInf));
  EXPECT_EQ(at(result.weights, {0, 0, 0, 0}), 1.0f);
  EXPECT_GT(at(result.weights, {0, 0, 1, 1}), 0.0f);
  for (int j = 2; j < 4; ++j) EXPECT_EQ(at(result.weights, {0, 0, 1, j}), 0.0f);
}

}  // namespace
}  // namespace ap
