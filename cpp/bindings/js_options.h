// Reading a JS options object into the core's option structs, with docs/api.md's defaults for every
// option that is missing (undefined or null). A present option of the wrong JS type, or an unknown
// string for an enum option, is an error naming the option, its value and what was expected.
// Ranges (dropout in [0, 1), a finite positive temperature, an integer seed, heads ≥ 1) are the core's
// checks, so every layer words them the same.
#pragma once

#include <emscripten/val.h>

#include "attention/options.h"
#include "js_tensor.h"
#include "matmul.h"

namespace ap::bindings {

// Which of AttentionOptions' fields a function reads: `layout` is self_attention's alone, `heads`
// belongs to the multi-head functions (stacked counts its heads from its weights; a given
// options.heads must agree, which bindings.cpp checks).
struct AttentionOptionSet {
  bool layout = false;
  bool heads = false;
};
inline constexpr AttentionOptionSet kSelfAttentionOptions{true, false};
inline constexpr AttentionOptionSet kStackedOptions{false, false};  // H from the weights
inline constexpr AttentionOptionSet kMultiheadOptions{false, true};  // stacked, split, fused, cross

void read_options(Call& call, const val& options, AttentionOptions& out, AttentionOptionSet which);
// options.path, the path the API planned for the call (web/src/core/api.js): 'fused' or 'teaching'; absent (a
// direct caller of the backend), the fused kernel's rule decides.
PlannedPath read_planned_path(const val& options);
void read_options(Call& call, const val& options, SoftmaxOptions& out);
void read_options(Call& call, const val& options, DropoutOptions& out);
void read_options(Call& call, const val& options, CompareOptions& out);
// attentionWithoutWeights takes only `normalization`.
void read_options(Call& call, const val& options, Normalization& out);
void read_options(Call& call, const val& options, MatmulOptions& out);

}  // namespace ap::bindings
