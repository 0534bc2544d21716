// Step 8 (dropout and its counter-based RNG) and step 9 (compare).
#include <cmath>

#include "test_support.h"

namespace ap {
namespace {

using testing::all_close;
using testing::random_tensor;
using testing::tensor;

TEST(Dropout, Lowbias32MatchesTheReferenceHash) {
  // Values computed independently in Python from the docs/api.md formula.
  EXPECT_EQ(lowbias32(0u), 0u);
  EXPECT_EQ(lowbias32(1u), 0x688990c0u);
  EXPECT_EQ(lowbias32(42u), 0x172733c2u);
}

TEST(Dropout, MaskBitsForSeed42MatchPython) {
  // u(42, 0..7) = 0.375427 0.562692 0.72064 0.66387 0.327511 0.663253 0.991289 0.019354
  const DropoutResult result = attention_dropout(tensor({8}, std::vector<float>(8, 1.0f)), {0.5f, 42});
  EXPECT_EQ(result.mask.data, (std::vector<float>{0, 1, 1, 1, 0, 1, 1, 0}));
  EXPECT_NEAR(dropout_uniform(42, 0), 0.375427f, 1e-6f);
  EXPECT_NEAR(dropout_uniform(42, 7), 0.019354f, 1e-6f);
}

TEST(Dropout, TorchGeneratorDrawsTheBooksMask) {
  // torch.manual_seed(123); torch.nn.Dropout(0.5)(torch.ones(6, 6)), as seed 003's §3.5.2 prints it (2 = kept).
  const std::vector<float> book = {1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1,
                                   0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 0};
  DropoutOptions options{0.5f, 123};
  options.dropout_rng = DropoutRng::Torch;
  const DropoutResult result = attention_dropout(tensor({6, 6}, std::vector<float>(36, 1.0f)), options);
  EXPECT_EQ(result.mask.data, book);
  for (std::size_t i = 0; i < book.size(); ++i) EXPECT_EQ(result.output.data[i], 2.0f * book[i]);
  // The default generator is the counter one, with another mask.
  EXPECT_NE(attention_dropout(tensor({6, 6}, std::vector<float>(36, 1.0f)), {0.5f, 123}).mask.data, book);
}

TEST(Dropout, TorchGeneratorScalesAsTorchsNoiseAndIsNamedInMessages) {
  // torch's noise is 1 / float(1 − p) in float32: for p = 0.25, 1.33333337f.
  const DropoutKeeps keeps(DropoutRng::Torch, 7, 0.25f, 4);
  EXPECT_EQ(keeps.scale(), 1.0f / 0.75f);
  DropoutRng rng = DropoutRng::Counter;
  EXPECT_EQ(parse_option("attentionDropout", "options.dropoutRng", "numpy", rng),
            "attentionDropout: options.dropoutRng='numpy'; expected 'counter' or 'torch'");
  EXPECT_EQ(parse_option("attentionDropout", "options.dropoutRng", "torch", rng), "");
  EXPECT_EQ(rng, DropoutRng::Torch);
}

TEST(Dropout, SeedZeroDropsElementZero) {
  // lowbias32(0) = 0, so u(0, 0) = 0 < p for any p > 0.
  EXPECT_EQ(dropout_uniform(0, 0), 0.0f);
  EXPECT_FALSE(dropout_keeps(0, 0, 0.1f));
}

TEST(Dropout, SameSeedSameMaskOtherSeedOtherMask) {
  const Tensor weights = random_tensor({2, 8, 8}, 50);
  const DropoutResult a = attention_dropout(weights, {0.3f, 7});
  const DropoutResult b = attention_dropout(weights, {0.3f, 7});
  const DropoutResult c = attention_dropout(weights, {0.3f, 8});
  EXPECT_EQ(a.mask.data, b.mask.data);
  EXPECT_NE(a.mask.data, c.mask.data);
}

TEST(Dropout, KeptFractionIsAboutOneMinusPAndKeptWeightsScaleByOneOverOneMinusP) {
  const Tensor weights = tensor({100, 200}, std::vector<float>(20000, 0.25f));
  for (float p : {0.1f, 0.5f}) {
    const DropoutResult result = attention_dropout(weights, {p, 2024});
    double kept = 0;
    for (std::size_t i = 0; i < result.mask.data.size(); ++i) {
      kept += result.mask.data[i];
      EXPECT_FLOAT_EQ(result.output.data[i], result.mask.data[i] * 0.25f / (1 - p));
    }
    EXPECT_NEAR(kept / 20000, 1 - p, 0.015) << "p=" << p;
  }
}

TEST(Dropout, ZeroProbabilityKeepsEverything) {
  const Tensor weights = random_tensor({3, 4}, 51);
  const DropoutResult result = attention_dropout(weights, {0.0f, 3});
  EXPECT_TRUE(all_close(result.output, weights, 0, 0));
  for (float bit : result.mask.data) EXPECT_EQ(bit, 1.0f);
}

TEST(Dropout, AttentionDropsTheSameElementsAsAttentionDropout) {
  // self_attention's dropped = attention_dropout(weights) with the same seed: one RNG, one index.
  ProjectionWeights w;
  w.query = random_tensor({3, 2}, 52);
  w.key = random_tensor({3, 2}, 53);
  w.value = random_tensor({3, 2}, 54);
  AttentionOptions options;
  options.causal = true;
  options.dropout = 0.4f;
  options.seed = 11;
  const AttentionResult result = self_attention(random_tensor({2, 4, 3}, 55), w, options);
  const DropoutResult alone = attention_dropout(result.weights, {0.4f, 11});
  EXPECT_TRUE(all_close(result.dropped, alone.output, 0, 0));
}

TEST(Compare, ReportsErrorsAndTheFirstMismatch) {
  const Tensor expected = tensor({4}, {1, 2, 0, 4});
  const Tensor actual = tensor({4}, {1, 2.5f, 0.001f, 4});
  const Comparison result = compare(actual, expected);
  EXPECT_DOUBLE_EQ(result.max_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(result.max_rel_error, 0.25);  // the 0 in expected is left out
  EXPECT_FALSE(result.allclose);
  EXPECT_EQ(result.first_mismatch, 1);
}

TEST(Compare, EqualTensorsAreClose) {
  const Tensor x = random_tensor({2, 3}, 56);
  const Comparison result = compare(x, x);
  EXPECT_TRUE(result.allclose);
  EXPECT_EQ(result.first_mismatch, -1);
  EXPECT_EQ(result.max_abs_error, 0.0);
}

}  // namespace
}  // namespace ap
