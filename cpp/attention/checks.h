// Argument checks, one per API function, run once at the boundary before any math.
// Each returns "" when the arguments are valid, else the message the user sees verbatim, which
// starts with the JS API name and names the argument, its value and what was expected
// (docs/api.md, "Errors"), e.g. "selfAttention: weights.query has shape [4, 2]; expected [d_in=3, d_out]".
// `max_bytes` bounds the estimated bytes of results plus workspace (2 GiB in WASM), e.g.
// "selfAttention: B=4, T=30000 needs 72.0 GB for its results and workspace; the memory limit is 2 GiB"
// (causal, dropout > 0: five (B, T, T) stages). The compute functions call these and throw std::invalid_argument;
// the bindings call them first and raise a JS Error instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "attention/options.h"
#include "attention/results.h"
#include "attention/tensor.h"
#include "attention/weights.h"

namespace ap {

inline constexpr std::size_t no_memory_limit = SIZE_MAX;

std::string check_next_token_pairs(const IntTensor& tokens, std::size_t max_bytes = no_memory_limit);

std::string check_causal_average_loop(const Tensor& x, std::size_t max_bytes = no_memory_limit);
std::string check_causal_average_matmul(const Tensor& x, std::size_t max_bytes = no_memory_limit);
std::string check_causal_average_softmax(const Tensor& x, std::size_t max_bytes = no_memory_limit);

std::string check_softmax(const Tensor& x, const SoftmaxOptions& options,
                          std::size_t max_bytes = no_memory_limit);
std::string check_attention_without_weights(const Tensor& x, Normalization normalization,
                                            std::size_t max_bytes = no_memory_limit);

std::string check_self_attention(const Tensor& x, const ProjectionWeights& weights,
                                 const AttentionOptions& options, std::size_t max_bytes = no_memory_limit);
std::string check_attention_dropout(const Tensor& weights, const DropoutOptions& options,
                                    std::size_t max_bytes = no_memory_limit);
std::string check_compare(const Tensor& actual, const Tensor& expected, const CompareOptions& options,
                          std::size_t max_bytes = no_memory_limit);

std::string check_multihead_attention_stacked(const Tensor& x, const StackedWeights& weights,
                                              const AttentionOptions& options,
                                              std::size_t max_bytes = no_memory_limit);
std::string check_multihead_attention_split(const Tensor& x, const ProjectionWeights& weights,
                                            const AttentionOptions& options,
                                            std::size_t max_bytes = no_memory_limit);
std::string check_multihead_attention_fused(const Tensor& x, const FusedWeights& weights,
                                            const AttentionOptions& options,
                                            std::size_t max_bytes = no_memory_limit);
std::string check_cross_attention(const Tensor& x_query, const Tensor& x_context,
                                  const ProjectionWeights& weights, const AttentionOptions& options,
                                  std::size_t max_bytes = no_memory_limit);

}  // namespace ap
