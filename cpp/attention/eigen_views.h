// Internal: Eigen views of Tensor data, for the core's .cpp files only (keeps Eigen out of the
// public headers, the bindings and the tests). All views are row-major, matching the tensors.
#pragma once

#include <cstddef>

#include <Eigen/Core>

#include "attention/tensor.h"

namespace ap {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixView = Eigen::Map<Matrix>;
using ConstMatrixView = Eigen::Map<const Matrix>;
using ConstRowVectorView = Eigen::Map<const RowVector>;

// The (rows, cols) matrix that starts `offset` floats into a tensor's data, e.g. batch b of a
// (B, T, C) tensor is matrix_view(x, b·T·C, T, C).
inline MatrixView matrix_view(Tensor& tensor, std::size_t offset, int rows, int cols) {
  return MatrixView(tensor.data.data() + offset, rows, cols);
}
inline ConstMatrixView matrix_view(const Tensor& tensor, std::size_t offset, int rows, int cols) {
  return ConstMatrixView(tensor.data.data() + offset, rows, cols);
}

}  // namespace ap
