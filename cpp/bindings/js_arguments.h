// Reading one call's JS arguments into the core's types, by the registry's description of the function (the
// generated attention/registry.h: kArguments, kOptions), so a new function needs no reader of its own:
// - an argument is read by the core parameter's type: a tensor, token ids, a weights object by its keys;
// - the options object by each of the function's options, in registry order, into the options struct's member
//   of that name (visit_members, paths/option_members.h, lists each struct's members by their JS names).
// Missing and null options mean "default". A present option of the wrong JS type, or an unknown string for a
// choice, is an error naming the option, its value and what was expected; ranges (dropout in [0, 1), heads ≥ 1)
// are the core's checks, so every layer words them the same.
#pragma once

#include <emscripten/val.h>

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "attention/attention.h"
#include "attention/registry.h"
#include "js_tensor.h"
#include "paths/matmul.h"
#include "paths/option_members.h"

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

// "options.<name>", made only where a message or a tensor's bookkeeping needs it (not on every call).
struct OptionPath {
  const char* name;
  operator std::string() const { return std::string("options.") + name; }
};

// Reading one present option's value into its member, by the member's type (js_arguments.cpp). A mask's flag
// says its data came as a Uint8Array; a number's flag says it was given.
void read_value(Call&, const val&, const OptionPath& path, const registry::Option&, bool& out, bool*);
void read_value(Call&, const val&, const OptionPath& path, const registry::Option&, int& out, bool*);
void read_value(Call&, const val&, const OptionPath& path, const registry::Option&, float& out, bool* given);
void read_value(Call&, const val&, const OptionPath& path, const registry::Option&, double& out, bool* given);
void read_value(Call&, const val&, const OptionPath& path, const registry::Option&, Normalization& out, bool*);
void read_value(Call&, const val&, const OptionPath& path, const registry::Option&, MaskMode& out, bool*);
void read_value(Call&, const val&, const OptionPath& path, const registry::Option&, WeightLayout& out, bool*);
void read_value(Call&, const val&, const OptionPath& path, const registry::Option&, DropoutRng& out, bool*);
void read_value(Call&, const val&, const OptionPath& path, const registry::Option&, GeluApproximation& out, bool*);
void read_value(Call&, const val&, const OptionPath& path, const registry::Option&, Tensor& out, bool* boolean);
void read_value(Call&, const val&, const OptionPath& path, const registry::Option&, PlannedPath& out, bool*);

// Whether there is an options object to read: absent is fine (all defaults); anything else must be a plain object.
bool options_object(Call& call, const val& js);

// The options object by the function's registry options, in registry order, each into the member of its name;
// then options.path, the path the API planned for the call (web/src/core/api.js), where the struct has one.
template <typename Options>
void read_options(Call& call, const val& js, const std::vector<const registry::Option*>& specs, Options& out) {
  if (!options_object(call, js)) return;
  const auto read = [&](const registry::Option& spec) {
    visit_members(out, [&](const char* name, auto& member, bool* flag = nullptr) {
      if (!call.ok() || std::string_view(name) != spec.name) return;
      const val value = js[js_key(name)];
      if (!value.isUndefined() && !value.isNull()) read_value(call, value, OptionPath{name}, spec, member, flag);
    });
  };
  for (const registry::Option* spec : specs) read(*spec);
  static constexpr registry::Option kPlannedPath{"", "path", "path", ""};
  read(kPlannedPath);
}

// What the registry says between two arguments that only JS can see: the stacked forms take H from
// weights.heads, and a given options.heads must say the same. No other function has such a rule.
template <typename... Inputs>
void check_agreement(Call&, const val&, const Inputs&...) {}
void check_agreement(Call& call, const val& options, const Tensor&, const StackedWeights& weights,
                     const AttentionOptions& read);
void check_agreement(Call& call, const val& options, const Tensor&, const StackedWeights& weights, const Tensor&,
                     const AttentionOptions& read);

}  // namespace ap::bindings
