// Argument checks of the backward functions (attention_backward.h), one per function, run once at the
// boundary: the forward's checks (their messages name the backward, e.g. "selfAttentionBackward: weights.query
// has shape [4, 2]; expected [d_in=3, d_out]"), then gradOutput, which must have the forward output's shape,
// then memory: the recomputed forward's stages and the backward's own, against max_bytes.
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

}  // namespace ap
