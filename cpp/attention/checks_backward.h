// Argument checks of the backward functions (attention_backward.h), one per function, run once at the
// boundary: the forward's checks (their messages name the backward, e.g. "selfAttentionBackward: weights.query
// has shape [4, 2]; expected [d_in=3, d_out]"), then gradOutput, which must have the forward output's shape
// ("selfAttentionBackward: gradOutput has shape [2, 5, 4]; expected [2, 5, 3], the shape of the forward's output",
// word for word the JS reference's message), then memory: the recomputed forward's stages and the backward's own (the
// registry's BACKWARD_MEMORY terms, registry_rules.h), against max_bytes.
#pragma once

#include <cstddef>
#include <string>

#include "attention/checks.h"
#include "attention/options.h"
#include "attention/tensor.h"
#include "attention/weights.h"

namespace ap {

std::string check_self_attention_backward(const Tensor& x, const ProjectionWeights& weights, const Tensor& grad_output,
                                          const AttentionOptions& options, std::size_t max_bytes = no_memory_limit);
std::string check_multihead_attention_stacked_backward(const Tensor& x, const StackedWeights& weights,
                                                       const Tensor& grad_output, const AttentionOptions& options,
                                                       std::size_t max_bytes = no_memory_limit);
std::string check_multihead_attention_split_backward(const Tensor& x, const ProjectionWeights& weights,
                                                     const Tensor& grad_output, const AttentionOptions& options,
                                                     std::size_t max_bytes = no_memory_limit);
std::string check_multihead_attention_fused_backward(const Tensor& x, const FusedWeights& weights,
                                                     const Tensor& grad_output, const AttentionOptions& options,
                                                     std::size_t max_bytes = no_memory_limit);
std::string check_cross_attention_backward(const Tensor& x_query, const Tensor& x_context,
                                           const ProjectionWeights& weights, const Tensor& grad_output,
                                           const AttentionOptions& options, std::size_t max_bytes = no_memory_limit);

// Internal: the forward checks (checks.h) with the sizes they named (B, T or Tq and Tk, H, d_out, … by the
// registry's axis names), which the backward checks read.
class AxisSizes;
std::string check_self_attention(const Tensor& x, const ProjectionWeights& weights, const AttentionOptions& options,
                                 std::size_t max_bytes, AxisSizes& sizes);
std::string check_multihead_attention_stacked(const Tensor& x, const StackedWeights& weights,
                                              const AttentionOptions& options, std::size_t max_bytes, AxisSizes& sizes);
std::string check_multihead_attention_split(const Tensor& x, const ProjectionWeights& weights,
                                            const AttentionOptions& options, std::size_t max_bytes, AxisSizes& sizes);
std::string check_multihead_attention_fused(const Tensor& x, const FusedWeights& weights,
                                            const AttentionOptions& options, std::size_t max_bytes, AxisSizes& sizes);
std::string check_cross_attention(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& weights,
                                  const AttentionOptions& options, std::size_t max_bytes, AxisSizes& sizes);

}  // namespace ap
