// Learning: the backward pass of every trainable attention function (DESIGN.md, "Learning").
//
// Each <function>_backward takes the forward's arguments, then grad_output — the loss's gradient with
// respect to the forward's `output`, the output's shape — then the forward's options, and returns the
// gradient of every tensor input, in the input's own shape and in a struct shaped like the input: the
// gradient of weights.query is in gradients.weights.query, and so on. A weight the forward was not given
// (an optional bias, the output projection) has an absent gradient.
//
// The forward is recomputed (with every intermediate: the teaching path) and the chain rule walks its
// numbered passes backwards. Dropout uses the forward's mask: the same seed gives the same mask. These are
// pure math; the multi-head and cross backward's fast entry points (cpp/paths/fast_attention_backward.h) run the fused
// backward where the forward would run the fused kernel. Bad arguments throw std::invalid_argument with
// check_*_backward's message (checks_backward.h).
#pragma once

#include "attention/options.h"
#include "attention/tensor.h"
#include "attention/weights.h"

namespace ap {

// Gradients of self_attention and multihead_attention_split (weights.out_* only for the latter).
struct ProjectionGradients {
  Tensor x;                   // (B, T, d_in)
  ProjectionWeights weights;  // each in its input's shape ('linear' layout: (d_out, d_in))
};

struct StackedGradients {
  Tensor x;                // (B, T, d_in)
  StackedWeights weights;  // heads[h].query … (d_in, d_head), out_weight, out_bias
};

struct FusedGradients {
  Tensor x;              // (B, T, d_in)
  FusedWeights weights;  // in_projection (d_in, 3·d_out) = [dWq | dWk | dWv], in_bias, out_weight, out_bias
};

struct CrossAttentionGradients {
  Tensor x_query;             // (B, Tq, d_q)
  Tensor x_context;           // (B, Tk, d_kv)
  ProjectionWeights weights;  // query (d_q, d_out), key and value (d_kv, d_out), biases, out_weight, out_bias
};

// x: (B, T, d_in), weights as self_attention, grad_output (B, T, d_out) → gradients of x and the weights.
ProjectionGradients self_attention_backward(const Tensor& x, const ProjectionWeights& weights,
                                            const Tensor& grad_output, const AttentionOptions& options = {});

// x: (B, T, d_in), weights as the forward, grad_output (B, T, d_out) → gradients of x and the weights.
StackedGradients multihead_attention_stacked_backward(const Tensor& x, const StackedWeights& weights,
                                                      const Tensor& grad_output,
                                                      const AttentionOptions& options = {});
ProjectionGradients multihead_attention_split_backward(const Tensor& x, const ProjectionWeights& weights,
                                                       const Tensor& grad_output,
                                                       const AttentionOptions& options = {});
FusedGradients multihead_attention_fused_backward(const Tensor& x, const FusedWeights& weights,
                                                  const Tensor& grad_output, const AttentionOptions& options = {});

// x_query: (B, Tq, d_q), x_context: (B, Tk, d_kv), grad_output (B, Tq, d_out) → gradients of both inputs
// and the weights.
CrossAttentionGradients cross_attention_backward(const Tensor& x_query, const Tensor& x_context,
                                                 const ProjectionWeights& weights, const Tensor& grad_output,
                                                 const AttentionOptions& options = {});

namespace unchecked {
// The same five on arguments that passed their check_*_backward (checks_backward.h): what the functions above,
// the fast entry points (cpp/paths) and the bindings run once a call is checked.
ProjectionGradients self_attention_backward(const Tensor& x, const ProjectionWeights& weights,
                                            const Tensor& grad_output, const AttentionOptions& options);
StackedGradients multihead_attention_stacked_backward(const Tensor& x, const StackedWeights& weights,
                                                      const Tensor& grad_output,
                                                      const AttentionOptions& options);
ProjectionGradients multihead_attention_split_backward(const Tensor& x, const ProjectionWeights& weights,
                                                       const Tensor& grad_output,
                                                       const AttentionOptions& options);
FusedGradients multihead_attention_fused_backward(const Tensor& x, const FusedWeights& weights,
                                                  const Tensor& grad_output, const AttentionOptions& options);
CrossAttentionGradients cross_attention_backward(const Tensor& x_query, const Tensor& x_context,
                                                 const ProjectionWeights& weights, const Tensor& grad_output,
                                                 const AttentionOptions& options);
}  // namespace unchecked

}  // namespace ap
