// The options of docs/api.md ("Options"), with their defaults, and the parsers that turn the JS
// option strings ('stable', 'neg_inf', 'linear', …) into enums with the contract's error message.
#pragma once

#include <cstdint>
#include <string>

#include "attention/tensor.h"

namespace ap {

// How a row of scores becomes weights (step 5).
enum class Normalization {
  Stable,  // 'stable': exp(s − max) / Σ exp(s − max)
  Naive,   // 'naive':  exp(s) / Σ exp(s), overflows to inf/NaN for s ≳ 88 (shown on purpose)
  Sum,     // 'sum':    s / Σ s, "divide by the sum" (not a distribution for negative s)
};

// How the causal mask is applied (step 7).
enum class MaskMode {
  NegInf,       // 'neg_inf':     −∞ above the diagonal, then softmax
  Renormalize,  // 'renormalize': softmax, zero above the diagonal, divide by the row sum
  Zero,         // 'zero':        0 above the diagonal, then softmax (the classic mistake)
};

// How projection matrices are stored (step 6).
enum class WeightLayout {
  Matrix,  // 'matrix': (d_in, d_out), used as X·W
  Linear,  // 'linear': (d_out, d_in) like torch.nn.Linear.weight, used as X·Wᵀ
};

// Which random numbers dropout draws its mask from (step 8; docs/api.md "Dropout").
enum class DropoutRng {
  Counter,  // 'counter': u(seed, i) from the flat index alone, the same on every path and backend
  Torch,    // 'torch':   torch.nn.Dropout's mask after torch.manual_seed(seed) (CPU, torch 1.13), in flat order
};

// Which form of GELU gelu computes (PyTorch's F.gelu approximate).
enum class GeluApproximation {
  None,  // 'none': x·Φ(x) with erf
  Tanh,  // 'tanh': GPT-2's tanh approximation
};

// The path a call runs: the JS planner's choice (web/src/core/planner.js), which the bindings pass down, or,
// for a native caller that gives none, the fused kernel's rule decides (fused_rule.h).
enum class PlannedPath {
  ByRule,    // fused_kernel_applies decides
  Teaching,  // the teaching code, as planned
  Fused,     // the fused kernel, as planned; only where its rule holds (an assertion, check_planned_path)
};

// Options of self_attention, the multi-head functions and cross_attention.
struct AttentionOptions {
  bool scale = true;          // multiply scores by 1/√d_k (d_k = d_head)
  float temperature = 1.0f;   // finite and > 0; scaled = scores · (1/√d_k) / temperature
  bool causal = false;        // row i looks at keys j ≤ i (top-left aligned, like torch.tril)
  MaskMode mask = MaskMode::NegInf;
  float dropout = 0.0f;       // in [0, 1), applied to the weights after the mask
  double seed = 0.0;          // an integer in [0, 2³²); a double so a JS 1.5 or −1 can be rejected
  DropoutRng dropout_rng = DropoutRng::Counter;
  WeightLayout layout = WeightLayout::Matrix;  // self_attention only; ignored elsewhere
  int heads = 1;              // H (split, fused, cross); stacked takes H from its weights
  bool intermediates = true;  // false: return only `output` (multi-head and cross)
  // The masks (multi-head and cross; docs/api.md "Masks", attention/masks.h), absent when not given:
  Tensor attn_mask;                // (Tq, Tk), (B, Tq, Tk) or (B, H, Tq, Tk)
  bool attn_mask_boolean = false;  // true: 0/1 values, 1 = may attend; false: added to the scaled scores
  Tensor key_padding_mask;         // (B, Tk), 0/1 values, 1 = padding
  Tensor x_value;                  // cross_attention only: the values' own input (B, Tk, d_xv)
  PlannedPath path = PlannedPath::ByRule;  // the multi-head forms, cross_attention and their backwards
};

// Options of softmax (step 5).
struct SoftmaxOptions {
  Normalization normalization = Normalization::Stable;
  float scale = 1.0f;  // softmax of scale·x; finite
};

// Options of attention_dropout (step 8).
struct DropoutOptions {
  float dropout = 0.0f;  // p in [0, 1)
  double seed = 0.0;     // an integer in [0, 2³²)
  DropoutRng dropout_rng = DropoutRng::Counter;
};

// Options of compare (step 9): |actual − expected| ≤ atol + rtol·|expected|.
struct CompareOptions {
  double atol = 1e-5;
  double rtol = 1e-5;
};

// The option enums (Normalization, MaskMode, WeightLayout, DropoutRng, GeluApproximation): each has one table of its JS spellings
// in options.cpp, and these three read it.

// Parse a JS option string. Returns "" and sets `out`, or returns the message, e.g.
// "selfAttention: options.mask='none'; expected 'neg_inf', 'renormalize' or 'zero'".
// `function` is the JS API name, `argument` the option's path ("options.mask").
template <typename Enum>
std::string parse_option(const std::string& function, const std::string& argument, const std::string& text, Enum& out);

// The JS spelling of each value: "stable", "neg_inf", "linear", …
template <typename Enum>
const char* option_name(Enum value);

// Every spelling of `any`'s option, as a message lists them: "'stable', 'naive' or 'sum'".
template <typename Enum>
std::string option_choices(Enum any);

}  // namespace ap
