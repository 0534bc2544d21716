// Every bad-input case of docs/api.md ("Errors"): the check returns a message naming the function,
// the argument, the value and what was expected; the compute function throws it as std::invalid_argument.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "attention/check_helpers.h"
#include "attention/registry_rules.h"
#include "test_support.h"

namespace ap {
namespace {

using testing::random_tensor;
using testing::tensor;

constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float nan = std::numeric_limits<float>::quiet_NaN();

ProjectionWeights square_weights(int d_in, int d_out) {
  ProjectionWeights w;
  w.query = random_tensor({d_in, d_out}, 60);
  w.key = random_tensor({d_in, d_out}, 61);
  w.value = random_tensor({d_in, d_out}, 62);
  return w;
}

// scaledDotProductAttention: the same words as the JS check (tests/unit/scaled-dot-product-attention.test.js).
TEST(Errors, ScaledDotProductAttentionNamesTheArgument) {
  const Tensor q = random_tensor({2, 3, 4}, 1), k = random_tensor({2, 5, 4}, 2), v = random_tensor({2, 5, 3}, 3);
  const std::size_t big = std::numeric_limits<std::size_t>::max();
  const char* fn = "scaledDotProductAttention: ";
  EXPECT_EQ(check_scaled_dot_product_attention(q, random_tensor({2, 5, 3}, 4), v, {}, big),
            std::string(fn) + "key has shape [2, 5, 3]; expected E=4 in its last axis, as query");
  EXPECT_EQ(check_scaled_dot_product_attention(q, k, random_tensor({2, 4, 3}, 4), {}, big),
            std::string(fn) + "value has shape [2, 4, 3]; expected S=5 in its second-to-last axis, as key");
  EXPECT_EQ(check_scaled_dot_product_attention(q, random_tensor({3, 5, 4}, 4), v, {}, big),
            std::string(fn) + "key has shape [3, 5, 4]; expected the leading axes of query [2, 3, 4]");
  SdpaOptions boolean;
  boolean.mask = tensor({5}, {1, 1, 2, 1, 0});
  boolean.mask_boolean = true;
  EXPECT_EQ(check_scaled_dot_product_attention(q, k, v, boolean, big),
            std::string(fn) + "options.attnMask.data[2] is 2; expected 0 or 1 (a boolean mask: 1 = may attend)");
  SdpaOptions wide;
  wide.mask = tensor({4}, {0, 0, 0, 0});
  EXPECT_EQ(check_scaled_dot_product_attention(q, k, v, wide, big),
            std::string(fn) + "options.attnMask has shape [4]; expected a shape broadcastable to [2, 3, 5] (…, L, S)");
  boolean.mask = tensor({5}, {1, 1, 1, 1, 1});
  boolean.is_causal = true;
  EXPECT_EQ(check_scaled_dot_product_attention(q, k, v, boolean, big),
            std::string(fn) + "options.isCausal=true; expected false when options.attnMask is given (as PyTorch)");
  EXPECT_THROW(scaled_dot_product_attention(q, k, v, boolean), std::invalid_argument);
  SdpaOptions float_mask;
  float_mask.mask = tensor({5}, {0, -inf, 1, 0, -inf});
  EXPECT_EQ(check_scaled_dot_product_attention(q, k, v, float_mask, big), "");
}

// The masks of the multi-head functions and crossAttention: the same words as the JS check (tests/unit/masks.test.js).
TEST(Errors, MasksNameTheOption) {
  const Tensor xq = random_tensor({2, 3, 4}, 1), xc = random_tensor({2, 4, 4}, 2);
  const ProjectionWeights w = square_weights(4, 4);
  const std::size_t big = std::numeric_limits<std::size_t>::max();
  AttentionOptions options;
  options.heads = 2;
  options.attn_mask = tensor({4, 3, 4}, std::vector<float>(48, 1.0f));
  options.attn_mask_boolean = true;
  EXPECT_EQ(check_cross_attention(xq, xc, w, options, big),
            "crossAttention: options.attnMask has shape [4, 3, 4]; expected (Tq, Tk), (B, Tq, Tk) or (B, H, Tq, Tk), "
            "each size as in [B=2, H=2, Tq=3, Tk=4] or 1 (not (B·H, Tq, Tk))");
  options.attn_mask = tensor({3, 4}, {1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1});
  EXPECT_EQ(check_cross_attention(xq, xc, w, options, big),
            "crossAttention: options.attnMask.data[5] is 2; expected 0 or 1 (a boolean mask: 1 = may attend)");
  options.attn_mask = tensor({3, 4}, {1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1});
  options.causal = true;
  options.mask = MaskMode::Renormalize;
  EXPECT_EQ(check_cross_attention(xq, xc, w, options, big),
            "crossAttention: options.mask='renormalize'; expected 'neg_inf' when options.attnMask is given (masks apply as "
            "−∞ before the softmax)");
  EXPECT_THROW(cross_attention(xq, xc, w, options), std::invalid_argument);
  options.mask = MaskMode::NegInf;
  EXPECT_EQ(check_cross_attention(xq, xc, w, options, big), "");
  options.attn_mask_boolean = false;
  options.attn_mask.data[7] = nan;
  EXPECT_NE(check_cross_attention(xq, xc, w, options, big).find("crossAttention: options.attnMask"), std::string::npos);
  options.attn_mask.data[7] = -inf;
  EXPECT_EQ(check_cross_attention(xq, xc, w, options, big), "");
  AttentionOptions padding;
  padding.heads = 2;
  padding.key_padding_mask = tensor({4}, {0, 0, 0, 1});
  EXPECT_EQ(check_multihead_attention_split(xc, w, padding, big),
            "multiheadAttentionSplit: options.keyPaddingMask has shape [4]; expected [B=2, Tk=4] (B, Tk)");
  padding.key_padding_mask = tensor({2, 4}, {0, 0, 0, 1, 0, 3, 0, 0});
  EXPECT_EQ(check_multihead_attention_split(xc, w, padding, big),
            "multiheadAttentionSplit: options.keyPaddingMask.data[5] is 3; expected 0 or 1 (1 = padding, ignored)");
  AttentionOptions values;
  values.x_value = random_tensor({2, 3, 5}, 3);
  EXPECT_EQ(check_cross_attention(xq, xc, w, values, big),
            "crossAttention: options.xValue has shape [2, 3, 5]; expected [B=2, Tk=4, d_xv] (the batch size and Tk of xContext)");
  values.x_value = random_tensor({2, 4, 5}, 3);
  EXPECT_EQ(check_cross_attention(xq, xc, w, values, big),
            "crossAttention: weights.value has shape [4, 4]; expected [d_xv=5, d_out=4]");
}

TEST(Errors, WrongRankNamesTheExpectedAxes) {
  EXPECT_EQ(check_self_attention(random_tensor({4, 3}, 1), square_weights(3, 2), {}),
            "selfAttention: x has shape [4, 3]; expected rank 3 (B, T, d_in)");
  EXPECT_EQ(check_causal_average_loop(random_tensor({2, 2, 2, 2}, 1)),
            "causalAverageLoop: x has shape [2, 2, 2, 2]; expected rank 3 (B, T, C)");
}

TEST(Errors, MismatchedWeightShapeNamesDIn) {
  ProjectionWeights w = square_weights(3, 2);
  w.query = random_tensor({4, 2}, 2);
  EXPECT_EQ(check_self_attention(random_tensor({1, 5, 3}, 1), w, {}),
            "selfAttention: weights.query has shape [4, 2]; expected [d_in=3, d_out]");
  w = square_weights(3, 2);
  w.value = random_tensor({3, 5}, 3);
  EXPECT_EQ(check_self_attention(random_tensor({1, 5, 3}, 1), w, {}),
            "selfAttention: weights.value has shape [3, 5]; expected [d_in=3, d_out=2]");
  w = square_weights(3, 2);
  w.key_bias = random_tensor({3}, 4);
  EXPECT_EQ(check_self_attention(random_tensor({1, 5, 3}, 1), w, {}),
            "selfAttention: weights.keyBias has shape [3]; expected [d_out=2]");
}

TEST(Errors, LinearLayoutExpectsTransposedWeights) {
  AttentionOptions linear;
  linear.layout = WeightLayout::Linear;
  EXPECT_EQ(check_self_attention(random_tensor({1, 5, 3}, 1), square_weights(3, 2), linear),
            "selfAttention: weights.query has shape [3, 2]; expected [d_out, d_in=3] (layout 'linear')");
}

TEST(Errors, ZeroSizesAreRejected) {
  EXPECT_EQ(check_self_attention(zeros({1, 0, 3}), square_weights(3, 2), {}),
            "selfAttention: x has shape [1, 0, 3]; expected every size ≥ 1 (T=0)");
  EXPECT_EQ(check_attention_without_weights(zeros({2, 4, 0}), Normalization::Stable),
            "attentionWithoutWeights: x has shape [2, 4, 0]; expected every size ≥ 1 (C=0)");
  AttentionOptions no_heads;
  no_heads.heads = 0;
  EXPECT_EQ(check_multihead_attention_split(random_tensor({1, 4, 4}, 1), square_weights(4, 4), no_heads),
            "multiheadAttentionSplit: options.heads=0; expected an integer ≥ 1");
  StackedWeights empty;
  EXPECT_EQ(check_multihead_attention_stacked(random_tensor({1, 4, 4}, 1), empty, {}),
            "multiheadAttentionStacked: weights.heads is empty; expected at least one head");
}

TEST(Errors, HeadsMustDivideDOut) {
  AttentionOptions three;
  three.heads = 3;
  EXPECT_EQ(check_multihead_attention_split(random_tensor({1, 4, 3}, 1), square_weights(3, 10), three),
            "multiheadAttentionSplit: d_out=10 is not divisible by heads=3");
  FusedWeights fused;
  fused.in_projection = random_tensor({3, 12}, 5);
  EXPECT_EQ(check_multihead_attention_fused(random_tensor({1, 4, 3}, 1), fused, three),
            "multiheadAttentionFused: d_out=4 is not divisible by heads=3");
  fused.in_projection = random_tensor({3, 10}, 5);
  EXPECT_EQ(check_multihead_attention_fused(random_tensor({1, 4, 3}, 1), fused, {}),
            "multiheadAttentionFused: weights.inProjection has shape [3, 10]; expected [d_in=3, 3·d_out] "
            "([Wq | Wk | Wv] side by side)");
}

TEST(Errors, StackedHeadsMustShareDHead) {
  StackedWeights w;
  w.heads = {square_weights(4, 2), square_weights(4, 3)};
  EXPECT_EQ(check_multihead_attention_stacked(random_tensor({1, 4, 4}, 1), w, {}),
            "multiheadAttentionStacked: weights.heads[1].query has shape [4, 3]; expected [d_in=4, d_head=2]");
}

TEST(Errors, CrossAttentionBatchesMustMatch) {
  EXPECT_EQ(check_cross_attention(random_tensor({2, 3, 4}, 1), random_tensor({3, 5, 4}, 2), square_weights(4, 4), {}),
            "crossAttention: xContext has shape [3, 5, 4]; expected [B=2, Tk, d_kv] (the batch size of xQuery)");
  ProjectionWeights w = square_weights(4, 4);
  EXPECT_EQ(check_cross_attention(random_tensor({2, 3, 4}, 1), random_tensor({2, 5, 6}, 2), w, {}),
            "crossAttention: weights.key has shape [4, 4]; expected [d_kv=6, d_out=4]");
}

TEST(Errors, OutputProjectionMustBeDOutSquare) {
  ProjectionWeights w = square_weights(4, 4);
  w.out_weight = random_tensor({4, 3}, 6);
  AttentionOptions two;
  two.heads = 2;
  EXPECT_EQ(check_multihead_attention_split(random_tensor({1, 4, 4}, 1), w, two),
            "multiheadAttentionSplit: weights.outWeight has shape [4, 3]; expected [d_out=4, d_out=4]");
}

TEST(Errors, DropoutOutsideZeroToOne) {
  const Tensor weights = random_tensor({2, 2}, 1);
  EXPECT_EQ(check_attention_dropout(weights, {1.0f, 0}),
            "attentionDropout: options.dropout=1; expected a number in [0, 1)");
  EXPECT_EQ(check_attention_dropout(weights, {-0.1f, 0}),
            "attentionDropout: options.dropout=-0.1; expected a number in [0, 1)");
  AttentionOptions options;
  options.dropout = nan;
  EXPECT_EQ(check_self_attention(random_tensor({1, 2, 3}, 1), square_weights(3, 2), options),
            "selfAttention: options.dropout=NaN; expected a number in [0, 1)");
}

TEST(Errors, SeedMustBeAnUnsigned32BitInteger) {
  const Tensor weights = random_tensor({2, 2}, 1);
  EXPECT_EQ(check_attention_dropout(weights, {0.5f, 1.5}),
            "attentionDropout: options.seed=1.5; expected an integer in [0, 2^32)");
  EXPECT_EQ(check_attention_dropout(weights, {0.5f, -1}),
            "attentionDropout: options.seed=-1; expected an integer in [0, 2^32)");
  EXPECT_EQ(check_attention_dropout(weights, {0.5f, 4294967296.0}),
            "attentionDropout: options.seed=4294967296; expected an integer in [0, 2^32)");
  EXPECT_EQ(check_attention_dropout(weights, {0.5f, 4294967295.0}), "");
}

TEST(Errors, TemperatureMustBePositiveAndFinite) {
  AttentionOptions options;
  options.temperature = 0;
  EXPECT_EQ(check_self_attention(random_tensor({1, 2, 3}, 1), square_weights(3, 2), options),
            "selfAttention: options.temperature=0; expected a finite number > 0");
  options.temperature = inf;
  EXPECT_EQ(check_self_attention(random_tensor({1, 2, 3}, 1), square_weights(3, 2), options),
            "selfAttention: options.temperature=Infinity; expected a finite number > 0");
}

TEST(Errors, UnknownOptionValuesListTheChoices) {
  MaskMode mask = MaskMode::NegInf;
  EXPECT_EQ(parse_option("selfAttention", "options.mask", "none", mask),
            "selfAttention: options.mask='none'; expected 'neg_inf', 'renormalize' or 'zero'");
  Normalization normalization = Normalization::Stable;
  EXPECT_EQ(parse_option("softmax", "options.normalization", "Stable", normalization),
            "softmax: options.normalization='Stable'; expected 'stable', 'naive' or 'sum'");
  WeightLayout layout = WeightLayout::Matrix;
  EXPECT_EQ(parse_option("selfAttention", "options.layout", "linear", layout), "");
  EXPECT_EQ(layout, WeightLayout::Linear);
  EXPECT_EQ(parse_option("selfAttention", "options.layout", "torch", layout),
            "selfAttention: options.layout='torch'; expected 'matrix' or 'linear'");
}

TEST(Errors, NaNAndInfinityInInputsAreRejected) {
  EXPECT_EQ(check_causal_average_matmul(tensor({1, 2, 1}, {1, nan})),
            "causalAverageMatmul: x[1] is NaN; expected finite numbers");
  ProjectionWeights w = square_weights(3, 2);
  w.key.data[4] = -inf;
  EXPECT_EQ(check_self_attention(random_tensor({1, 2, 3}, 1), w, {}),
            "selfAttention: weights.key[4] is -Infinity; expected finite numbers");
  EXPECT_EQ(check_compare(tensor({2}, {1, inf}), tensor({2}, {1, 2}), {}),
            "compare: actual[1] is Infinity; expected finite numbers");
}

TEST(Errors, SoftmaxAcceptsMinusInfinityButNotNaNOrPlusInfinity) {
  EXPECT_EQ(check_softmax(tensor({3}, {1, -inf, 2}), {}), "");
  EXPECT_EQ(check_softmax(tensor({3}, {1, inf, 2}), {}),
            "softmax: x[1] is Infinity; expected finite numbers or -Infinity");
  EXPECT_EQ(check_softmax(tensor({3}, {nan, 0, 2}), {}), "softmax: x[0] is NaN; expected finite numbers or -Infinity");
  SoftmaxOptions options;
  options.scale = nan;
  EXPECT_EQ(check_softmax(tensor({1}, {1}), options), "softmax: options.scale=NaN; expected a finite number");
}

// Found by libFuzzer: scale·x past float32 would turn a finite score into a mask (−∞) or its row into NaN (+∞).
TEST(Errors, SoftmaxRefusesAScaleThatTakesAFiniteScoreBeyondFloat32) {
  SoftmaxOptions options;
  options.scale = -2000;
  EXPECT_EQ(check_softmax(tensor({2}, {3.4e38f, -inf}), options),
            "softmax: the scaled scores overflow float32 (scale=-2000 makes scale·x reach -Infinity)");
  EXPECT_EQ(check_softmax(tensor({2}, {1, -inf}), options), "");  // a mask stays a mask whatever the scale
  options.scale = 2;
  EXPECT_EQ(check_softmax(tensor({3}, {0, 2e38f, 1}), options),
            "softmax: the scaled scores overflow float32 (scale=2 makes scale·x reach Infinity)");
  EXPECT_THROW(softmax(tensor({3}, {0, 2e38f, 1}), options), std::invalid_argument);
  options.scale = 1;
  EXPECT_EQ(check_softmax(tensor({2}, {3.4e38f, -3.4e38f}), options), "");
}

TEST(Errors, DataLengthMustMatchShape) {
  EXPECT_EQ(check_softmax(tensor({2, 3}, {1, 2, 3, 4, 5}), {}), "softmax: x has 5 values for shape [2, 3]; expected 6");
  IntTensor tokens;
  tokens.shape = {1, 3};
  tokens.data = {1, 2};
  EXPECT_EQ(check_next_token_pairs(tokens), "nextTokenPairs: tokens has 2 values for shape [1, 3]; expected 3");
}

TEST(Errors, NextTokenPairsNeedsTwoTokens) {
  IntTensor tokens;
  tokens.shape = {2, 1};
  tokens.data = {1, 2};
  EXPECT_EQ(check_next_token_pairs(tokens),
            "nextTokenPairs: tokens has shape [2, 1]; expected L ≥ 2 tokens per sequence (a context and a target)");
}

TEST(Errors, MissingArgumentsAreNamed) {
  ProjectionWeights w = square_weights(3, 2);
  w.value = {};
  EXPECT_EQ(check_self_attention(random_tensor({1, 2, 3}, 1), w, {}),
            "selfAttention: weights.value is missing; expected a (d_in, d_out) tensor");
}

TEST(Errors, CompareNeedsTheSameShapeAndSaneTolerances) {
  EXPECT_EQ(check_compare(zeros({2, 3}), zeros({3, 2}), {}),
            "compare: expected has shape [3, 2]; expected [2, 3] like actual");
  CompareOptions options;
  options.atol = -1;
  EXPECT_EQ(check_compare(zeros({2}), zeros({2}), options), "compare: options.atol=-1; expected a finite number ≥ 0");
}

TEST(Errors, BuffersBeyondTheMemoryLimitAreRefusedBeforeAllocating) {
  // B=4, T=30000: five (B, T, T) float stages alone are 4·5·4·30000² bytes ≈ 72 GB.
  Tensor x;
  x.shape = {4, 30000, 1};
  x.data.assign(4 * 30000, 0.5f);
  ProjectionWeights w;
  w.query = w.key = w.value = tensor({1, 1}, {1});
  AttentionOptions options;
  options.causal = true;
  options.dropout = 0.1f;
  const std::size_t two_gib = std::size_t{2} << 30;
  EXPECT_EQ(check_self_attention(x, w, options, two_gib),
            "selfAttention: B=4, T=30000 needs 72.0 GB for its results and workspace; the memory limit is 2 GiB");
  EXPECT_EQ(check_self_attention(x, w, options), "");  // no limit given, natively
}

TEST(Errors, DropoutCounterMustCoverEveryWeight) {
  // B=5, T=30000: 4.5e9 weights, more than the 32-bit RNG counter can number.
  Tensor x;
  x.shape = {5, 30000, 1};
  x.data.assign(5 * 30000, 0.5f);
  ProjectionWeights w;
  w.query = w.key = w.value = tensor({1, 1}, {1});
  AttentionOptions options;
  options.dropout = 0.1f;
  EXPECT_EQ(check_self_attention(x, w, options),
            "selfAttention: the weights have 4500000000 values; dropout expects at most 2^32 (its counter is 32 bits)");
}

TEST(Errors, ComputeFunctionsThrowTheCheckMessageAndKeepWorking) {
  AttentionOptions three;
  three.heads = 3;
  const Tensor x = random_tensor({1, 4, 3}, 1);
  try {
    multihead_attention_split(x, square_weights(3, 10), three);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "multiheadAttentionSplit: d_out=10 is not divisible by heads=3");
  }
  EXPECT_THROW(softmax(tensor({2}, {1, nan})), std::invalid_argument);
  // The next valid call works as before.
  EXPECT_EQ(multihead_attention_split(x, square_weights(3, 9), three).output.shape, (std::vector<int>{1, 4, 9}));
}

// The binding checks a call on its shapes alone before it copies the inputs (cpp/bindings/bindings.cpp
// invoke): inside ShapesOnlyChecks no data is read — a tensor with only its shape passes — while the shape
// and memory checks still refuse; outside it, the same tensor is refused for its missing values.
TEST(Errors, ShapesOnlyChecksReadNoDataButStillCheckShapesAndMemory) {
  Tensor x;
  x.shape = {1, 1000, 8};  // no data: what the binding holds before the copy
  ProjectionWeights w = square_weights(8, 4);
  const std::size_t big = std::numeric_limits<std::size_t>::max();
  {
    ShapesOnlyChecks shapes_only;
    EXPECT_TRUE(checking_shapes_only());
    EXPECT_EQ(check_self_attention(x, w, {}, big), "");
    EXPECT_NE(check_self_attention(x, w, {}, std::size_t{1} << 20).find("the memory limit is 1 MiB"), std::string::npos);
    EXPECT_EQ(check_self_attention(x, square_weights(5, 4), {}, big),
              "selfAttention: weights.query has shape [5, 4]; expected [d_in=8, d_out]");
  }
  EXPECT_FALSE(checking_shapes_only());
  EXPECT_EQ(check_self_attention(x, w, {}, big), "selfAttention: x has 0 values for shape [1, 1000, 8]; expected 8000");
}

// The memory estimates are the registry's terms (web/src/core/registry.js `memory`, generated into
// attention/registry.h), summed by registry_rules.h: the JS checks read the same terms.
TEST(Errors, MemoryEstimatesAreTheRegistrysTerms) {
  EXPECT_EQ(estimate_floats("softmax", "teaching", {{"size", 10}}), 20.0);
  // a function without fused terms reads its teaching ones: x (B, T, C) and three (T, T) matrices
  EXPECT_EQ(estimate_floats("causalAverageSoftmax", "fused", {{"B", 2}, {"T", 3}, {"C", 4}}), 24.0 + 27.0);
  EXPECT_THROW(estimate_floats("softmax", "teaching", {}), std::logic_error);
  // the fused kernel: Q, context, output (3·8·4), K, V (2·8·4), one head's packed keys and values (2·8·2) and
  // the GEMM's panels (256·2048 + 72·256): 542912 floats, 2.2 MB; its message names B and T, not H
  AttentionOptions fused;
  fused.heads = 2;
  fused.intermediates = false;
  EXPECT_EQ(check_multihead_attention_split(random_tensor({1, 8, 4}, 1), square_weights(4, 4), fused, 1024),
            "multiheadAttentionSplit: B=1, T=8 needs 2.2 MB for its results and workspace; the memory limit is 1 KiB");
}

// matmul's check (cpp/paths/matmul.cpp) reads the registry's axes: a (B, M, K) or, unbatched, (M, K); b (K, N),
// a wrong rank said as the named axes. The words of tests/unit/wasm-errors.test.js and the JS checkMatmul.
TEST(Errors, MatmulAxesComeFromTheRegistry) {
  AxisSizes::Read unbatched;
  unbatched.unbatched = true;
  AxisSizes::Read transposed;
  transposed.transposed = true;
  {
    AxisSizes sizes("matmul");
    EXPECT_EQ(sizes.check("a", random_tensor({2, 2}, 1), unbatched), "");
    EXPECT_EQ(sizes.check("b", random_tensor({3, 2}, 2)), "matmul: b has shape [3, 2]; expected [K=2, N]");
  }
  {
    AxisSizes sizes("matmul");
    EXPECT_EQ(sizes.check("a", random_tensor({5, 2, 3}, 1)), "");
    EXPECT_EQ(sizes.check("b", random_tensor({3}, 2)), "matmul: b has shape [3]; expected [K=3, N]");
    EXPECT_EQ(sizes.check("b", random_tensor({1, 3, 2}, 2), transposed), "matmul: b has shape [1, 3, 2]; expected [N, K=3]");
    EXPECT_EQ(sizes.check("b", random_tensor({2, 4}, 2), transposed), "matmul: b has shape [2, 4]; expected [N, K=3]");
    EXPECT_EQ(sizes.check("b", random_tensor({3, 4}, 2)), "");
    EXPECT_EQ(sizes["B"], 5);
    EXPECT_EQ(sizes["M"], 2);
    EXPECT_EQ(sizes["N"], 4);
  }
  {
    AxisSizes sizes("matmul");
    EXPECT_EQ(sizes.check("a", random_tensor({0, 3}, 1), unbatched), "matmul: a has shape [0, 3]; expected every size ≥ 1 (M=0)");
    EXPECT_EQ(sizes.check("a", random_tensor({0, 2, 3}, 1)), "matmul: a has shape [0, 2, 3]; expected every size ≥ 1 (B=0)");
    EXPECT_EQ(sizes.check("a", random_tensor({2, 3}, 1), unbatched), "");
    EXPECT_EQ(sizes.check("b", random_tensor({3, 0}, 2)), "matmul: b has shape [3, 0]; expected every size ≥ 1 (N=0)");
    EXPECT_EQ(sizes.check("b", tensor({3, 1}, {1, nan, 1})), "matmul: b[1] is NaN; expected finite numbers");
  }
}

// Checked once: a step's public entry point (the native library's) runs its check; its body, unchecked::<step>, which the
// binding runs once the call is checked, does not check again. A NaN shows which ran: the entry point refuses it,
// the body computes with it.
TEST(Errors, PublicStepsCheckTheirUncheckedBodiesDoNot) {
  const Tensor x = tensor({1, 2, 2}, {0.5f, nan, 1.0f, 2.0f});
  const auto has_nan = [](const Tensor& t) {
    for (float v : t.data) {
      if (std::isnan(v)) return true;
    }
    return false;
  };
  EXPECT_THROW(softmax(x), std::invalid_argument);
  EXPECT_TRUE(has_nan(unchecked::softmax(x, {})));
  EXPECT_THROW(causal_average_loop(x), std::invalid_argument);
  EXPECT_TRUE(has_nan(unchecked::causal_average_loop(x).output));
  EXPECT_THROW(causal_average_matmul(x), std::invalid_argument);
  EXPECT_TRUE(has_nan(unchecked::causal_average_matmul(x).output));
  EXPECT_THROW(causal_average_softmax(x), std::invalid_argument);
  EXPECT_TRUE(has_nan(unchecked::causal_average_softmax(x).output));
  EXPECT_THROW(attention_without_weights(x), std::invalid_argument);
  EXPECT_TRUE(has_nan(unchecked::attention_without_weights(x, Normalization::Stable).output));
  EXPECT_THROW(self_attention(x, square_weights(2, 2)), std::invalid_argument);
  EXPECT_TRUE(has_nan(unchecked::self_attention(x, square_weights(2, 2), {}).output));
  EXPECT_THROW(layer_norm(x), std::invalid_argument);
  EXPECT_TRUE(has_nan(unchecked::layer_norm(x, {})));
  EXPECT_THROW(gelu(x), std::invalid_argument);
  EXPECT_TRUE(has_nan(unchecked::gelu(x, {})));
  EXPECT_THROW(scaled_dot_product_attention(x, x, x, {}), std::invalid_argument);
  EXPECT_TRUE(has_nan(unchecked::scaled_dot_product_attention(x, x, x, {}).output));
  EXPECT_THROW(compare(x, x), std::invalid_argument);
  DropoutOptions dropout;
  dropout.dropout = 0.5f;
  EXPECT_THROW(attention_dropout(x, dropout), std::invalid_argument);
  EXPECT_NO_THROW(unchecked::attention_dropout(x, dropout));  // the NaN may be one it drops
  EXPECT_THROW(next_token_pairs(IntTensor{{1, 1}, {7}}), std::invalid_argument);
  const IntTensor tokens{{1, 3}, {7, 8, 9}};
  EXPECT_EQ(next_token_pairs(tokens).targets.data, unchecked::next_token_pairs(tokens).targets.data);
}

}  // namespace
}  // namespace ap
