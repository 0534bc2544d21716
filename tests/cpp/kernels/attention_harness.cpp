// Times the fast multi-head pipeline on the benchmark's shape (B=1, d_model=768, 12 heads, causal,
// with projections) after checking it against the reference pipeline at the same T.
//
//   attention_harness [T ...]      (default T = 128 512 1024 2048)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "multihead_fast.h"

int main(int argc, char** argv) {
  std::vector<int> lengths;
  for (int i = 1; i < argc; ++i) lengths.push_back(std::atoi(argv[i]));
  if (lengths.empty()) lengths = {128, 512, 1024, 2048};
  const int d_model = 768, heads = 12;
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto random_vector = [&](size_t n, float scale) {
    std::vector<float> v(n);
    for (float& x : v) x = scale * normal(rng);
    return v;
  };
  const float weight_scale = 1.0f / std::sqrt(static_cast<float>(d_model));
  std::vector<float> wq = random_vector(d_model * d_model, weight_scale), wk = random_vector(d_model * d_model, weight_scale),
                     wv = random_vector(d_model * d_model, weight_scale), wo = random_vector(d_model * d_model, weight_scale);
  std::vector<float> bias = random_vector(d_model, 0.1f);

  for (int t : lengths) {
    std::vector<float> x = random_vector(static_cast<size_t>(t) * d_model, 1.0f);
    ap::kernels::MultiheadProblem p;
    p.x_query = p.x_context = x.data();
    p.batch = 1;
    p.tq = p.tk = t;
    p.d_query_in = p.d_context_in = p.d_out = d_model;
    p.heads = heads;
    p.query = {wq.data(), d_model, bias.data()};
    p.key = {wk.data(), d_model, bias.data()};
    p.value = {wv.data(), d_model, bias.data()};
    p.out = {wo.data(), d_model, bias.data()};
    p.score_scale = 1.0f / std::sqrt(static_cast<float>(d_model / heads));
    p.causal = true;
    std::vector<float> fast(x.size()), expected(x.size());
    ap::kernels::multihead_attention_fast(p, fast.data());
    if (t <= 512) {
      ap::kernels::multihead_attention_reference(p, expected.data());
      float worst = 0.0f;
      for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(fast[i] - expected[i]));
      std::printf("T=%4d max |fast − reference| = %.3g\n", t, worst);
      if (!(worst <= 1e-4f)) return 1;
    }
    std::vector<double> times;
    for (int run = 0; run < 5; ++run) {
      const auto start = std::chrono::steady_clock::now();
      ap::kernels::multihead_attention_fast(p, fast.data());
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    std::printf("T=%4d causal MHA d=768 h=12 with projections: %.1f ms (median of %zu)\n", t, times[times.size() / 2] * 1e3, times.size());
  }
  return 0;
}
