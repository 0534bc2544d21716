// Steps 1–5, checked by hand: next-token pairs, the three causal averages, softmax and
// attention without weights on the six-token sentence.
#include <cmath>
#include <limits>

#include "test_support.h"

namespace ap {
namespace {

using testing::all_close;
using testing::at;
using testing::journey_embeddings;
using testing::random_tensor;
using testing::tensor;

constexpr float inf = std::numeric_limits<float>::infinity();

TEST(NextTokenPairs, EachPrefixPredictsTheFollowingToken) {
  IntTensor tokens;
  tokens.shape = {2, 4};
  tokens.data = {10, 11, 12, 13, 20, 21, 22, 23};
  const NextTokenPairs pairs = next_token_pairs(tokens);
  EXPECT_EQ(pairs.contexts.shape, (std::vector<int>{2, 3}));
  EXPECT_EQ(pairs.targets.shape, (std::vector<int>{2, 3}));
  EXPECT_EQ(pairs.contexts.data, (std::vector<std::int32_t>{10, 11, 12, 20, 21, 22}));
  EXPECT_EQ(pairs.targets.data, (std::vector<std::int32_t>{11, 12, 13, 21, 22, 23}));
}

TEST(CausalAverage, LoopAveragesThePrefix) {
  const Tensor x = tensor({1, 3, 2}, {1, 10, 3, 20, 8, 60});
  const AverageResult result = causal_average_loop(x);
  EXPECT_TRUE(all_close(result.output, tensor({1, 3, 2}, {1, 10, 2, 15, 4, 30})));
  EXPECT_FALSE(result.weights.present());
}

TEST(CausalAverage, MatmulWeightsAreRowNormalisedLowerTriangle) {
  const AverageResult result = causal_average_matmul(random_tensor({1, 3, 2}, 1));
  EXPECT_TRUE(all_close(result.weights, tensor({3, 3}, {1, 0, 0, 0.5f, 0.5f, 0, 1 / 3.f, 1 / 3.f, 1 / 3.f})));
}

TEST(CausalAverage, LoopEqualsMatmulEqualsSoftmax) {
  const Tensor x = random_tensor({3, 7, 5}, 2);
  const AverageResult loop = causal_average_loop(x);
  const AverageResult matmul = causal_average_matmul(x);
  const AverageResult softmaxed = causal_average_softmax(x);
  EXPECT_TRUE(all_close(matmul.output, loop.output));
  EXPECT_TRUE(all_close(softmaxed.output, loop.output));
  EXPECT_TRUE(all_close(softmaxed.weights, matmul.weights));
}

TEST(CausalAverage, SoftmaxStartsFromZeroScoresMaskedWithNegativeInfinity) {
  const AverageResult result = causal_average_softmax(random_tensor({1, 3, 2}, 3));
  EXPECT_TRUE(all_close(result.scores, zeros({3, 3})));
  EXPECT_TRUE(all_close(result.masked, tensor({3, 3}, {0, -inf, -inf, 0, 0, -inf, 0, 0, 0})));
}

TEST(Softmax, StableRowsSumToOne) {
  const Tensor output = softmax(tensor({2, 3}, {1, 2, 3, -1, 0, 1}));
  const float e1 = std::exp(1.0f), e2 = std::exp(2.0f), sum = 1 + e1 + e2;
  EXPECT_TRUE(all_close(output, tensor({2, 3}, {1 / sum, e1 / sum, e2 / sum, 1 / sum, e1 / sum, e2 / sum})));
}

TEST(Softmax, LogitsNear1e4StayFiniteWhenStable) {
  const Tensor output = softmax(tensor({1, 3}, {10000, 10001, 10002}));
  const float e1 = std::exp(1.0f), e2 = std::exp(2.0f), sum = 1 + e1 + e2;
  EXPECT_TRUE(all_close(output, tensor({1, 3}, {1 / sum, e1 / sum, e2 / sum})));
}

TEST(Softmax, NaiveOverflowsNearLogits1e4) {
  SoftmaxOptions naive;
  naive.normalization = Normalization::Naive;
  const Tensor output = softmax(tensor({1, 3}, {10000, 10001, 10002}), naive);
  for (float v : output.data) EXPECT_TRUE(std::isnan(v)) << v;  // inf / inf: the lesson of step 5
}

TEST(Softmax, SumDividesByTheRowSum) {
  SoftmaxOptions by_sum;
  by_sum.normalization = Normalization::Sum;
  EXPECT_TRUE(all_close(softmax(tensor({3}, {1, 3, 4}), by_sum), tensor({3}, {0.125f, 0.375f, 0.5f})));
}

TEST(Softmax, ScaleSharpensOrFlattens) {
  SoftmaxOptions unscaled, scaled;
  scaled.scale = 1 / std::sqrt(16.0f);
  const Tensor scores = tensor({5}, {0, 1, 2, 3, 10});
  // Unscaled, the 10 takes almost everything; scaled by 1/√16 the others keep a visible share.
  EXPECT_GT(softmax(scores, unscaled).data[4], 0.998f);
  EXPECT_LT(softmax(scores, scaled).data[4], 0.8f);
}

TEST(Softmax, FullyMaskedRowGivesZerosNotNaN) {
  for (Normalization normalization : {Normalization::Stable, Normalization::Naive, Normalization::Sum}) {
    SoftmaxOptions options;
    options.normalization = normalization;
    const Tensor output = softmax(tensor({2, 3}, {-inf, -inf, -inf, 1, -inf, 1}), options);
    EXPECT_TRUE(all_close(output, tensor({2, 3}, {0, 0, 0, 0.5f, 0, 0.5f}))) << option_name(normalization);
  }
}

TEST(Softmax, MaskedEntriesStayMaskedUnderAnyScale) {
  SoftmaxOptions zero_scale;
  zero_scale.scale = 0;
  EXPECT_TRUE(all_close(softmax(tensor({3}, {5, -inf, 7}), zero_scale), tensor({3}, {0.5f, 0, 0.5f})));
}

TEST(AttentionWithoutWeights, JourneyQueryTwoMatchesTheBook) {
  const AverageResult result = attention_without_weights(journey_embeddings());
  const float weights[] = {0.1385f, 0.2379f, 0.2333f, 0.1240f, 0.1082f, 0.1581f};
  for (int j = 0; j < 6; ++j) EXPECT_NEAR(at(result.weights, {0, 1, j}), weights[j], 1e-4f) << "key " << j;
  const float context[] = {0.4419f, 0.6515f, 0.5683f};
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(at(result.output, {0, 1, c}), context[c], 1e-4f) << "channel " << c;
  // scores are raw dot products: journey·journey = 0.55² + 0.87² + 0.66²
  EXPECT_NEAR(at(result.scores, {0, 1, 1}), 0.55f * 0.55f + 0.87f * 0.87f + 0.66f * 0.66f, 1e-6f);
}

TEST(AttentionWithoutWeights, StableAndNaiveAgreeOnSmallScores) {
  const Tensor x = random_tensor({2, 5, 4}, 4);
  const AverageResult stable = attention_without_weights(x, Normalization::Stable);
  const AverageResult naive = attention_without_weights(x, Normalization::Naive);
  EXPECT_TRUE(all_close(naive.weights, stable.weights));
  EXPECT_TRUE(all_close(naive.output, stable.output));
}

}  // namespace
}  // namespace ap
