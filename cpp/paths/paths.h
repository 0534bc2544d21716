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

inline AttentionResult multihead_attention_stacked(const Tensor& x, const StackedWeights& weights,
                                                   const AttentionOptions& options) {
  return multihead_attention_stacked_fast(x, weights, options);
}
inline AttentionResult multihead_attention_split(const Tensor& x, const ProjectionWeights& weights,
                                                 const AttentionOptions& options) {
  return multihead_attention_split_fast(x, weights, options);
}
inline AttentionResult multihead_attention_fused(const Tensor& x, const FusedWeights& weights,
                                                 const AttentionOptions& options) {
  return multihead_attention_fused_fast(x, weights, options);
}
inline AttentionResult cross_attention(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& weights,
                                       const AttentionOptions& options) {
  return cross_attention_fast(x_query, x_context, weights, options);
}
inline SdpaResult scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                               const SdpaOptions& options) {
  return scaled_dot_product_attention_fast(query, key, value, options);
}

// The backward: selfAttentionBackward has only the teaching backward (on checked arguments); the others the
// fused backward where the forward would run the fused kernel.
inline ProjectionGradients self_attention_backward(const Tensor& x, const ProjectionWeights& weights,
                                                   const Tensor& grad_output, const AttentionOptions& options) {
  return self_attention_backward_unchecked(x, weights, grad_output, options);
}
inline StackedGradients multihead_attention_stacked_backward(const Tensor& x, const StackedWeights& weights,
                                                             const Tensor& grad_output, const AttentionOptions& options) {
  return multihead_attention_stacked_backward_fast(x, weights, grad_output, options);
}
inline ProjectionGradients multihead_attention_split_backward(const Tensor& x, const ProjectionWeights& weights,
                                                              const Tensor& grad_output, const AttentionOptions& options) {
  return multihead_attention_split_backward_fast(x, weights, grad_output, options);
}
inline FusedGradients multihead_attention_fused_backward(const Tensor& x, const FusedWeights& weights,
                                                         const Tensor& grad_output, const AttentionOptions& options) {
  return multihead_attention_fused_backward_fast(x, weights, grad_output, options);
}
inline CrossAttentionGradients cross_attention_backward(const Tensor& x_query, const Tensor& x_context,
                                                        const ProjectionWeights& weights, const Tensor& grad_output,
                                                        const AttentionOptions& options) {
  return cross_attention_backward_fast(x_query, x_context, weights, grad_output, options);
}

}  // namespace ap::paths
