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

std::string parse_option(const std::string& function, const std::string& argument, const std::string& text,
                         Normalization& out) {
  return parse(normalizations, function, argument, text, out);
}
std::string parse_option(const std::string& function, const std::string& argument, const std::string& text,
                         MaskMode& out) {
  return parse(mask_modes, function, argument, text, out);
}
std::string parse_option(const std::string& function, const std::string& argument, const std::string& text,
                         WeightLayout& out) {
  return parse(layouts, function, argument, text, out);
}

std::string parse_option(const std::string& function, const std::string& argument, const std::string& text,
                         DropoutRng& out) {
  return parse(dropout_rngs, function, argument, text, out);
}

const char* option_name(Normalization value) { return name_of(normalizations, value); }
const char* option_name(MaskMode value) { return name_of(mask_modes, value); }
const char* option_name(WeightLayout value) { return name_of(layouts, value); }
const char* option_name(DropoutRng value) { return name_of(dropout_rngs, value); }

}  // namespace ap
