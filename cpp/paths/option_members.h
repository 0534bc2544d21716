// Each options struct's members by their JS names (docs/api.md "Options"): the one place a new options struct is
// listed. The binding reads a call's JS options object through it (cpp/bindings/js_arguments.h), the native
// fixture runner a fixture case's JSON options (tests/cpp/fixture_loader.h).
#pragma once

#include <type_traits>
#include <utility>

#include "attention/attention.h"
#include "paths/matmul.h"

namespace ap {

// visit(name, member) or visit(name, member, flag): a mask's flag says its values are boolean (0/1: a Uint8Array
// from JS, dtype "uint8" in a fixture); a number's flag says it was given (a nullable option whose default is
// computed: sdpa's scale).

template <typename Visit>
void visit_members(AttentionOptions& o, Visit&& visit) {
  visit("scale", o.scale);
  visit("temperature", o.temperature);
  visit("causal", o.causal);
  visit("mask", o.mask);
  visit("dropout", o.dropout);
  visit("seed", o.seed);
  visit("dropoutRng", o.dropout_rng);
  visit("layout", o.layout);
  visit("heads", o.heads);
  visit("intermediates", o.intermediates);
  visit("attnMask", o.attn_mask, &o.attn_mask_boolean);
  visit("keyPaddingMask", o.key_padding_mask);
  visit("xValue", o.x_value);
  visit("path", o.path);
}
template <typename Visit>
void visit_members(SoftmaxOptions& o, Visit&& visit) {
  visit("normalization", o.normalization);
  visit("scale", o.scale);
}
template <typename Visit>
void visit_members(Normalization& o, Visit&& visit) { visit("normalization", o); }
template <typename Visit>
void visit_members(DropoutOptions& o, Visit&& visit) {
  visit("dropout", o.dropout);
  visit("seed", o.seed);
  visit("dropoutRng", o.dropout_rng);
}
template <typename Visit>
void visit_members(CompareOptions& o, Visit&& visit) {
  visit("atol", o.atol);
  visit("rtol", o.rtol);
}
template <typename Visit>
void visit_members(SdpaOptions& o, Visit&& visit) {
  visit("attnMask", o.mask, &o.mask_boolean);
  visit("isCausal", o.is_causal);
  visit("scale", o.scale, &o.has_scale);
  visit("dropoutP", o.dropout_p);
  visit("seed", o.seed);
  visit("intermediates", o.intermediates);
  visit("path", o.path);
}
template <typename Visit>
void visit_members(LayerNormOptions& o, Visit&& visit) {
  visit("weight", o.weight);
  visit("bias", o.bias);
  visit("eps", o.eps);
}
template <typename Visit>
void visit_members(GeluOptions& o, Visit&& visit) { visit("approximate", o.approximate); }
template <typename Visit>
void visit_members(paths::MatmulOptions& o, Visit&& visit) { visit("transposeB", o.transpose_b); }

// A type is an options struct when it lists its members above.
struct AnyMember {
  template <typename Member>
  void operator()(const char*, Member&, bool* = nullptr) const {}
};
template <typename T, typename = void>
inline constexpr bool kIsOptions = false;
template <typename T>
inline constexpr bool kIsOptions<T, std::void_t<decltype(visit_members(std::declval<T&>(), AnyMember{}))>> = true;

}  // namespace ap
