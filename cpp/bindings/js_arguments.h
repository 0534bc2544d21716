// Reading one call's JS arguments into the core's types, by the registry's description of the function (the
// generated attention/registry.h: kArguments, kOptions), so a new function needs no reader of its own:
// - an argument is read by the core parameter's type: a tensor, token ids, a weights object by its keys;
// - the options object by each of the function's options, in registry order, into the options struct's member
//   of that name (js_arguments.cpp lists each struct's members by their JS names).
// Missing and null options mean "default". A present option of the wrong JS type, or an unknown string for a
// choice, is an error naming the option, its value and what was expected; ranges (dropout in [0, 1), heads ≥ 1)
// are the core's checks, so every layer words them the same.
#pragma once

#include <emscripten/val.h>

#include <vector>

#include "attention/attention.h"
#include "attention/registry.h"
#include "js_tensor.h"
#include "paths/matmul.h"

namespace ap::bindings {

using paths::MatmulOptions;

// A function's registry rows: its arguments in call order and its options in registry order.
struct Signature {
  std::vector<const registry::Argument*> arguments;
  std::vector<const registry::Option*> options;
};
Signature signature_of(const char* function);

void read_argument(Call& call, const val& js, const registry::Argument& spec, Tensor& out);
void read_argument(Call& call, const val& js, const registry::Argument& spec, IntTensor& out);
void read_argument(Call& call, const val& js, const registry::Argument& spec, ProjectionWeights& out);
void read_argument(Call& call, const val& js, const registry::Argument& spec, StackedWeights& out);
void read_argument(Call& call, const val& js, const registry::Argument& spec, FusedWeights& out);

// The options structs the core's functions take (attentionWithoutWeights takes its Normalization alone).
template <typename T>
inline constexpr bool kIsOptions = false;
template <> inline constexpr bool kIsOptions<AttentionOptions> = true;
template <> inline constexpr bool kIsOptions<SoftmaxOptions> = true;
template <> inline constexpr bool kIsOptions<Normalization> = true;
template <> inline constexpr bool kIsOptions<DropoutOptions> = true;
template <> inline constexpr bool kIsOptions<CompareOptions> = true;
template <> inline constexpr bool kIsOptions<SdpaOptions> = true;
template <> inline constexpr bool kIsOptions<LayerNormOptions> = true;
template <> inline constexpr bool kIsOptions<MatmulOptions> = true;

// The options object: absent is fine (all defaults); anything else must be a plain object. Also reads
// options.path, the path the API planned for the call (web/src/core/api.js), where the struct has one.
template <typename Options>
void read_options(Call& call, const val& js, const std::vector<const registry::Option*>& specs, Options& out);

// What the registry says between two arguments that only JS can see: the stacked forms take H from
// weights.heads, and a given options.heads must say the same. No other function has such a rule.
template <typename... Inputs>
void check_agreement(Call&, const val&, const Inputs&...) {}
void check_agreement(Call& call, const val& options, const Tensor&, const StackedWeights& weights,
                     const AttentionOptions& read);
void check_agreement(Call& call, const val& options, const Tensor&, const StackedWeights& weights, const Tensor&,
                     const AttentionOptions& read);

}  // namespace ap::bindings
