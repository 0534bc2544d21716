#include "attention/tensor.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ap {

namespace {
std::size_t product(const std::vector<int>& shape) {
  if (shape.empty()) return 0;  // absent
  std::size_t count = 1;
  for (int size : shape) count *= static_cast<std::size_t>(size < 0 ? 0 : size);
  return count;
}
}  // namespace

std::size_t Tensor::element_count() const { return product(shape); }
bool Tensor::all_finite() const {
  return std::all_of(data.begin(), data.end(), [](float v) { return std::isfinite(v); });
}
std::size_t IntTensor::element_count() const { return product(shape); }

Tensor zeros(std::vector<int> shape) {
  Tensor tensor;
  tensor.shape = std::move(shape);
  tensor.data.assign(tensor.element_count(), 0.0f);
  return tensor;
}

std::string format_shape(const std::vector<int>& shape) {
  std::string text = "[";
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    if (axis > 0) text += ", ";
    text += std::to_string(shape[axis]);
  }
  return text + "]";
}

}  // namespace ap
