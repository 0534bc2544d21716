#include "matmul.h"

#include "attention/check_helpers.h"
#include "kernels/gemm.h"

namespace ap::bindings {

namespace {
const char* const kFunction = "matmul";
}  // namespace

std::string check_matmul(const Tensor& a, const Tensor& b, bool transpose_b, std::size_t max_bytes) {
  if (a.rank() != 2 && a.rank() != 3) {
    return std::string(kFunction) + ": a has shape " + format_shape(a.shape) + "; expected (M, K) or (B, M, K)";
  }
  const bool batched = a.rank() == 3;
  if (auto message = check_tensor(kFunction, "a", a, batched ? std::vector<std::string>{"B", "M", "K"}
                                                             : std::vector<std::string>{"M", "K"});
      !message.empty()) {
    return message;
  }
  const int k = a.shape.back();
  const int m = a.shape[a.rank() - 2];
  // b: (K, N), or (N, K) transposed; "[K=3, N]" names the size it must share with a.
  const std::string wanted = transpose_b ? "[N, K=" + std::to_string(k) + "]" : "[K=" + std::to_string(k) + ", N]";
  if (b.rank() != 2) return std::string(kFunction) + ": b has shape " + format_shape(b.shape) + "; expected " + wanted;
  if (auto message = check_tensor(kFunction, "b", b, transpose_b ? std::vector<std::string>{"N", "K"}
                                                                 : std::vector<std::string>{"K", "N"});
      !message.empty()) {
    return message;
  }
  if (auto message = check_shape(kFunction, "b", b, transpose_b ? std::vector<int>{-1, k} : std::vector<int>{k, -1},
                                 wanted);
      !message.empty()) {
    return message;
  }
  const int n = transpose_b ? b.shape[0] : b.shape[1];
  const double batch = batched ? a.shape[0] : 1;
  return check_memory(kFunction, "M=" + std::to_string(m) + ", N=" + std::to_string(n),
                      batch * double(m) * double(n), max_bytes);
}

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_b) {
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

}  // namespace ap::bindings
