// Which path runs a call: the fused kernel's rule and the planned path (options.path), once, for the checks
// (their memory estimate is the path's) and for the entry points that run it (cpp/paths/fast_attention.h). Pure
// rules: this file includes no kernel.
#pragma once

#include <string>

#include "attention/attention.h"
#include "attention/options.h"

namespace ap {

// The fused kernel computes softmax(scaled) with −∞ above the diagonal, the contract's default; it runs
// when only the output is wanted, there is no dropout (it needs the weights), and a causal mask is
// 'neg_inf' (the other modes are lessons in what goes wrong), and no attn_mask or x_value is given (the kernel
// takes neither; it skips the keys key_padding_mask marks). Otherwise the teaching code runs.
bool fused_kernel_applies(const AttentionOptions& options);

// The fused backward's rule: fused_kernel_applies and no key_padding_mask (the backward kernel recomputes the
// weights from the forward's row statistics without skipping padded keys).
bool fused_backward_applies(const AttentionOptions& options);
// Whether a backward call runs the fused kernel: the planned path where one is given, else fused_backward_applies.
bool plans_fused_backward(const AttentionOptions& options);
// check_planned_path's message for a backward planned onto the fused kernel that fused_backward_applies refuses.
std::string check_planned_backward_path(const std::string& function, const AttentionOptions& options);

// Whether a call runs the fused kernel: the planned path (options.path) where one is given, else the rule.
bool plans_fused_kernel(const AttentionOptions& options);
// "" unless the call is planned onto the fused kernel (options.path Fused) and the kernel's rule refuses it, or
// the function has no fused path (may_fuse false): the planner and the rule disagree, which is a bug said loudly.
std::string check_planned_path(const std::string& function, const AttentionOptions& options, bool may_fuse = true);
// scaledDotProductAttention's fused route (the JS planner's sdpaFusedApplies with the kernel's two limits):
// only the output wanted, dropout_p 0, no attn_mask (is_causal is the kernel's top-left mask), Ev == E (the
// kernel's values are as wide as its keys) and a scale > 0 (its online softmax keeps the raw row max).
bool sdpa_fused_applies(int E, int Ev, const SdpaOptions& options);
// Its planned path (options.path) where one is given, else sdpa_fused_applies; planned onto the kernel where
// sdpa_fused_applies refuses, check_scaled_dot_product_attention says so and the fast entry point throws.
bool sdpa_plans_fused(int E, int Ev, const SdpaOptions& options);
// "" unless the call is planned onto the fused kernel where sdpa_fused_applies refuses it: the planner and the
// rule disagree (check_planned_path's twin for scaledDotProductAttention).
std::string check_sdpa_planned_path(int E, int Ev, const SdpaOptions& options);

}  // namespace ap
