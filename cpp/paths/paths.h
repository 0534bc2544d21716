// Every registry function by its C++ name, as the paths run it on arguments that passed its check:
// `paths::unchecked::<cpp>(arguments…)` is the planned path's entry point where the function has a fast kernel
// (options.path: the fused kernel or the teaching code), else the teaching step's own body, ap::unchecked::<cpp>,
// found through the using-directive. The binding (cpp/bindings/bindings.cpp) runs `paths::check_<cpp>` (its
// checked entry) or nothing (its entry for calls the JS API has checked) and then `paths::unchecked::<cpp>`, so a
// function without a kernel needs nothing here, and one with a kernel adds its entry point below.
#pragma once

#include "attention/attention.h"
#include "paths/fast_attention.h"
#include "paths/fast_attention_backward.h"
#include "paths/matmul.h"

namespace ap::paths {

using namespace ap;

namespace unchecked {

using namespace ap::unchecked;

inline constexpr auto& multihead_attention_stacked = multihead_attention_stacked_fast;
inline constexpr auto& multihead_attention_split = multihead_attention_split_fast;
inline constexpr auto& multihead_attention_fused = multihead_attention_fused_fast;
inline constexpr auto& cross_attention = cross_attention_fast;
inline constexpr auto& scaled_dot_product_attention = scaled_dot_product_attention_fast;
inline constexpr auto& matmul = paths::matmul;  // the fast path's own GEMM: no teaching step, no kernel choice

// The backward: selfAttentionBackward has only the teaching backward (found through the using-directive); the
// others the fused backward where the forward would run the fused kernel.
inline constexpr auto& multihead_attention_stacked_backward = multihead_attention_stacked_backward_fast;
inline constexpr auto& multihead_attention_split_backward = multihead_attention_split_backward_fast;
inline constexpr auto& multihead_attention_fused_backward = multihead_attention_fused_backward_fast;
inline constexpr auto& cross_attention_backward = cross_attention_backward_fast;

}  // namespace unchecked

}  // namespace ap::paths
