// The fused attention kernel equals the reference on awkward shapes (1, primes, not multiples of the
// 32-query and 64-key tiles, d_head not a multiple of 8, Tq ≠ Tk), keeps causality, stays finite with large
// scores, and makes a row whose scores all overflow NaN. Also: the vectorised exp the online softmax runs on.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>

#include "kernels/attention_heads.h"
#include "kernels/simd.h"
#include "test_data.h"

namespace ap::kernels {
namespace {

using testing::all_close;
using testing::random_values;

struct HeadsCase {
  int batch, tq, tk, heads, d_head;
};

struct Buffers {
  std::vector<float> query, key, value;
  AttentionHeads problem(std::vector<float>& context, const HeadsCase& c, bool causal, float scale = 0.0f) const {
    const int d_out = c.heads * c.d_head;
    AttentionHeads p;
    p.query = query.data();
    p.key = key.data();
    p.value = value.data();
    p.context = context.data();
    p.query_stride = p.key_stride = p.value_stride = p.context_stride = d_out;
    p.batch = c.batch;
    p.tq = c.tq;
    p.tk = c.tk;
    p.heads = c.heads;
    p.d_head = c.d_head;
    p.score_scale = scale != 0.0f ? scale : 1.0f / std::sqrt(static_cast<float>(c.d_head));
    p.causal = causal;
    return p;
  }
};

Buffers random_buffers(const HeadsCase& c, float scale = 1.0f) {
  const size_t d_out = static_cast<size_t>(c.heads) * c.d_head;
  return {random_values(c.batch * c.tq * d_out, 11, scale), random_values(c.batch * c.tk * d_out, 12, scale),
          random_values(c.batch * c.tk * d_out, 13)};
}

const HeadsCase kShapes[] = {{1, 1, 1, 1, 1},    {2, 5, 5, 3, 4},      {1, 37, 37, 2, 13}, {1, 67, 67, 1, 64},
                             {2, 100, 100, 2, 8}, {1, 7, 50, 2, 9},     {1, 50, 7, 3, 5},   {1, 130, 131, 1, 17},
                             {1, 33, 65, 4, 16},  {3, 29, 29, 1, 3}};

class FusedAttention : public ::testing::TestWithParam<std::tuple<HeadsCase, bool>> {};

TEST_P(FusedAttention, EqualsTheReference) {
  const auto [c, causal] = GetParam();
  const Buffers buffers = random_buffers(c);
  const size_t context_size = static_cast<size_t>(c.batch) * c.tq * c.heads * c.d_head;
  std::vector<float> expected(context_size), fused(context_size, 99.0f);
  attention_heads_reference(buffers.problem(expected, c, causal));
  attention_heads_fused(buffers.problem(fused, c, causal));
  EXPECT_TRUE(all_close(fused, expected, 1e-5, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(AwkwardShapes, FusedAttention, ::testing::Combine(::testing::ValuesIn(kShapes), ::testing::Bool()),
                         [](const auto& info) {
                           const HeadsCase& c = std::get<0>(info.param);
                           return "B" + std::to_string(c.batch) + "_Tq" + std::to_string(c.tq) + "_Tk" + std::to_string(c.tk) +
                                  "_H" + std::to_string(c.heads) + "_d" + std::to_string(c.d_head) +
                                  (std::get<1>(info.param) ? "_causal" : "_full");
                         });

// keyPaddingMask: padded keys are left out, across several key tiles of 192; a query whose first tile is all
// padding (batch 0: keys 0..199) stays finite; a batch whose keys are all padded (batch 2) gets zero rows, and a
// causal query that sees only padded keys does too.
TEST(FusedAttention, SkipsPaddedKeysAsTheReference) {
  const HeadsCase c{3, 70, 400, 2, 13};
  const Buffers buffers = random_buffers(c);
  std::vector<float> padding(static_cast<size_t>(c.batch) * c.tk, 0.0f);
  for (int j = 0; j < 200; ++j) padding[j] = 1.0f;
  const std::vector<float> coin = random_values(static_cast<size_t>(c.tk), 21);
  for (int j = 0; j < c.tk; ++j) padding[c.tk + j] = coin[j] > 0.3f ? 1.0f : 0.0f;
  for (int j = 0; j < c.tk; ++j) padding[2 * c.tk + j] = 1.0f;
  const size_t size = static_cast<size_t>(c.batch) * c.tq * c.heads * c.d_head;
  for (const bool causal : {false, true}) {
    std::vector<float> expected(size), fused(size, 99.0f);
    AttentionHeads reference = buffers.problem(expected, c, causal);
    AttentionHeads kernel = buffers.problem(fused, c, causal);
    reference.key_padding = kernel.key_padding = padding.data();
    attention_heads_reference(reference);
    attention_heads_fused(kernel);
    EXPECT_TRUE(all_close(fused, expected, 1e-5, 1e-5)) << (causal ? "causal" : "full");
    const size_t per_batch = static_cast<size_t>(c.tq) * c.heads * c.d_head;
    for (size_t i = 2 * per_batch; i < size; ++i) ASSERT_EQ(fused[i], 0.0f) << "all keys padded: element " << i;
    // causal, batch 0: queries 0..69 see only keys ≤ i < 200, all padded: zero rows
    for (size_t i = 0; causal && i < per_batch; ++i) ASSERT_EQ(fused[i], 0.0f) << "element " << i;
  }
}

// Queries and keys of opposite sign near 1e19 make every q·k overflow float32 to −∞: such a row had keys, so
// it is NaN (the API's result check then names the scores), never the zeros of a row whose keys are all padded.
TEST(FusedAttention, ARowWhoseEveryScoreOverflowsIsNaNNotAMaskedRow) {
  const HeadsCase c{2, 9, 11, 2, 8};
  Buffers buffers = random_buffers(c);
  for (float& q : buffers.query) q = 2e19f;
  for (float& k : buffers.key) k = -2e19f;
  std::vector<float> padding(static_cast<size_t>(c.batch) * c.tk, 0.0f);
  std::fill(padding.begin() + c.tk, padding.end(), 1.0f);  // batch 1: every key padded
  const size_t size = static_cast<size_t>(c.batch) * c.tq * c.heads * c.d_head, per_batch = size / c.batch;
  for (const bool causal : {false, true}) {
    std::vector<float> expected(size, 99.0f), fused(size, 99.0f);
    AttentionHeads reference = buffers.problem(expected, c, causal);
    AttentionHeads kernel = buffers.problem(fused, c, causal);
    reference.key_padding = kernel.key_padding = padding.data();
    attention_heads_reference(reference);
    attention_heads_fused(kernel);
    for (size_t i = 0; i < size; ++i) {
      const bool overflowed = i < per_batch;
      ASSERT_EQ(std::isnan(fused[i]), overflowed) << (causal ? "causal" : "full") << ", element " << i << ": " << fused[i];
      ASSERT_EQ(std::isnan(expected[i]), overflowed) << "the reference, element " << i;
      if (!overflowed) ASSERT_EQ(fused[i], 0.0f) << "all keys padded: element " << i;
    }
  }
}

TEST(FusedAttention, CausalOutputIgnoresLaterKeysAndValues) {
  const HeadsCase c{1, 90, 90, 2, 12};
  Buffers buffers = random_buffers(c);
  const size_t size = static_cast<size_t>(c.tq) * c.heads * c.d_head;
  std::vector<float> before(size), after(size);
  attention_heads_fused(buffers.problem(before, c, true));
  // Change every key and value from position 70 on: rows 0..69 must not move at all.
  const size_t from = static_cast<size_t>(70) * c.heads * c.d_head;
  for (size_t i = from; i < buffers.key.size(); ++i) {
    buffers.key[i] += 5.0f;
    buffers.value[i] -= 3.0f;
  }
  attention_heads_fused(buffers.problem(after, c, true));
  for (size_t i = 0; i < from; ++i) ASSERT_EQ(before[i], after[i]) << "element " << i;
  bool later_rows_changed = false;
  for (size_t i = from; i < size; ++i) later_rows_changed |= before[i] != after[i];
  EXPECT_TRUE(later_rows_changed);
}

TEST(FusedAttention, LargeScoresStayFiniteAndMatch) {
  // Scores of order 1e3: e^s overflows without the running max; the online softmax must not.
  const HeadsCase c{1, 70, 70, 1, 8};
  const Buffers buffers = random_buffers(c, 12.0f);
  const size_t size = static_cast<size_t>(c.tq) * c.d_head;
  std::vector<float> expected(size), fused(size);
  attention_heads_reference(buffers.problem(expected, c, true, 1.0f));
  attention_heads_fused(buffers.problem(fused, c, true, 1.0f));
  for (float x : fused) ASSERT_TRUE(std::isfinite(x));
  EXPECT_TRUE(all_close(fused, expected, 1e-5, 1e-5));
}

TEST(FusedAttention, LogitsNearTenThousandWithExactScoresMatchTheReference) {
  // Dyadic inputs make every q·k exact in float32: q = 50 ± small integers, k = ±50 + multiples of 1/256,
  // d_head = 16 (scale ¼, exact), so the logits are ±1e4 + a few units and only the softmax can differ.
  // Heads 0 and 2 near +1e4, 1 and 3 near −1e4; 400 keys: three key tiles, the max moving between them.
  // A kernel that scales before it subtracts the running max is off by ~1e-3 here.
  const HeadsCase c{2, 400, 400, 4, 16};
  Buffers buffers = random_buffers(c);
  const int d_out = c.heads * c.d_head;
  for (size_t i = 0; i < buffers.query.size(); ++i) {
    const int p = static_cast<int>(i % d_out), sign = (p / c.d_head) % 2 == 0 ? 1 : -1;
    buffers.query[i] = 50.0f + std::round(3.0f * buffers.query[i]);
    buffers.key[i] = sign * 50.0f + std::round(16.0f * buffers.key[i]) / 256.0f;
  }
  const size_t size = static_cast<size_t>(c.batch) * c.tq * d_out;
  for (bool causal : {true, false}) {
    std::vector<float> expected(size), fused(size);
    attention_heads_reference(buffers.problem(expected, c, causal));
    attention_heads_fused(buffers.problem(fused, c, causal));
    EXPECT_TRUE(all_close(fused, expected, 1e-5, 1e-5)) << (causal ? "causal" : "full");
  }
}

TEST(FusedAttention, RisingScoresRescaleTheRunningSums) {
  // Scores that rise by 0.8 per key: every key tile beats the running max by far more than the
  // rescaling margin, so l and o are rescaled on every tile; and falling scores never rescale.
  const HeadsCase c{1, 200, 200, 1, 8};
  for (float slope : {0.1f, -0.1f}) {
    Buffers buffers = random_buffers(c);
    for (int j = 0; j < c.tk; ++j) {
      for (int p = 0; p < c.d_head; ++p) {
        buffers.query[j * c.d_head + p] = 1.0f;
        buffers.key[j * c.d_head + p] = slope * j + 0.01f * buffers.key[j * c.d_head + p];
      }
    }
    const size_t size = static_cast<size_t>(c.tq) * c.d_head;
    std::vector<float> expected(size), fused(size);
    attention_heads_reference(buffers.problem(expected, c, true, 1.0f));
    attention_heads_fused(buffers.problem(fused, c, true, 1.0f));
    EXPECT_TRUE(all_close(fused, expected, 1e-5, 1e-5)) << "slope " << slope;
  }
}

TEST(FusedAttention, FirstQueryCopiesTheFirstValue) {
  // Causal row 0 sees only key 0: its weight is exactly 1, so the context is v_0 itself.
  const HeadsCase c{1, 40, 40, 2, 6};
  const Buffers buffers = random_buffers(c);
  std::vector<float> context(static_cast<size_t>(c.tq) * 12);
  attention_heads_fused(buffers.problem(context, c, true));
  for (int p = 0; p < 12; ++p) EXPECT_FLOAT_EQ(context[p], buffers.value[p]);
}

TEST(VectorExp, MatchesStdExpToAFewUlp) {
  for (float x = -87.0f; x <= 88.0f; x += 0.01f) {
    const float expected = std::exp(x);
    EXPECT_NEAR(simd::exp(x), expected, 4e-7f * expected) << "x=" << x;
  }
}

TEST(VectorExp, MaskedScoresGiveExactlyZero) {
  EXPECT_EQ(simd::exp(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(simd::exp(-1e30f), 0.0f);
  EXPECT_EQ(simd::exp(0.0f), 1.0f);
}

}  // namespace
}  // namespace ap::kernels
