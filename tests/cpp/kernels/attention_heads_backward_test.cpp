// Every attention backward variant equals the row-by-row reference backward, and the forward (reference and
// fused) saves lse = log Σ exp(scores); on causal and full attention, Tq ≠ Tk, d_head
// not a multiple of 4, several key tiles. The whole fast backward pipeline equals the teaching backward.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "attention/attention_backward.h"
#include "paths/fast_attention_backward.h"
#include "kernels/attention_heads.h"
#include "kernels/attention_heads_backward.h"
#include "test_data.h"

namespace ap::kernels {
namespace {

using testing::all_close;
using testing::random_values;

struct HeadsCase {
  int batch, tq, tk, heads, d_head;
  bool causal;
};

class AttentionBackwardKernel : public ::testing::TestWithParam<HeadsCase> {};

// Q, K, V and dO of one case, and the problem that points at them.
struct Data {
  explicit Data(const HeadsCase& c)
      : width(c.heads * c.d_head),
        query(random_values(static_cast<size_t>(c.batch) * c.tq * width, 1, 1.0f)),
        key(random_values(static_cast<size_t>(c.batch) * c.tk * width, 2, 1.0f)),
        value(random_values(static_cast<size_t>(c.batch) * c.tk * width, 3, 1.0f)),
        grad_context(random_values(query.size(), 4, 1.0f)),
        context(query.size()),
        row_max(static_cast<size_t>(c.batch) * c.heads * c.tq),
        log_sum(row_max.size()) {
    heads = {query.data(), width, key.data(), width, value.data(), width, context.data(), width,
             c.batch,      c.tq,  c.tk,       c.heads, c.d_head, 1.0f / std::sqrt(static_cast<float>(c.d_head)),
             c.causal,     row_max.data(), log_sum.data()};
  }
  // The backward problem writing into the given gradients.
  AttentionHeadsBackward backward(std::vector<float>& dq, std::vector<float>& dk, std::vector<float>& dv) const {
    return packed_backward(heads, grad_context.data(), dq.data(), dk.data(), dv.data());
  }
  int width;
  std::vector<float> query, key, value, grad_context, context, row_max, log_sum;
  AttentionHeads heads;
};

// The forward (reference and fused) saves each row's lse = c·row_max + log_sum, checked in double.
TEST_P(AttentionBackwardKernel, TheForwardSavesTheLogSumExp) {
  const HeadsCase c = GetParam();
  for (const auto forward : {attention_heads_reference, attention_heads_fused}) {
    Data data(c);
    forward(data.heads);
    for (int b = 0; b < c.batch; ++b)
      for (int h = 0; h < c.heads; ++h)
        for (int i = 0; i < c.tq; ++i) {
          double sum = 0.0;
          const int visible = c.causal ? std::min(i + 1, c.tk) : c.tk;
          for (int j = 0; j < visible; ++j) {
            double dot = 0.0;
            for (int p = 0; p < c.d_head; ++p)
              dot += static_cast<double>(data.query[(static_cast<size_t>(b) * c.tq + i) * data.width + h * c.d_head + p]) *
                     data.key[(static_cast<size_t>(b) * c.tk + j) * data.width + h * c.d_head + p];
            sum += std::exp(dot * data.heads.score_scale);
          }
          const size_t at = (static_cast<size_t>(b) * c.heads + h) * c.tq + i;
          EXPECT_NEAR(data.heads.score_scale * data.row_max[at] + data.log_sum[at], std::log(sum), 1e-5)
              << "row " << i << " head " << h;
        }
  }
}

TEST_P(AttentionBackwardKernel, EveryVariantEqualsTheReference) {
  const HeadsCase c = GetParam();
  Data data(c);
  attention_heads_reference(data.heads);
  std::vector<float> rq(data.query.size()), rk(data.key.size()), rv(data.value.size());
  attention_heads_backward_reference(data.backward(rq, rk, rv));
  for (const auto variant : {attention_heads_backward_rowwise, attention_heads_backward_fused}) {
    std::vector<float> dq(rq.size(), 7.0f), dk(rk.size(), 7.0f), dv(rv.size(), 7.0f);
    variant(data.backward(dq, dk, dv));  // the 7s must all be overwritten
    EXPECT_TRUE(all_close(dq, rq, 1e-5, 1e-5)) << "dQ";
    EXPECT_TRUE(all_close(dk, rk, 1e-5, 1e-5)) << "dK";
    EXPECT_TRUE(all_close(dv, rv, 1e-5, 1e-5)) << "dV";
  }
}

TEST_P(AttentionBackwardKernel, AnLseWithoutItsSplitGivesTheSameGradients) {
  const HeadsCase c = GetParam();
  Data data(c);
  attention_heads_fused(data.heads);
  std::vector<float> dq(data.query.size()), dk(data.key.size()), dv(data.value.size());
  std::vector<float> lq(dq.size()), lk(dk.size()), lv(dv.size());
  attention_heads_backward_fused(data.backward(dq, dk, dv));
  // lse alone, as a caller holding only the forward's lse passes it
  std::vector<float> lse(data.row_max.size());
  for (size_t i = 0; i < lse.size(); ++i) lse[i] = data.heads.score_scale * data.row_max[i] + data.log_sum[i];
  AttentionHeadsBackward only_lse = data.backward(lq, lk, lv);
  only_lse.row_max = lse.data();
  only_lse.log_sum = nullptr;
  attention_heads_backward_fused(only_lse);
  EXPECT_TRUE(all_close(lq, dq, 1e-5, 1e-5));
  EXPECT_TRUE(all_close(lk, dk, 1e-5, 1e-5));
  EXPECT_TRUE(all_close(lv, dv, 1e-5, 1e-5));
}

// A row that sees one key has P = 1 and a softmax gradient of exactly 0 (torch's too): its dQ row is exactly 0
// on every variant, from either forward's statistics, and with one key in all (Tq = Tk = 1) dK is 0 as well.
// Rows of several keys, some long enough for several tiles and query blocks, are in the same calls.
TEST(AttentionBackwardKernel, ARowThatSeesOneKeyHasExactlyZeroScoreGradients) {
  for (const HeadsCase c : {HeadsCase{3, 1, 1, 2, 4, true}, HeadsCase{2, 1, 1, 1, 3, false}, HeadsCase{2, 6, 6, 2, 4, true},
                            HeadsCase{1, 150, 150, 2, 8, true}, HeadsCase{1, 5, 1, 1, 7, false}}) {
    for (const auto forward : {attention_heads_reference, attention_heads_fused}) {
      Data data(c);
      forward(data.heads);
      for (const auto variant :
           {attention_heads_backward_reference, attention_heads_backward_rowwise, attention_heads_backward_fused}) {
        std::vector<float> dq(data.query.size(), 7.0f), dk(data.key.size(), 7.0f), dv(data.value.size(), 7.0f);
        variant(data.backward(dq, dk, dv));
        for (int b = 0; b < c.batch; ++b)
          for (int i = 0; i < c.tq; ++i) {
            if (c.causal ? i > 0 : c.tk > 1) continue;  // the rows that see one key
            for (int p = 0; p < data.width; ++p)
              EXPECT_EQ(dq[(static_cast<size_t>(b) * c.tq + i) * data.width + p], 0.0f) << "dQ row " << i << " column " << p;
          }
        if (c.tk == 1)
          for (const float v : dk) EXPECT_EQ(v, 0.0f) << "dK, Tk = 1";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttentionBackwardKernel,
    ::testing::Values(HeadsCase{1, 1, 1, 1, 1, true}, HeadsCase{2, 5, 5, 2, 3, true}, HeadsCase{1, 7, 4, 1, 4, true},
                      HeadsCase{1, 4, 9, 3, 5, true}, HeadsCase{2, 70, 70, 2, 8, true},
                      HeadsCase{1, 40, 75, 2, 6, false}, HeadsCase{1, 65, 33, 1, 16, true},
                      HeadsCase{1, 33, 100, 2, 7, false},
                      // the fused variant's blocks (64 keys × up to 128 queries): a key tile several query blocks
                      // add into, causal key tiles no query sees (their dK, dV zero), a non-causal tall head
                      HeadsCase{1, 150, 150, 1, 8, true}, HeadsCase{1, 20, 140, 1, 4, true},
                      HeadsCase{1, 200, 70, 1, 5, false}),
    [](const ::testing::TestParamInfo<HeadsCase>& info) {
      const HeadsCase& c = info.param;
      return "B" + std::to_string(c.batch) + "_Tq" + std::to_string(c.tq) + "_Tk" + std::to_string(c.tk) + "_H" +
             std::to_string(c.heads) + "_dhead" + std::to_string(c.d_head) + (c.causal ? "_causal" : "_full");
    });

// The whole fast pipeline (GEMM projections, lse, fused backward) against the Eigen teaching backward.
Tensor random_tensor(std::vector<int> shape, unsigned seed, float scale) {
  size_t n = 1;
  for (int d : shape) n *= static_cast<size_t>(d);
  return Tensor{shape, random_values(n, seed, scale)};
}

TEST(FastBackwardPipeline, EqualsTheTeachingBackwardForEveryForm) {
  for (const bool causal : {true, false}) {
    SCOPED_TRACE(causal ? "causal" : "full");
    const int batch = 2, t = 37, d_in = 12, d_out = 16, heads = 4;
    const Tensor x = random_tensor({batch, t, d_in}, 31, 1.0f);
    const Tensor grad = random_tensor({batch, t, d_out}, 32, 1.0f);
    ProjectionWeights w;
    w.query = random_tensor({d_in, d_out}, 33, 0.3f);
    w.key = random_tensor({d_in, d_out}, 34, 0.3f);
    w.value = random_tensor({d_in, d_out}, 35, 0.3f);
    w.query_bias = random_tensor({d_out}, 36, 0.1f);
    w.value_bias = random_tensor({d_out}, 37, 0.1f);
    w.out_weight = random_tensor({d_out, d_out}, 38, 0.25f);
    w.out_bias = random_tensor({d_out}, 39, 0.1f);
    AttentionOptions teaching;
    teaching.causal = causal;
    teaching.heads = heads;
    teaching.temperature = 0.75f;
    AttentionOptions fast = teaching;
    fast.intermediates = false;

    const ProjectionGradients slow = multihead_attention_split_backward(x, w, grad, teaching);
    const ProjectionGradients quick = multihead_attention_split_backward_fast(x, w, grad, fast);
    for (const auto& [name, a, b] : {std::tuple{"x", &quick.x, &slow.x}, std::tuple{"query", &quick.weights.query, &slow.weights.query},
                                     std::tuple{"key", &quick.weights.key, &slow.weights.key},
                                     std::tuple{"value", &quick.weights.value, &slow.weights.value},
                                     std::tuple{"queryBias", &quick.weights.query_bias, &slow.weights.query_bias},
                                     std::tuple{"valueBias", &quick.weights.value_bias, &slow.weights.value_bias},
                                     std::tuple{"outWeight", &quick.weights.out_weight, &slow.weights.out_weight},
                                     std::tuple{"outBias", &quick.weights.out_bias, &slow.weights.out_bias}}) {
      EXPECT_TRUE(all_close(a->data, b->data, 1e-5, 1e-5)) << name;
      EXPECT_EQ(a->shape, b->shape) << name;
    }
    EXPECT_FALSE(quick.weights.key_bias.present());
    // the fast entry point did run the fused backward: bit for bit its result
    EXPECT_EQ(quick.x.data, fused_kernel_backward_split(x, w, grad, fast).x.data);

    const Tensor context = random_tensor({batch, 23, 10}, 40, 1.0f);
    ProjectionWeights cw = w;
    cw.key = random_tensor({10, d_out}, 41, 0.3f);
    cw.value = random_tensor({10, d_out}, 42, 0.3f);
    const CrossAttentionGradients cross_slow = cross_attention_backward(x, context, cw, grad, teaching);
    const CrossAttentionGradients cross_fast = cross_attention_backward_fast(x, context, cw, grad, fast);
    EXPECT_TRUE(all_close(cross_fast.x_query.data, cross_slow.x_query.data, 1e-5, 1e-5));
    EXPECT_TRUE(all_close(cross_fast.x_context.data, cross_slow.x_context.data, 1e-5, 1e-5));
    EXPECT_TRUE(all_close(cross_fast.weights.key.data, cross_slow.weights.key.data, 1e-5, 1e-5));
  }
}

}  // namespace
}  // namespace ap::kernels
