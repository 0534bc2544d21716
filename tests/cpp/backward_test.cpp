// The teaching backward's behaviours beyond the fixtures: its checks name the backward, and the forms that
// compute the same function give the same gradients.
#include <stdexcept>

#include "test_support.h"

namespace ap {
namespace {

using testing::all_close;
using testing::random_tensor;

ProjectionWeights split_weights(int d_in, int d_out, bool out_projection) {
  ProjectionWeights w;
  w.query = random_tensor({d_in, d_out}, 10);
  w.key = random_tensor({d_in, d_out}, 11);
  w.value = random_tensor({d_in, d_out}, 12);
  w.query_bias = random_tensor({d_out}, 13);
  w.key_bias = random_tensor({d_out}, 14);
  w.value_bias = random_tensor({d_out}, 15);
  if (out_projection) {
    w.out_weight = random_tensor({d_out, d_out}, 16);
    w.out_bias = random_tensor({d_out}, 17);
  }
  return w;
}

TEST(Backward, GradOutputOfTheWrongShapeIsAnErrorNamingTheBackward) {
  const Tensor x = random_tensor({2, 5, 4}, 1);
  const ProjectionWeights w = split_weights(4, 3, false);
  EXPECT_EQ(check_self_attention_backward(x, w, random_tensor({2, 5, 4}, 2), {}),
            "selfAttentionBackward: gradOutput has shape [2, 5, 4]; expected [B=2, T=5, d_out=3] (the forward output's "
            "shape)");
  EXPECT_THROW(self_attention_backward(x, w, random_tensor({2, 5}, 2)), std::invalid_argument);
}

TEST(Backward, TheForwardsChecksSpeakUnderTheBackwardsName) {
  ProjectionWeights w = split_weights(4, 4, true);
  w.query = random_tensor({3, 4}, 3);
  AttentionOptions options;
  options.heads = 2;
  EXPECT_EQ(check_multihead_attention_split_backward(random_tensor({1, 5, 4}, 1), w, random_tensor({1, 5, 4}, 2),
                                                     options),
            "multiheadAttentionSplitBackward: weights.query has shape [3, 4]; expected [d_in=4, d_out]");
}

TEST(Backward, TheMemoryLimitCoversTheRecomputedForwardAndTheGradients) {
  const Tensor x = random_tensor({1, 64, 4}, 1);
  const ProjectionWeights w = split_weights(4, 4, false);
  EXPECT_NE(check_self_attention_backward(x, w, random_tensor({1, 64, 4}, 2), {}, 40000).find("memory limit"),
            std::string::npos);
  EXPECT_EQ(check_self_attention_backward(x, w, random_tensor({1, 64, 4}, 2), {}, 1 << 20), "");
}

TEST(Backward, RenormalizeHasTheNegInfMasksGradients) {
  const Tensor x = random_tensor({2, 6, 4}, 1), grad = random_tensor({2, 6, 4}, 2);
  const ProjectionWeights w = split_weights(4, 4, true);
  AttentionOptions neg_inf;
  neg_inf.causal = true;
  neg_inf.heads = 2;
  AttentionOptions renormalize = neg_inf;
  renormalize.mask = MaskMode::Renormalize;
  const ProjectionGradients a = multihead_attention_split_backward(x, w, grad, neg_inf);
  const ProjectionGradients b = multihead_attention_split_backward(x, w, grad, renormalize);
  EXPECT_TRUE(all_close(b.x, a.x));
  EXPECT_TRUE(all_close(b.weights.query, a.weights.query));
  EXPECT_TRUE(all_close(b.weights.key, a.weights.key));
}

TEST(Backward, OneHeadOfSplitEqualsSelfAttention) {
  const Tensor x = random_tensor({2, 5, 3}, 1), grad = random_tensor({2, 5, 4}, 2);
  const ProjectionWeights w = split_weights(3, 4, false);
  AttentionOptions options;
  options.causal = true;
  options.dropout = 0.25f;
  options.seed = 9;
  const ProjectionGradients split = multihead_attention_split_backward(x, w, grad, options);
  const ProjectionGradients self = self_attention_backward(x, w, grad, options);
  EXPECT_TRUE(all_close(split.x, self.x));
  EXPECT_TRUE(all_close(split.weights.value, self.weights.value));
  EXPECT_TRUE(all_close(split.weights.query_bias, self.weights.query_bias));
}

TEST(Backward, CrossAttentionOfASequenceWithItselfAddsUpToSplit) {
  const Tensor x = random_tensor({1, 5, 4}, 1), grad = random_tensor({1, 5, 4}, 2);
  const ProjectionWeights w = split_weights(4, 4, true);
  AttentionOptions options;
  options.heads = 2;
  const CrossAttentionGradients cross = cross_attention_backward(x, x, w, grad, options);
  const ProjectionGradients split = multihead_attention_split_backward(x, w, grad, options);
  Tensor sum = cross.x_query;
  for (std::size_t i = 0; i < sum.data.size(); ++i) sum.data[i] += cross.x_context.data[i];
  EXPECT_TRUE(all_close(sum, split.x));
  EXPECT_TRUE(all_close(cross.weights.out_weight, split.weights.out_weight));
}

}  // namespace
}  // namespace ap
