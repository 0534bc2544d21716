#include "attention/next_token.h"

#include "attention/check_helpers.h"
#include "attention/checks.h"

namespace ap {

namespace unchecked {

// region: next-token-pairs
NextTokenPairs next_token_pairs(const IntTensor& tokens) {
  const int batch = tokens.shape[0];
  const int length = tokens.shape[1];
  const int pairs = length - 1;

  NextTokenPairs result;
  result.contexts.shape = {batch, pairs};  // (B, L−1)
  result.targets.shape = {batch, pairs};   // (B, L−1)
  result.contexts.data.resize(static_cast<std::size_t>(batch) * pairs);
  result.targets.data.resize(static_cast<std::size_t>(batch) * pairs);
  for (int b = 0; b < batch; ++b) {
    const std::int32_t* sequence = tokens.data.data() + static_cast<std::size_t>(b) * length;
    for (int t = 0; t < pairs; ++t) {
      // The model sees tokens 0..t and must predict token t+1.
      result.contexts.data[static_cast<std::size_t>(b) * pairs + t] = sequence[t];
      result.targets.data[static_cast<std::size_t>(b) * pairs + t] = sequence[t + 1];
    }
  }
  return result;
}
// endregion

}  // namespace unchecked

NextTokenPairs next_token_pairs(const IntTensor& tokens) {
  return checked(check_next_token_pairs, unchecked::next_token_pairs, tokens);
}

}  // namespace ap
