// Every registry function by its C++ name, as the paths run it on arguments that passed its check:
// `paths::<cpp>_unchecked(arguments…)` is the planned path's entry point where the function has a fast kernel
// (options.path: the fused kernel or the teaching code), else the teaching step's own unchecked body, found
// through the using-directive. The binding (cpp/bindings/bindings.cpp) runs `paths::check_<cpp>` (its checked
// entry) or nothing (its entry for calls the JS API has checked) and then `paths::<cpp>_unchecked`, so a function
// without a kernel needs nothing here, and one with a kernel adds its entry point below.
#pragma once

#include "attention/attention.h"
#include "paths/fast_attention.h"
#include "paths/fast_attention_backward.h"
#include "paths/matmul.h"

namespace ap::paths {

using namespace ap;

inline constexpr auto& multihead_attention_stacked_unchecked = multihead_attention_stacked_fast;
inline constexpr auto& multihead_attention_split_unchecked = multihead_attention_split_fast;
inline constexpr auto& multihead_attention_fused_unchecked = multihead_attention_fused_fast;
inline constexpr auto& cross_attention_unchecked = cross_attention_fast;
inline constexpr auto& scaled_dot_product_attention_unchecked = scaled_dot_product_attention_fast;
inline constexpr auto& matmul_unchecked = matmul;  // the fast path's own GEMM: no teaching step, no kernel choice

// The backward: selfAttentionBackward has only the teaching backward (found through the using-directive); the
// others the fused backward where the forward would run the fused kernel.
inline constexpr auto& multihead_attention_stacked_backward_unchecked = multihead_attention_stacked_backward_fast;
inline constexpr auto& multihead_attention_split_backward_unchecked = multihead_attention_split_backward_fast;
inline constexpr auto& multihead_attention_fused_backward_unchecked = multihead_attention_fused_backward_fast;
inline constexpr auto& cross_attention_backward_unchecked = cross_attention_backward_fast;

}  // namespace ap::paths
