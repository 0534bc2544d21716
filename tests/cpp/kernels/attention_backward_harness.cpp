// Validates, then times, the attention backward kernels on the training benchmark's layer shape
// (causal, d_model = 256, 8 heads, B = 1) — variant 1, the reference; 2, row by row; 3, the fused kernel on GEMM tiles — and the
// whole fast backward pipeline (projections and output projection included). A variant that does not match
// the reference within 1e-4 is not timed.
//
//   attention_backward_harness [T ...]      (default T = 128 512)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "attention_heads.h"
#include "attention_heads_backward.h"
#include "multihead_backward_fast.h"

namespace {

double min_ms(const std::function<void()>& run) {
  std::vector<double> times;
  for (int i = 0; i < 9; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times.front();
}

float max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  float worst = 0.0f;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ap::kernels;
  std::vector<int> lengths;
  for (int i = 1; i < argc; ++i) lengths.push_back(std::atoi(argv[i]));
  if (lengths.empty()) lengths = {128, 512};
  const int d = 256, heads = 8;
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto random_vector = [&](size_t n, float scale) {
    std::vector<float> v(n);
    for (float& x : v) x = scale * normal(rng);
    return v;
  };
  const float weight_scale = 1.0f / std::sqrt(static_cast<float>(d));
  const std::vector<float> wq = random_vector(d * d, weight_scale), wk = random_vector(d * d, weight_scale),
                           wv = random_vector(d * d, weight_scale), wo = random_vector(d * d, weight_scale);
  const std::vector<float> bias = random_vector(d, 0.1f);

  for (int t : lengths) {
    const size_t size = static_cast<size_t>(t) * d;
    std::vector<float> q = random_vector(size, 1.0f), k = random_vector(size, 1.0f), v = random_vector(size, 1.0f);
    std::vector<float> grad = random_vector(size, 1.0f), context(size);
    std::vector<float> row_max(static_cast<size_t>(heads) * t), log_sum(row_max.size());
    AttentionHeads s{q.data(), d, k.data(), d, v.data(), d, context.data(), d, 1, t, t, heads, d / heads,
                     1.0f / std::sqrt(static_cast<float>(d / heads)), true, row_max.data(), log_sum.data()};
    std::printf("T=%4d fused attention forward, asked for the lse: %.2f ms (min of 9)\n", t,
                min_ms([&] { attention_heads_fused(s); }));
    struct Variant {
      int number;
      const char* name;
      void (*run)(const AttentionHeadsBackward&);
    };
    const Variant variants[] = {{1, "reference", attention_heads_backward_reference},
                                {2, "rowwise", attention_heads_backward_rowwise},
                                {3, "fused (GEMM tiles)", attention_heads_backward_fused}};
    std::vector<float> ref_q(size), ref_k(size), ref_v(size);
    for (const Variant& variant : variants) {
      std::vector<float> dq(size), dk(size), dv(size);
      AttentionHeadsBackward g{s, grad.data(), d, row_max.data(), log_sum.data(), dq.data(), d, dk.data(), d, dv.data(), d};
      variant.run(g);
      if (variant.number == 1) {
        ref_q = dq, ref_k = dk, ref_v = dv;
      } else {
        const float worst = std::max({max_difference(dq, ref_q), max_difference(dk, ref_k), max_difference(dv, ref_v)});
        std::printf("T=%4d variant %d (%s): max |variant − reference| = %.3g\n", t, variant.number, variant.name, worst);
        if (!(worst <= 1e-4f)) return 1;
      }
      std::printf("T=%4d attention backward, causal, %d heads of %d, variant %d (%s): %.2f ms (min of 9)\n", t, heads,
                  d / heads, variant.number, variant.name, min_ms([&] { variant.run(g); }));
    }

    std::vector<float> x = random_vector(size, 1.0f), gx(size), gwq(d * d), gwk(d * d), gwv(d * d), gwo(d * d);
    std::vector<float> gbq(d), gbk(d), gbv(d), gbo(d);
    MultiheadBackwardProblem g;
    g.forward = {x.data(), x.data(), 1, t, t, d, d, d, heads, {wq.data(), d, bias.data()}, {wk.data(), d, bias.data()},
                 {wv.data(), d, bias.data()}, {wo.data(), d, bias.data()}, s.score_scale, true};
    g.grad_output = grad.data();
    g.shared_input = true;
    g.grad_x_query = gx.data();
    g.query = {gwq.data(), d, gbq.data()};
    g.key = {gwk.data(), d, gbk.data()};
    g.value = {gwv.data(), d, gbv.data()};
    g.out = {gwo.data(), d, gbo.data()};
    std::printf("T=%4d fast backward pipeline, causal MHA d=%d h=%d with projections: %.2f ms (min of 9)\n", t, d,
                heads, min_ms([&] { multihead_attention_backward_fast(g); }));
  }
  return 0;
}
