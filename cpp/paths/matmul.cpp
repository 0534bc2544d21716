#include "paths/matmul.h"

#include "attention/check_helpers.h"
#include "attention/registry_rules.h"
#include "kernels/gemm.h"

namespace ap::paths {

namespace {
const char* const kFunction = "matmul";
}  // namespace

std::string check_matmul(const Tensor& a, const Tensor& b, const MatmulOptions& options, std::size_t max_bytes) {
  // a (B, M, K), or (M, K) without its batch axis; b (K, N), or (N, K) transposed: the registry's axes, so a
  // wrong b reads "expected [K=3, N]" with the size it must share with a.
  if (a.rank() != 2 && a.rank() != 3) {
    return std::string(kFunction) + ": a has shape " + format_shape(a.shape) + "; expected (M, K) or (B, M, K)";
  }
  AxisSizes sizes(kFunction);
  AxisSizes::Read read_a;
  read_a.unbatched = a.rank() == 2;
  if (auto message = sizes.check("a", a, read_a); !message.empty()) return message;
  AxisSizes::Read read_b;
  read_b.transposed = options.transpose_b;
  if (auto message = sizes.check("b", b, read_b); !message.empty()) return message;
  const double batch = read_a.unbatched ? 1 : sizes["B"];
  return check_memory(kFunction, "M=" + std::to_string(sizes["M"]) + ", N=" + std::to_string(sizes["N"]),
                      estimate_floats(kFunction, "teaching", {{"batch", batch}, {"M", sizes["M"]}, {"N", sizes["N"]}}),
                      max_bytes);
}

Tensor matmul(const Tensor& a, const Tensor& b, const MatmulOptions& options) {
  const bool transpose_b = options.transpose_b;
  const int k = a.shape.back();
  const int n = transpose_b ? b.shape[0] : b.shape[1];
  // Every batch entry multiplies the same b, so (B, M, K) is one (B·M, K) GEMM.
  const int rows = static_cast<int>(a.element_count() / static_cast<std::size_t>(k));
  std::vector<int> shape = a.shape;
  shape.back() = n;
  Tensor output = zeros(shape);
  kernels::matmul(a.data.data(), b.data.data(), output.data.data(), kernels::MatmulShape::dense(rows, k, n, transpose_b));
  return output;
}

}  // namespace ap::paths
