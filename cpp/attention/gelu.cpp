// gelu: PyTorch's F.gelu (docs/api.md), the GPT-2 MLP's nonlinearity, elementwise on any tensor.
// The teaching path: each value in double, then the float32 result.
#include <cmath>

#include "attention/attention.h"
#include "attention/check_helpers.h"
#include "attention/gpt2.h"
#include "attention/registry_rules.h"

namespace ap {

namespace {
const char* kFn = "gelu";
}  // namespace

float gelu_tanh(float x) {
  // GELU(x) ≈ 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))): GPT-2's approximation, approximate='tanh'
  const double inner = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
  return static_cast<float>(0.5 * x * (1.0 + std::tanh(inner)));
}

float gelu_erf(float x) {
  // GELU(x) = x·Φ(x) = 0.5·x·(1 + erf(x/√2)): the exact form, approximate='none'
  return static_cast<float>(0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))));
}

std::string check_gelu(const Tensor& x, const GeluOptions&, std::size_t max_bytes) {
  if (auto message = check_tensor_any_rank(kFn, "x", x); !message.empty()) return message;
  return check_memory(kFn, "x of shape " + format_shape(x.shape),
                      estimate_floats(kFn, "teaching", {{"size", static_cast<double>(x.element_count())}}), max_bytes);
}

namespace unchecked {

Tensor gelu(const Tensor& x, const GeluOptions& options) {
  float (*const form)(float) = options.approximate == GeluApproximation::Tanh ? gelu_tanh : gelu_erf;
  Tensor output{x.shape, std::vector<float>(x.data.size())};
  for (std::size_t i = 0; i < x.data.size(); ++i) output.data[i] = form(x.data[i]);
  return output;
}

}  // namespace unchecked

Tensor gelu(const Tensor& x, const GeluOptions& options) {
  return checked(check_gelu, unchecked::gelu, x, options);
}

}  // namespace ap
