// Every registry function by its C++ name, as the paths run it: `paths::<cpp>(checked arguments…)` is the
// planned path's entry point where the function has a fast kernel (options.path: the fused kernel or the
// teaching code), else the teaching step itself, found through the using-directive. The binding
// (cpp/bindings/bindings.cpp) calls `paths::check_<cpp>` and then `paths::<cpp>` for every registry function,
// so a function without a kernel needs nothing here, and one with a kernel adds its entry point below.
#pragma once

#include "attention/attention.h"
#include "paths/fast_attention.h"
#include "paths/fast_attention_backward.h"
#include "paths/matmul.h"

namespace ap::paths {

using namespace ap;

inline constexpr auto& multihead_attention_stacked = multihead_attention_stacked_fast;
inline constexpr auto& multihead_attention_split = multihead_attention_split_fast;
inline constexpr auto& multihead_attention_fused = multihead_attention_fused_fast;
inline constexpr auto& cross_attention = cross_attention_fast;
inline constexpr auto& scaled_dot_product_attention = scaled_dot_product_attention_fast;

// The backward: selfAttentionBackward has only the teaching backward (on checked arguments); the others the
// fused backward where the forward would run the fused kernel.
inline constexpr auto& self_attention_backward = self_attention_backward_unchecked;
inline constexpr auto& multihead_attention_stacked_backward = multihead_attention_stacked_backward_fast;
inline constexpr auto& multihead_attention_split_backward = multihead_attention_split_backward_fast;
inline constexpr auto& multihead_attention_fused_backward = multihead_attention_fused_backward_fast;
inline constexpr auto& cross_attention_backward = cross_attention_backward_fast;

}  // namespace ap::paths
