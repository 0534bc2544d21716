// The attention core, every curriculum step: include this one header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "attention/attention_backward.h"
#include "attention/attention_without_weights.h"
#include "attention/causal_average.h"
#include "attention/checks.h"
#include "attention/checks_backward.h"
#include "attention/compare.h"
#include "attention/cross_attention.h"
#include "attention/dropout.h"
#include "attention/multihead.h"
#include "attention/next_token.h"
#include "attention/options.h"
#include "attention/results.h"
#include "attention/self_attention.h"
#include "attention/softmax.h"
#include "attention/tensor.h"
#include "attention/weights.h"

namespace ap {

// scaledDotProductAttention's options (docs/api.md): attnMask (absent, boolean 0/1 with 1 = may attend, or
// float added to the scaled scores), isCausal, scale (1/√E unless has_scale), dropoutP, seed, intermediates.
struct SdpaOptions {
  Tensor mask;
  bool mask_boolean = false;
  bool is_causal = false;
  bool has_scale = false;
  float scale = 1.0f;
  float dropout_p = 0.0f;
  double seed = 0.0;  // an integer in [0, 2³²); a double so a JS 1.5 or −1 can be rejected, as AttentionOptions'
  bool intermediates = true;
  PlannedPath path = PlannedPath::ByRule;  // as AttentionOptions' (options.h)
};

// scores, scaled, masked (when a mask applies), weights (…, L, S), dropped (when dropout_p > 0), output
// (…, L, Ev); with intermediates false only output.
struct SdpaResult {
  Tensor scores, scaled, masked, weights, dropped, output;
};

// query (…, L, E), key (…, S, E), value (…, S, Ev), the leading axes equal (any number, including none):
// PyTorch's F.scaled_dot_product_attention, a fully masked row giving zero weights and a zero output.
std::string check_scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                               const SdpaOptions& options, std::size_t max_bytes);
SdpaResult scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                        const SdpaOptions& options);

// layerNorm's options (docs/api.md): the affine weight and bias (C), each absent or given, and eps.
struct LayerNormOptions {
  Tensor weight;
  Tensor bias;
  float eps = 1e-5f;
};

// x (…, C), any rank ≥ 1 → output (…, C): PyTorch's F.layer_norm(x, (C,), weight, bias, eps), each last-axis row
// normalised by its mean and biased variance, then scaled by weight and shifted by bias where given.
std::string check_layer_norm(const Tensor& x, const LayerNormOptions& options, std::size_t max_bytes = no_memory_limit);
Tensor layer_norm(const Tensor& x, const LayerNormOptions& options = {});

// gelu's options (docs/api.md): approximate 'none' (erf) or 'tanh' (GPT-2's), as PyTorch's F.gelu.
struct GeluOptions {
  GeluApproximation approximate = GeluApproximation::None;
};

// x of any rank ≥ 1 → output of its shape: PyTorch's F.gelu(x, approximate), elementwise.
std::string check_gelu(const Tensor& x, const GeluOptions& options, std::size_t max_bytes = no_memory_limit);
Tensor gelu(const Tensor& x, const GeluOptions& options = {});

namespace unchecked {
// The steps above on arguments that passed their checks (checks.h): what they and the bindings run.
SdpaResult scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                        const SdpaOptions& options);
Tensor layer_norm(const Tensor& x, const LayerNormOptions& options);
Tensor gelu(const Tensor& x, const GeluOptions& options);
}  // namespace unchecked

}  // namespace ap
