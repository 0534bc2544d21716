// The fast path's matmul (docs/api.md, "Fast path"): a (M, K) or (B, M, K); b (K, N), or (N, K) with
// transposeB → output (M, N) or (B, M, N). It is no curriculum step, so the core has no check_* for it;
// its check lives here, reading the registry's axes for a and b (AxisSizes, as the core's checks do), so the
// messages are those of checkMatmul in web/src/core/reference/checks.js.
#pragma once

#include <cstddef>
#include <string>

#include "attention/tensor.h"

namespace ap::paths {

struct MatmulOptions {
  bool transpose_b = false;  // options.transposeB: b is (N, K), used as bᵀ
};

// "" or the message. max_bytes bounds the output.
std::string check_matmul(const Tensor& a, const Tensor& b, const MatmulOptions& options, std::size_t max_bytes);

// a·b (or a·bᵀ) with the kernels' default GEMM variant; b is shared by every batch entry.
Tensor matmul(const Tensor& a, const Tensor& b, const MatmulOptions& options);

}  // namespace ap::paths
