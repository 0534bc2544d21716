// Step 1. Next-token framing: every prefix of a sequence is a training example.
#pragma once

#include "attention/results.h"
#include "attention/tensor.h"

namespace ap {

// tokens: (B, L) int32, L ≥ 2 → contexts (B, L−1), targets (B, L−1).
// Position t's context is tokens[b, 0..t] (read it as contexts[b, 0..t]); its target is tokens[b, t+1].
NextTokenPairs next_token_pairs(const IntTensor& tokens);
namespace unchecked {
// The step above on arguments that passed its check (checks.h): what it and the bindings run.
NextTokenPairs next_token_pairs(const IntTensor& tokens);
}  // namespace unchecked

}  // namespace ap
