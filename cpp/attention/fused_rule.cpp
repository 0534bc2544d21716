#include "attention/fused_rule.h"

#include <cmath>

namespace ap {

bool fused_kernel_applies(const AttentionOptions& options) {
  return !options.intermediates && options.dropout == 0.0f && (!options.causal || options.mask == MaskMode::NegInf) &&
         !options.attn_mask.present() && !options.x_value.present();
}

bool plans_fused_kernel(const AttentionOptions& options) {
  return options.path == PlannedPath::ByRule ? fused_kernel_applies(options) : options.path == PlannedPath::Fused;
}

std::string check_planned_path(const std::string& function, const AttentionOptions& options, bool may_fuse) {
  if (options.path != PlannedPath::Fused || (may_fuse && fused_kernel_applies(options))) return "";
  return function + ": the call was planned onto the fused kernel, whose rule does not take its options "
         "(intermediates, dropout, mask, attnMask or xValue): the planner and the kernel disagree";
}

bool fused_backward_applies(const AttentionOptions& options) {
  return fused_kernel_applies(options) && !options.key_padding_mask.present();
}

bool plans_fused_backward(const AttentionOptions& options) {
  return options.path == PlannedPath::ByRule ? fused_backward_applies(options) : options.path == PlannedPath::Fused;
}

std::string check_planned_backward_path(const std::string& function, const AttentionOptions& options) {
  if (options.path != PlannedPath::Fused || fused_backward_applies(options)) return "";
  return function + ": the call was planned onto the fused backward kernel, whose rule does not take its options "
         "(intermediates, dropout, mask, attnMask, xValue or keyPaddingMask): the planner and the kernel disagree";
}

std::string check_sdpa_planned_path(int E, int Ev, const SdpaOptions& options) {
  if (!sdpa_plans_fused(E, Ev, options) || sdpa_fused_applies(E, Ev, options)) return "";
  return "scaledDotProductAttention: the call was planned onto the fused kernel, whose rule does not take it "
         "(intermediates, dropoutP, attnMask, Ev = E, scale > 0): the planner and the kernel disagree";
}

bool sdpa_fused_applies(int E, int Ev, const SdpaOptions& options) {
  const float scale = options.has_scale ? options.scale : 1.0f / std::sqrt(static_cast<float>(E));
  return !options.intermediates && options.dropout_p == 0.0f && !options.mask.present() && Ev == E && scale > 0.0f;
}

bool sdpa_plans_fused(int E, int Ev, const SdpaOptions& options) {
  return options.path == PlannedPath::ByRule ? sdpa_fused_applies(E, Ev, options) : options.path == PlannedPath::Fused;
}

}  // namespace ap
