#include "attention/compare.h"

#include <cmath>

#include "attention/check_helpers.h"
#include "attention/checks.h"

namespace ap {

namespace unchecked {

// region: compare
Comparison compare(const Tensor& actual, const Tensor& expected, const CompareOptions& options) {
  Comparison result;
  for (std::size_t i = 0; i < actual.data.size(); ++i) {
    const double a = actual.data[i], e = expected.data[i];
    const double error = std::fabs(a - e);
    result.max_abs_error = std::fmax(result.max_abs_error, error);
    if (e != 0.0) result.max_rel_error = std::fmax(result.max_rel_error, error / std::fabs(e));
    // The same tolerance as torch.allclose and numpy.isclose: absolute plus relative to the expected.
    if (!(error <= options.atol + options.rtol * std::fabs(e))) {
      if (result.allclose) result.first_mismatch = static_cast<std::int64_t>(i);
      result.allclose = false;
    }
  }
  return result;
}
// endregion

}  // namespace unchecked

Comparison compare(const Tensor& actual, const Tensor& expected, const CompareOptions& options) {
  return checked(check_compare, unchecked::compare, actual, expected, options);
}

}  // namespace ap
