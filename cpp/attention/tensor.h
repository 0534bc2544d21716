// Tensors as the whole API sees them: a shape and a flat row-major float32 buffer.
// No Eigen here on purpose: this header is included everywhere (bindings, tests); the math
// views live in eigen_views.h, included only by the core's .cpp files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ap {

// A row-major float32 tensor. An empty `shape` means "absent": an optional argument that was not
// given, or an intermediate a function does not produce (docs/api.md, "Tensors").
struct Tensor {
  std::vector<int> shape;
  std::vector<float> data;

  bool present() const { return !shape.empty(); }
  int rank() const { return static_cast<int>(shape.size()); }
  // Number of elements the shape describes; 0 for an absent tensor.
  std::size_t element_count() const;
  // No NaN and no ±∞ (an absent tensor is finite).
  bool all_finite() const;
};

// Token ids for step 1, same conventions as Tensor.
struct IntTensor {
  std::vector<int> shape;
  std::vector<std::int32_t> data;

  bool present() const { return !shape.empty(); }
  int rank() const { return static_cast<int>(shape.size()); }
  std::size_t element_count() const;
};

// A tensor of zeros with the given shape.
Tensor zeros(std::vector<int> shape);

// "[2, 5, 3]": how shapes are written in error messages.
std::string format_shape(const std::vector<int>& shape);

}  // namespace ap
