#include "attention/options.h"

namespace ap {

namespace {
// One table per option: the JS spelling and the enum value, in the order the message lists them.
template <typename Enum>
struct Choice {
  const char* name;
  Enum value;
};

constexpr Choice<Normalization> normalizations[] = {
    {"stable", Normalization::Stable}, {"naive", Normalization::Naive}, {"sum", Normalization::Sum}};
constexpr Choice<MaskMode> mask_modes[] = {
    {"neg_inf", MaskMode::NegInf}, {"renormalize", MaskMode::Renormalize}, {"zero", MaskMode::Zero}};
constexpr Choice<WeightLayout> layouts[] = {{"matrix", WeightLayout::Matrix}, {"linear", WeightLayout::Linear}};
constexpr Choice<DropoutRng> dropout_rngs[] = {{"counter", DropoutRng::Counter}, {"torch", DropoutRng::Torch}};
constexpr Choice<GeluApproximation> gelu_forms[] = {{"none", GeluApproximation::None}, {"tanh", GeluApproximation::Tanh}};

// Each option's table, found by its enum type.
constexpr const auto& choices_of(Normalization) { return normalizations; }
constexpr const auto& choices_of(MaskMode) { return mask_modes; }
constexpr const auto& choices_of(WeightLayout) { return layouts; }
constexpr const auto& choices_of(DropoutRng) { return dropout_rngs; }
constexpr const auto& choices_of(GeluApproximation) { return gelu_forms; }

// "'a', 'b' or 'c'"
template <typename Enum, std::size_t N>
std::string list_choices(const Choice<Enum> (&choices)[N]) {
  std::string text;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) text += (i + 1 == N) ? " or " : ", ";
    text += std::string("'") + choices[i].name + "'";
  }
  return text;
}

template <typename Enum, std::size_t N>
std::string parse(const Choice<Enum> (&choices)[N], const std::string& function, const std::string& argument,
                  const std::string& text, Enum& out) {
  for (const auto& choice : choices) {
    if (text == choice.name) {
      out = choice.value;
      return "";
    }
  }
  return function + ": " + argument + "='" + text + "'; expected " + list_choices(choices);
}

template <typename Enum, std::size_t N>
const char* name_of(const Choice<Enum> (&choices)[N], Enum value) {
  for (const auto& choice : choices) {
    if (choice.value == value) return choice.name;
  }
  return "?";
}
}  // namespace

template <typename Enum>
std::string parse_option(const std::string& function, const std::string& argument, const std::string& text, Enum& out) {
  return parse(choices_of(out), function, argument, text, out);
}
template <typename Enum>
const char* option_name(Enum value) {
  return name_of(choices_of(value), value);
}
template <typename Enum>
std::string option_choices(Enum any) {
  return list_choices(choices_of(any));
}

// The option enums: one instantiation each, here beside their tables.
template std::string parse_option(const std::string&, const std::string&, const std::string&, Normalization&);
template std::string parse_option(const std::string&, const std::string&, const std::string&, MaskMode&);
template std::string parse_option(const std::string&, const std::string&, const std::string&, WeightLayout&);
template std::string parse_option(const std::string&, const std::string&, const std::string&, DropoutRng&);
template std::string parse_option(const std::string&, const std::string&, const std::string&, GeluApproximation&);

template const char* option_name(Normalization);
template const char* option_name(MaskMode);
template const char* option_name(WeightLayout);
template const char* option_name(DropoutRng);
template const char* option_name(GeluApproximation);

template std::string option_choices(Normalization);
template std::string option_choices(MaskMode);
template std::string option_choices(WeightLayout);
template std::string option_choices(DropoutRng);
template std::string option_choices(GeluApproximation);

}  // namespace ap
