// libFuzzer target over the core (clang-14, -fsanitize=fuzzer,address,undefined): the checks of every API
// function, every teaching step, every GEMM variant, the fused attention kernel and the fast multi-head
// pipeline, on shapes, options and values drawn from the fuzzer's bytes. The bindings include Emscripten
// headers and cannot build natively, so this drives the C++ they call.
//
// What must hold, besides no crash, no undefined behaviour and no leak (the sanitizers):
//   1. checks and compute agree: a step whose check_* returns a message throws std::invalid_argument with that
//      very message; a step whose check passes does not throw.
//   2. every fast kernel equals its reference within a bound derived from the inputs (float32 rounding of
//      sums in another order, carried through the softmax), and never writes outside its output (the
//      padding of strided outputs stays as it was);
//   3. on valid calls with intermediates=false (the fused kernel where the options allow it), the output
//      equals the teaching path's within the same kind of bound.
//
//   scripts/fuzz.sh SECONDS      builds build/fuzz and runs this for that many seconds
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "paths/fast_attention.h"
#include "kernels/attention_heads.h"
#include "kernels/gemm.h"
#include "kernels/multihead_fast.h"
#include "kernels/replaceable_tiles.h"

namespace {

using namespace ap;

constexpr double kEpsilon = 1.0 / (1 << 23);  // float32's relative rounding, with a factor 2 to spare

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_core: %s\n", what.c_str());
  std::abort();
}

void require(bool condition, const std::string& what) {
  if (!condition) fail(what);
}

// ---- values and tensors ----------------------------------------------------------------------------------

// A finite value: mostly multiples of 1/16 in [-4, 4], sometimes of order 1e3 (large logits), sometimes tiny.
float finite_value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 15)) {
    case 0: return static_cast<float>(in.ConsumeIntegralInRange<int>(-2000, 2000));
    case 1: return in.ConsumeFloatingPointInRange<float>(-1e-30f, 1e-30f);
    default: return static_cast<float>(in.ConsumeIntegralInRange<int>(-64, 64)) / 16.0f;
  }
}

// Any float, the non-finite ones included, for the checks to catch.
float any_value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 40)) {
    case 0: return std::numeric_limits<float>::quiet_NaN();
    case 1: return std::numeric_limits<float>::infinity();
    case 2: return -std::numeric_limits<float>::infinity();
    case 3: return std::numeric_limits<float>::max();
    case 4: return std::numeric_limits<float>::denorm_min();
    default: return finite_value(in);
  }
}

std::vector<float> values(FuzzedDataProvider& in, std::size_t count, bool specials) {
  std::vector<float> out(count);
  for (float& v : out) v = specials ? any_value(in) : finite_value(in);
  return out;
}

std::size_t product(const std::vector<int>& shape) {
  std::size_t n = 1;
  for (int s : shape) n *= static_cast<std::size_t>(std::max(s, 0));
  return n;
}

// A tensor of `shape`; with `damage` (rare), a wrong rank, a size of 0 or a huge one, or data that does
// not match the shape: what the checks must reject before any math reads it.
Tensor tensor(FuzzedDataProvider& in, std::vector<int> shape, bool damage) {
  bool short_data = false;
  if (damage && in.ConsumeIntegralInRange<int>(0, 7) == 0) {
    switch (in.ConsumeIntegralInRange<int>(0, 5)) {
      case 0: shape.push_back(1); break;
      case 1: if (!shape.empty()) shape.pop_back(); break;
      case 2: if (!shape.empty()) shape[in.ConsumeIntegralInRange<std::size_t>(0, shape.size() - 1)] = 0; break;
      case 3: if (!shape.empty()) shape[in.ConsumeIntegralInRange<std::size_t>(0, shape.size() - 1)] = -1; break;
      case 4: if (!shape.empty()) shape[in.ConsumeIntegralInRange<std::size_t>(0, shape.size() - 1)] = 1 << 30; short_data = true; break;
      default: short_data = true; break;
    }
  }
  Tensor t;
  t.shape = shape;
  std::size_t count = short_data ? in.ConsumeIntegralInRange<std::size_t>(0, 64) : product(shape);
  if (count > (1u << 16)) count = 1;  // a huge shape gets a few values, never a huge buffer
  t.data = values(in, count, damage);
  return t;
}

Tensor optional_tensor(FuzzedDataProvider& in, std::vector<int> shape, bool damage) {
  return in.ConsumeBool() ? tensor(in, shape, damage) : Tensor{};
}

AttentionOptions attention_options(FuzzedDataProvider& in, bool damage) {
  AttentionOptions o;
  o.scale = in.ConsumeBool();
  o.temperature = in.ConsumeBool() ? 1.0f : static_cast<float>(in.ConsumeIntegralInRange<int>(1, 64)) / 16.0f;
  o.causal = in.ConsumeBool();
  o.mask = static_cast<MaskMode>(in.ConsumeIntegralInRange<int>(0, 2));
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    o.dropout = static_cast<float>(in.ConsumeIntegralInRange<int>(0, 15)) / 16.0f;
    o.seed = in.ConsumeIntegralInRange<std::uint32_t>(0, UINT32_MAX);
  }
  o.intermediates = in.ConsumeBool();
  if (damage && in.ConsumeIntegralInRange<int>(0, 5) == 0) {
    switch (in.ConsumeIntegralInRange<int>(0, 6)) {
      case 0: o.temperature = any_value(in); break;
      case 1: o.temperature = 0.0f; break;
      case 2: o.dropout = in.ConsumeBool() ? 1.0f : any_value(in); break;
      case 3: o.seed = in.ConsumeBool() ? 4294967296.0 : -1.0; break;
      case 4: o.seed = 1.5; break;
      case 5: o.heads = in.ConsumeIntegralInRange<int>(-2, 0); break;
      default: o.mask = static_cast<MaskMode>(3); break;
    }
  }
  return o;
}

// ---- 1. checks and compute agree ------------------------------------------------------------------------

// Runs compute(); if `message` is empty it must not throw, else it must throw std::invalid_argument(message).
// Returns whether it ran to the end.
template <typename Compute>
bool agrees_with_check(const std::string& message, const char* step, Compute compute) {
  try {
    compute();
  } catch (const std::invalid_argument& error) {
    require(!message.empty(), std::string(step) + ": the check passed but the step threw: " + error.what());
    require(message == error.what(),
            std::string(step) + ": the step threw \"" + error.what() + "\" but the check said \"" + message + "\"");
    return false;
  }
  require(message.empty(), std::string(step) + ": the check said \"" + message + "\" but the step ran");
  return true;
}

void fuzz_steps(FuzzedDataProvider& in) {
  const bool damage = in.ConsumeBool();
  const int b = in.ConsumeIntegralInRange<int>(1, 3), t = in.ConsumeIntegralInRange<int>(1, 12),
            c = in.ConsumeIntegralInRange<int>(1, 6);
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: {
      IntTensor tokens;
      tokens.shape = {b, t};
      if (damage && in.ConsumeBool()) tokens.shape = {b, t, in.ConsumeIntegralInRange<int>(-1, 2)};
      tokens.data.resize(damage && in.ConsumeBool() ? in.ConsumeIntegralInRange<std::size_t>(0, 8) : product(tokens.shape));
      for (auto& id : tokens.data) id = in.ConsumeIntegralInRange<std::int32_t>(damage ? -3 : 0, 60000);
      agrees_with_check(check_next_token_pairs(tokens), "nextTokenPairs", [&] { next_token_pairs(tokens); });
      break;
    }
    case 1: {
      const Tensor x = tensor(in, {b, t, c}, damage);
      agrees_with_check(check_causal_average_loop(x), "causalAverageLoop", [&] { causal_average_loop(x); });
      agrees_with_check(check_causal_average_matmul(x), "causalAverageMatmul", [&] { causal_average_matmul(x); });
      agrees_with_check(check_causal_average_softmax(x), "causalAverageSoftmax", [&] { causal_average_softmax(x); });
      break;
    }
    case 2: {
      std::vector<int> shape(in.ConsumeIntegralInRange<int>(1, 4));
      for (int& s : shape) s = in.ConsumeIntegralInRange<int>(1, 5);
      const Tensor x = tensor(in, shape, damage);
      SoftmaxOptions options;
      options.normalization = static_cast<Normalization>(in.ConsumeIntegralInRange<int>(0, 2));
      options.scale = damage && in.ConsumeBool() ? any_value(in) : finite_value(in);
      const std::string message = check_softmax(x, options);
      Tensor out;
      if (agrees_with_check(message, "softmax", [&] { out = softmax(x, options); }) &&
          options.normalization == Normalization::Stable) {
        // A stable softmax of finite (or −∞) inputs with a row not all −∞ is a distribution.
        const int n = x.shape.back();
        for (std::size_t row = 0; row * n < out.data.size(); ++row) {
          double sum = 0;
          bool any_finite = false;
          for (int j = 0; j < n; ++j) {
            sum += out.data[row * n + j];
            any_finite |= std::isfinite(x.data[row * n + j]);
          }
          if (any_finite && std::isfinite(options.scale) && options.scale != 0) {
            require(std::fabs(sum - 1.0) < 1e-4, "softmax: a stable row does not sum to 1");
          }
        }
      }
      break;
    }
    case 3: {
      const Tensor x = tensor(in, {b, t, c}, damage);
      const auto normalization = static_cast<Normalization>(in.ConsumeIntegralInRange<int>(0, 2));
      agrees_with_check(check_attention_without_weights(x, normalization), "attentionWithoutWeights",
                        [&] { attention_without_weights(x, normalization); });
      break;
    }
    case 4: {
      std::vector<int> shape(in.ConsumeIntegralInRange<int>(1, 4));
      for (int& s : shape) s = in.ConsumeIntegralInRange<int>(1, 5);
      const Tensor weights = tensor(in, shape, damage);
      DropoutOptions options;
      const AttentionOptions drawn = attention_options(in, damage);
      options.dropout = drawn.dropout;
      options.seed = drawn.seed;
      agrees_with_check(check_attention_dropout(weights, options), "attentionDropout",
                        [&] { attention_dropout(weights, options); });
      break;
    }
    case 5: {
      std::vector<int> shape(in.ConsumeIntegralInRange<int>(1, 3));
      for (int& s : shape) s = in.ConsumeIntegralInRange<int>(1, 5);
      const Tensor actual = tensor(in, shape, damage), expected = tensor(in, shape, damage);
      CompareOptions options;
      options.atol = damage && in.ConsumeBool() ? any_value(in) : 1e-5;
      options.rtol = damage && in.ConsumeBool() ? any_value(in) : 1e-5;
      agrees_with_check(check_compare(actual, expected, options), "compare", [&] { compare(actual, expected, options); });
      break;
    }
    default: {
      // selfAttention (step 6-9), either layout.
      const int d_out = in.ConsumeIntegralInRange<int>(1, 6);
      AttentionOptions options = attention_options(in, damage);
      options.layout = in.ConsumeBool() ? WeightLayout::Matrix : WeightLayout::Linear;
      const std::vector<int> w_shape = options.layout == WeightLayout::Matrix ? std::vector<int>{c, d_out} : std::vector<int>{d_out, c};
      const Tensor x = tensor(in, {b, t, c}, damage);
      ProjectionWeights w;
      w.query = tensor(in, w_shape, damage);
      w.key = tensor(in, w_shape, damage);
      w.value = tensor(in, w_shape, damage);
      w.query_bias = optional_tensor(in, {d_out}, damage);
      w.key_bias = optional_tensor(in, {d_out}, damage);
      w.value_bias = optional_tensor(in, {d_out}, damage);
      agrees_with_check(check_self_attention(x, w, options), "selfAttention", [&] { self_attention(x, w, options); });
      break;
    }
  }
}

// ---- 3. the multi-head functions: checks, teaching path, fused path ----------------------------------------

// (rows, cols) = |a| (rows, inner) · |w| (inner, cols) + |bias|: bounds of every product term.
std::vector<double> abs_product(const Tensor& a, int rows, int inner, const Tensor& w, int w_stride, int column0, int cols,
                                const Tensor& bias, int bias0) {
  std::vector<double> out(static_cast<std::size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      double sum = bias.present() ? std::fabs(bias.data[bias0 + j]) : 0.0;
      for (int p = 0; p < inner; ++p) sum += std::fabs(a.data[i * inner + p]) * std::fabs(w.data[p * w_stride + column0 + j]);
      out[static_cast<std::size_t>(i) * cols + j] = sum;
    }
  }
  return out;
}

// The bound |fast − teaching| ≤ tolerance for one output element of a multi-head call with split weights w:
// the projections are sums of d_in terms in another order (relative error ≤ d_in·ε of the absolute sums),
// a score moves by ≤ scale·Σ|Δq||k| + |q||Δk| + d_head·ε·Σ|q||k|, a weight by ≤ 2× its score's move
// (relative), the context by that times max|v| plus its own sum's rounding, the output by the context's
// error times the out projection's column sums plus its own rounding. Four times that, plus 1e-5.
double multihead_tolerance(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& w, int heads,
                           float score_scale) {
  const int batch = x_query.shape[0], tq = x_query.shape[1], tk = x_context.shape[1];
  const int d_q = x_query.shape[2], d_kv = x_context.shape[2], d_out = w.query.shape[1], d_head = d_out / heads;
  double worst_logit = 0, worst_value = 0;
  for (int bi = 0; bi < batch; ++bi) {
    Tensor xq, xc;
    xq.data.assign(x_query.data.begin() + static_cast<std::size_t>(bi) * tq * d_q, x_query.data.begin() + static_cast<std::size_t>(bi + 1) * tq * d_q);
    xc.data.assign(x_context.data.begin() + static_cast<std::size_t>(bi) * tk * d_kv, x_context.data.begin() + static_cast<std::size_t>(bi + 1) * tk * d_kv);
    const auto qa = abs_product(xq, tq, d_q, w.query, d_out, 0, d_out, w.query_bias, 0);
    const auto ka = abs_product(xc, tk, d_kv, w.key, d_out, 0, d_out, w.key_bias, 0);
    const auto va = abs_product(xc, tk, d_kv, w.value, d_out, 0, d_out, w.value_bias, 0);
    for (double v : va) worst_value = std::max(worst_value, v);
    for (int h = 0; h < heads; ++h) {
      for (int i = 0; i < tq; ++i) {
        for (int j = 0; j < tk; ++j) {
          double dot = 0;
          for (int p = h * d_head; p < (h + 1) * d_head; ++p) dot += qa[static_cast<std::size_t>(i) * d_out + p] * ka[static_cast<std::size_t>(j) * d_out + p];
          worst_logit = std::max(worst_logit, score_scale * dot);
        }
      }
    }
  }
  const int depth = std::max(d_q, d_kv);
  const double logit_error = (2.0 * depth + d_head + 4) * kEpsilon * worst_logit;
  const double context_error = (2.0 * logit_error + (depth + tk + 8) * kEpsilon) * worst_value;
  double out_columns = 1.0, out_bias = 0.0;
  if (w.out_weight.present()) {
    out_columns = 0.0;
    for (int j = 0; j < d_out; ++j) {
      double column = 0;
      for (int r = 0; r < d_out; ++r) column += std::fabs(w.out_weight.data[r * d_out + j]);
      out_columns = std::max(out_columns, column);
    }
  }
  if (w.out_bias.present()) for (float v : w.out_bias.data) out_bias = std::max(out_bias, static_cast<double>(std::fabs(v)));
  const double output_error = context_error * out_columns + (d_out + 4) * kEpsilon * (worst_value * out_columns + out_bias);
  return 4.0 * output_error + 1e-5;
}

void require_close(const Tensor& fast, const Tensor& teaching, double tolerance, const std::string& what) {
  require(fast.shape == teaching.shape, what + ": shapes differ");
  for (std::size_t i = 0; i < fast.data.size(); ++i) {
    const double a = fast.data[i], e = teaching.data[i];
    if (!(std::fabs(a - e) <= tolerance)) {
      char text[256];
      std::snprintf(text, sizeof text, ": element %zu is %.9g, the teaching path's %.9g (tolerance %.3g)", i, a, e, tolerance);
      fail(what + text);
    }
  }
}

StackedWeights stack(const ProjectionWeights& w, int heads) {
  StackedWeights s;
  const int d_in = w.query.shape[0], d_out = w.query.shape[1], d_head = d_out / heads;
  for (int h = 0; h < heads; ++h) {
    ProjectionWeights head;
    auto columns = [&](const Tensor& m) {
      Tensor part = zeros({d_in, d_head});
      for (int r = 0; r < d_in; ++r) {
        for (int j = 0; j < d_head; ++j) part.data[r * d_head + j] = m.data[r * d_out + h * d_head + j];
      }
      return part;
    };
    auto slice = [&](const Tensor& bias) {
      if (!bias.present()) return Tensor{};
      Tensor part = zeros({d_head});
      std::copy_n(bias.data.begin() + h * d_head, d_head, part.data.begin());
      return part;
    };
    head.query = columns(w.query);
    head.key = columns(w.key);
    head.value = columns(w.value);
    head.query_bias = slice(w.query_bias);
    head.key_bias = slice(w.key_bias);
    head.value_bias = slice(w.value_bias);
    s.heads.push_back(head);
  }
  s.out_weight = w.out_weight;
  s.out_bias = w.out_bias;
  return s;
}

FusedWeights fuse(const ProjectionWeights& w) {
  FusedWeights f;
  const int d_in = w.query.shape[0], d_out = w.query.shape[1];
  f.in_projection = zeros({d_in, 3 * d_out});
  const Tensor* parts[] = {&w.query, &w.key, &w.value};
  for (int m = 0; m < 3; ++m) {
    for (int r = 0; r < d_in; ++r) {
      std::copy_n(parts[m]->data.begin() + r * d_out, d_out, f.in_projection.data.begin() + r * 3 * d_out + m * d_out);
    }
  }
  if (w.query_bias.present() || w.key_bias.present() || w.value_bias.present()) {
    f.in_bias = zeros({3 * d_out});
    const Tensor* biases[] = {&w.query_bias, &w.key_bias, &w.value_bias};
    for (int m = 0; m < 3; ++m) {
      if (biases[m]->present()) std::copy(biases[m]->data.begin(), biases[m]->data.end(), f.in_bias.data.begin() + m * d_out);
    }
  }
  f.out_weight = w.out_weight;
  f.out_bias = w.out_bias;
  return f;
}

void fuzz_multihead(FuzzedDataProvider& in) {
  const bool damage = in.ConsumeIntegralInRange<int>(0, 3) == 0;
  kernels::set_relaxed_tile_installed(in.ConsumeBool());  // natively the slots run the plain 4-, 5- and 6-row tiles
  const int heads = in.ConsumeIntegralInRange<int>(1, 4), d_head = in.ConsumeIntegralInRange<int>(1, 7);
  const int d_out = heads * d_head + (damage && in.ConsumeBool() ? 1 : 0);
  const int batch = in.ConsumeIntegralInRange<int>(1, 2), tq = in.ConsumeIntegralInRange<int>(1, 60);
  const bool cross = in.ConsumeBool();
  const int tk = cross ? in.ConsumeIntegralInRange<int>(1, 60) : tq;
  const int d_q = in.ConsumeIntegralInRange<int>(1, 9), d_kv = cross ? in.ConsumeIntegralInRange<int>(1, 9) : d_q;
  AttentionOptions options = attention_options(in, damage);
  if (options.heads == 1) options.heads = heads;  // else a damaged heads ≤ 0, for the checks to refuse
  const Tensor x_query = tensor(in, {batch, tq, d_q}, damage);
  const Tensor x_context = cross ? tensor(in, {batch, tk, d_kv}, damage) : x_query;
  ProjectionWeights w;
  w.query = tensor(in, {d_q, d_out}, damage);
  w.key = tensor(in, {d_kv, d_out}, damage);
  w.value = tensor(in, {d_kv, d_out}, damage);
  w.query_bias = optional_tensor(in, {d_out}, damage);
  w.key_bias = optional_tensor(in, {d_out}, damage);
  w.value_bias = optional_tensor(in, {d_out}, damage);
  w.out_weight = optional_tensor(in, {d_out, d_out}, damage);
  w.out_bias = optional_tensor(in, {d_out}, damage);

  const int form = cross ? 3 : in.ConsumeIntegralInRange<int>(0, 2);
  const bool valid_shapes = check_cross_attention(x_query, x_context, w, options).empty();
  // The forms other than split need whole heads to build their weights from split's.
  if (form == 0 && !(valid_shapes && d_out % heads == 0)) return;
  if (form == 1 && !(valid_shapes && d_out % heads == 0)) return;

  AttentionResult teaching, fast;
  AttentionOptions lean = options;
  lean.intermediates = false;
  AttentionOptions full = options;
  full.intermediates = true;
  bool ran = false;
  switch (form) {
    case 0: {
      const StackedWeights s = stack(w, heads);
      const std::string message = check_multihead_attention_stacked(x_query, s, full);
      ran = agrees_with_check(message, "multiheadAttentionStacked", [&] { teaching = multihead_attention_stacked(x_query, s, full); });
      agrees_with_check(check_multihead_attention_stacked(x_query, s, lean), "multiheadAttentionStacked (lean)",
                        [&] { fast = multihead_attention_stacked(x_query, s, lean); });
      break;
    }
    case 1: {
      const FusedWeights f = fuse(w);
      const std::string message = check_multihead_attention_fused(x_query, f, full);
      ran = agrees_with_check(message, "multiheadAttentionFused", [&] { teaching = multihead_attention_fused(x_query, f, full); });
      agrees_with_check(check_multihead_attention_fused(x_query, f, lean), "multiheadAttentionFused (lean)",
                        [&] { fast = multihead_attention_fused(x_query, f, lean); });
      break;
    }
    case 2: {
      const std::string message = check_multihead_attention_split(x_query, w, full);
      ran = agrees_with_check(message, "multiheadAttentionSplit", [&] { teaching = multihead_attention_split(x_query, w, full); });
      agrees_with_check(check_multihead_attention_split(x_query, w, lean), "multiheadAttentionSplit (lean)",
                        [&] { fast = multihead_attention_split(x_query, w, lean); });
      break;
    }
    default: {
      const std::string message = check_cross_attention(x_query, x_context, w, full);
      ran = agrees_with_check(message, "crossAttention", [&] { teaching = cross_attention(x_query, x_context, w, full); });
      agrees_with_check(check_cross_attention(x_query, x_context, w, lean), "crossAttention (lean)",
                        [&] { fast = cross_attention(x_query, x_context, w, lean); });
      break;
    }
  }
  if (!ran) return;
  require(!fast.weights.present() && !fast.query.present() && !fast.context.present(),
          "intermediates=false returned an intermediate");
  if (!fused_kernel_applies(lean)) {
    // The teaching code ran both times: bit for bit the same output.
    require_close(fast.output, teaching.output, 0.0, "intermediates=false without the fused kernel");
    return;
  }
  const float scale = (options.scale ? 1.0f / std::sqrt(static_cast<float>(d_head)) : 1.0f) / options.temperature;
  require_close(fast.output, teaching.output, multihead_tolerance(x_query, x_context, w, heads, scale),
                "the fused path against the teaching path");
}

// ---- 2. the kernels against their references -------------------------------------------------------------

constexpr float kSentinel = 1234.5f;

void fuzz_gemm(FuzzedDataProvider& in) {
  kernels::set_relaxed_tile_installed(in.ConsumeBool());
  kernels::MatmulShape s;
  s.m = in.ConsumeIntegralInRange<int>(1, 70);
  s.k = in.ConsumeIntegralInRange<int>(1, in.ConsumeBool() ? 600 : 20);
  s.n = in.ConsumeIntegralInRange<int>(1, 70);
  s.transpose_b = in.ConsumeBool();
  s.transpose_a = in.ConsumeBool();  // A given as (k, m): the backward's dW = dYᵀ·X
  s.accumulate = in.ConsumeBool();   // C += op(A)·op(B): the backward's sums over key tiles
  s.lda = (s.transpose_a ? s.m : s.k) + in.ConsumeIntegralInRange<int>(0, 3);
  s.ldb = (s.transpose_b ? s.k : s.n) + in.ConsumeIntegralInRange<int>(0, 3);
  s.ldc = s.n + in.ConsumeIntegralInRange<int>(0, 3);
  const std::vector<float> a = values(in, static_cast<std::size_t>(s.transpose_a ? s.k : s.m) * s.lda, false);
  const std::vector<float> b = values(in, static_cast<std::size_t>(s.transpose_b ? s.n : s.k) * s.ldb, false);
  // C's starting values: what `accumulate` adds to (overwritten without it); the row padding holds the sentinel.
  std::vector<float> start(static_cast<std::size_t>(s.m) * s.ldc, kSentinel);
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) start[static_cast<std::size_t>(i) * s.ldc + j] = 0.25f * static_cast<float>((i * 7 + j * 3) % 9 - 4);
  }
  std::vector<float> expected = start;
  kernels::matmul_reference(a.data(), b.data(), expected.data(), s);
  const auto a_at = [&](int i, int p) {
    return s.transpose_a ? a[static_cast<std::size_t>(p) * s.lda + i] : a[static_cast<std::size_t>(i) * s.lda + p];
  };
  // |Σ a·b| in any order differs by at most k·ε·Σ|a||b| (plus the addition to C's start with accumulate).
  std::vector<double> bound(expected.size(), 0.0);
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) {
      const std::size_t at = static_cast<std::size_t>(i) * s.ldc + j;
      double sum = s.accumulate ? std::fabs(start[at]) : 0.0;
      for (int p = 0; p < s.k; ++p) {
        sum += std::fabs(a_at(i, p)) *
               std::fabs(s.transpose_b ? b[static_cast<std::size_t>(j) * s.ldb + p] : b[static_cast<std::size_t>(p) * s.ldb + j]);
      }
      bound[at] = 2.0 * (s.k + 2) * kEpsilon * sum + 1e-30;
    }
  }
  for (const kernels::MatmulVariant& variant : kernels::matmul_variants()) {
    std::vector<float> c = start;
    variant.run(a.data(), b.data(), c.data(), s);
    for (int i = 0; i < s.m; ++i) {
      for (int j = 0; j < s.ldc; ++j) {
        const std::size_t at = static_cast<std::size_t>(i) * s.ldc + j;
        if (j >= s.n) {
          require(c[at] == kSentinel, std::string("GEMM variant ") + variant.name + " wrote into the row padding");
        } else if (!(std::fabs(c[at] - expected[at]) <= bound[at])) {
          char text[256];
          std::snprintf(text, sizeof text,
                        "GEMM variant %s: m=%d k=%d n=%d transpose_a=%d transpose_b=%d accumulate=%d, c[%d][%d] = %.9g, reference %.9g",
                        variant.name, s.m, s.k, s.n, s.transpose_a, s.transpose_b, s.accumulate, i, j, c[at], expected[at]);
          fail(text);
        }
      }
    }
  }
  std::vector<float> c(expected.size(), kSentinel);
  require(!kernels::matmul_with_variant(0, a.data(), b.data(), c.data(), s).empty(), "variant 0 must be refused");
}

void fuzz_attention_heads(FuzzedDataProvider& in) {
  kernels::set_relaxed_tile_installed(in.ConsumeBool());
  kernels::AttentionHeads p;
  p.batch = in.ConsumeIntegralInRange<int>(1, 2);
  p.tq = in.ConsumeIntegralInRange<int>(1, in.ConsumeBool() ? 450 : 20);
  p.tk = in.ConsumeBool() ? p.tq : in.ConsumeIntegralInRange<int>(1, 450);
  p.heads = in.ConsumeIntegralInRange<int>(1, 3);
  p.d_head = in.ConsumeIntegralInRange<int>(1, 20);
  p.causal = in.ConsumeBool();
  p.score_scale = static_cast<float>(in.ConsumeIntegralInRange<int>(1, 64)) / 32.0f;
  const int width = p.heads * p.d_head;
  p.query_stride = width + in.ConsumeIntegralInRange<int>(0, 2);
  p.key_stride = width + in.ConsumeIntegralInRange<int>(0, 2);
  p.value_stride = width + in.ConsumeIntegralInRange<int>(0, 2);
  p.context_stride = width + in.ConsumeIntegralInRange<int>(0, 2);
  // Large logits (|q·k| up to ~1e4) when asked: values up to ~100 instead of ~4.
  const float magnitude = in.ConsumeBool() ? 1.0f : 25.0f;
  auto draw = [&](std::size_t rows, int stride) {
    std::vector<float> v = values(in, rows * stride, false);
    for (float& x : v) x = std::clamp(x, -4.0f, 4.0f) * magnitude;
    return v;
  };
  const std::vector<float> q = draw(static_cast<std::size_t>(p.batch) * p.tq, p.query_stride);
  const std::vector<float> k = draw(static_cast<std::size_t>(p.batch) * p.tk, p.key_stride);
  std::vector<float> v = draw(static_cast<std::size_t>(p.batch) * p.tk, p.value_stride);
  for (float& x : v) x /= magnitude;
  p.query = q.data();
  p.key = k.data();
  p.value = v.data();
  std::vector<float> expected(static_cast<std::size_t>(p.batch) * p.tq * p.context_stride, kSentinel), fused(expected);
  p.context = expected.data();
  kernels::attention_heads_reference(p);
  p.context = fused.data();
  kernels::attention_heads_fused(p);
  // Scores differ by ≤ (d_head + 2)·ε·scale·Σ|q||k| (another summation order), the weights relatively by
  // twice that, the context by that times max|v| plus its own sum's rounding.
  double worst_logit = 0, worst_value = 0;
  for (float x : v) worst_value = std::max(worst_value, static_cast<double>(std::fabs(x)));
  for (int b = 0; b < p.batch; ++b) {
    for (int h = 0; h < p.heads; ++h) {
      double q_max = 0, k_max = 0;
      for (int i = 0; i < p.tq; ++i) {
        double sum = 0;
        for (int d = 0; d < p.d_head; ++d) sum += std::fabs(q[static_cast<std::size_t>(b * p.tq + i) * p.query_stride + h * p.d_head + d]);
        q_max = std::max(q_max, sum);
      }
      for (int j = 0; j < p.tk; ++j) {
        for (int d = 0; d < p.d_head; ++d) k_max = std::max(k_max, static_cast<double>(std::fabs(k[static_cast<std::size_t>(b * p.tk + j) * p.key_stride + h * p.d_head + d])));
      }
      worst_logit = std::max(worst_logit, p.score_scale * q_max * k_max);
    }
  }
  const double tolerance = 4.0 * (2.0 * (p.d_head + 2) * kEpsilon * worst_logit + (p.tk + 16) * kEpsilon) * worst_value + 1e-6;
  for (int row = 0; row < p.batch * p.tq; ++row) {
    for (int j = 0; j < p.context_stride; ++j) {
      const std::size_t at = static_cast<std::size_t>(row) * p.context_stride + j;
      if (j >= width) {
        require(fused[at] == kSentinel, "the fused attention wrote into the context's row padding");
      } else if (!(std::fabs(fused[at] - expected[at]) <= tolerance)) {
        char text[240];
        std::snprintf(text, sizeof text, "fused attention B=%d Tq=%d Tk=%d H=%d d_head=%d causal=%d scale=%g: context[%d][%d] = %.9g, reference %.9g (tolerance %.3g)",
                      p.batch, p.tq, p.tk, p.heads, p.d_head, p.causal, p.score_scale, row, j, fused[at], expected[at], tolerance);
        fail(text);
      }
    }
  }
}

void fuzz_multihead_fast(FuzzedDataProvider& in) {
  kernels::set_relaxed_tile_installed(in.ConsumeBool());
  kernels::MultiheadProblem p;
  p.batch = in.ConsumeIntegralInRange<int>(1, 2);
  p.tq = in.ConsumeIntegralInRange<int>(1, 70);
  p.tk = in.ConsumeBool() ? p.tq : in.ConsumeIntegralInRange<int>(1, 70);
  p.heads = in.ConsumeIntegralInRange<int>(1, 3);
  p.d_out = p.heads * in.ConsumeIntegralInRange<int>(1, 9);
  p.d_query_in = in.ConsumeIntegralInRange<int>(1, 12);
  p.d_context_in = in.ConsumeIntegralInRange<int>(1, 12);
  p.causal = in.ConsumeBool();
  p.score_scale = 1.0f / std::sqrt(static_cast<float>(p.d_out / p.heads));
  const std::vector<float> xq = values(in, static_cast<std::size_t>(p.batch) * p.tq * p.d_query_in, false);
  const std::vector<float> xc = values(in, static_cast<std::size_t>(p.batch) * p.tk * p.d_context_in, false);
  auto matrix = [&](int rows) {
    std::vector<float> m = values(in, static_cast<std::size_t>(rows) * p.d_out, false);
    for (float& x : m) x = std::clamp(x, -1.0f, 1.0f) / 4.0f;
    return m;
  };
  const std::vector<float> wq = matrix(p.d_query_in), wk = matrix(p.d_context_in), wv = matrix(p.d_context_in), wo = matrix(p.d_out);
  const std::vector<float> bias = matrix(1);
  const bool biases = in.ConsumeBool(), out = in.ConsumeBool();
  p.x_query = xq.data();
  p.x_context = xc.data();
  p.query = {wq.data(), p.d_out, biases ? bias.data() : nullptr};
  p.key = {wk.data(), p.d_out, biases ? bias.data() : nullptr};
  p.value = {wv.data(), p.d_out, biases ? bias.data() : nullptr};
  p.out = {out ? wo.data() : nullptr, p.d_out, in.ConsumeBool() ? bias.data() : nullptr};
  std::vector<float> fast(static_cast<std::size_t>(p.batch) * p.tq * p.d_out), expected(fast.size());
  kernels::multihead_attention_fast(p, fast.data());
  kernels::multihead_attention_reference(p, expected.data());
  // The same bound as the teaching comparison, from the same inputs as tensors.
  Tensor x_query{{p.batch, p.tq, p.d_query_in}, xq}, x_context{{p.batch, p.tk, p.d_context_in}, xc};
  ProjectionWeights w;
  w.query = {{p.d_query_in, p.d_out}, wq};
  w.key = {{p.d_context_in, p.d_out}, wk};
  w.value = {{p.d_context_in, p.d_out}, wv};
  if (biases) w.query_bias = w.key_bias = w.value_bias = {{p.d_out}, bias};
  if (out) w.out_weight = {{p.d_out, p.d_out}, wo};
  if (p.out.bias != nullptr) w.out_bias = {{p.d_out}, bias};
  const Tensor got{{p.batch, p.tq, p.d_out}, fast}, want{{p.batch, p.tq, p.d_out}, expected};
  require_close(got, want, multihead_tolerance(x_query, x_context, w, p.heads, p.score_scale),
                "multihead_attention_fast against multihead_attention_reference");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0: fuzz_steps(in); break;
    case 1: fuzz_multihead(in); break;
    case 2: fuzz_gemm(in); break;
    case 3: fuzz_attention_heads(in); break;
    default: fuzz_multihead_fast(in); break;
  }
  kernels::set_relaxed_tile_installed(false);
  return 0;
}
