#include "attention/masks.h"

#include <cstddef>
#include <limits>

#include "attention/check_helpers.h"

namespace ap {

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The attn_mask's shape as (B, H, Tq, Tk) axes: (Tq, Tk) -> [1, 1, Tq, Tk], (B, Tq, Tk) -> [B, 1, Tq, Tk].
std::vector<int> as_four_axes(const std::vector<int>& shape) {
  if (shape.size() == 2) return {1, 1, shape[0], shape[1]};
  if (shape.size() == 3) return {shape[0], 1, shape[1], shape[2]};
  return shape;
}

// A 0/1 mask: the first other value's message, or "".
std::string check_zero_one(const std::string& function, const char* argument, const Tensor& mask, const char* meaning) {
  for (std::size_t i = 0; i < mask.data.size(); ++i) {
    if (mask.data[i] != 0.0f && mask.data[i] != 1.0f) {
      return function + ": " + argument + ".data[" + std::to_string(i) + "] is " + format_number(mask.data[i]) +
             "; expected 0 or 1 (" + meaning + ")";
    }
  }
  return "";
}
}  // namespace

bool has_masks(const AttentionOptions& options) { return options.attn_mask.present() || options.key_padding_mask.present(); }

std::string check_masks(const std::string& function, const AttentionOptions& options, int batch, int heads, int rows,
                        int cols) {
  if (!has_masks(options)) return "";
  if (options.mask != MaskMode::NegInf) {
    return function + ": options.mask='" + option_name(options.mask) + "'; expected 'neg_inf' when options." +
           (options.attn_mask.present() ? "attnMask" : "keyPaddingMask") +
           " is given (masks apply as −∞ before the softmax)";
  }
  if (options.attn_mask.present()) {
    const Tensor& mask = options.attn_mask;
    // a boolean mask holds 0/1; a float mask may hold −∞ (masked out), never NaN or +∞
    if (auto message = check_tensor_any_rank(function, "options.attnMask", mask, !options.attn_mask_boolean); !message.empty()) {
      return message;
    }
    const std::vector<int> target = {batch, heads, rows, cols};
    bool fits = mask.rank() >= 2 && mask.rank() <= 4;
    const std::vector<int> four = fits ? as_four_axes(mask.shape) : std::vector<int>{};
    for (std::size_t a = 0; fits && a < 4; ++a) fits = four[a] == 1 || four[a] == target[a];
    if (!fits) {
      return function + ": options.attnMask has shape " + format_shape(mask.shape) +
             "; expected (Tq, Tk), (B, Tq, Tk) or (B, H, Tq, Tk), each size as in [B=" + std::to_string(batch) +
             ", H=" + std::to_string(heads) + ", Tq=" + std::to_string(rows) + ", Tk=" + std::to_string(cols) +
             "] or 1 (not (B·H, Tq, Tk))";
    }
    if (options.attn_mask_boolean) {
      if (auto message = check_zero_one(function, "options.attnMask", mask, "a boolean mask: 1 = may attend"); !message.empty()) {
        return message;
      }
    }
  }
  if (options.key_padding_mask.present()) {
    const Tensor& mask = options.key_padding_mask;
    if (mask.rank() != 2 || mask.shape[0] != batch || mask.shape[1] != cols) {
      return function + ": options.keyPaddingMask has shape " + format_shape(mask.shape) + "; expected [B=" +
             std::to_string(batch) + ", Tk=" + std::to_string(cols) + "] (B, Tk)";
    }
    return check_zero_one(function, "options.keyPaddingMask", mask, "1 = padding, ignored");
  }
  return "";
}

void apply_masks(Tensor& masked, const AttentionOptions& options) {
  const int batch = masked.shape[0], heads = masked.shape[1], rows = masked.shape[2], cols = masked.shape[3];
  if (options.attn_mask.present()) {
    const Tensor& mask = options.attn_mask;
    const std::vector<int> four = as_four_axes(mask.shape);
    // the mask's stride along each of (B, H, Tq, Tk), 0 where it broadcasts
    const std::size_t sk = four[3] == 1 ? 0 : 1;
    const std::size_t sq = four[2] == 1 ? 0 : static_cast<std::size_t>(four[3]);
    const std::size_t sh = four[1] == 1 ? 0 : static_cast<std::size_t>(four[2]) * four[3];
    const std::size_t sb = four[0] == 1 ? 0 : static_cast<std::size_t>(four[1]) * four[2] * four[3];
    for (int b = 0; b < batch; ++b) {
      for (int h = 0; h < heads; ++h) {
        for (int i = 0; i < rows; ++i) {
          float* row = masked.data.data() + ((static_cast<std::size_t>(b) * heads + h) * rows + i) * cols;
          const float* m = mask.data.data() + b * sb + h * sh + i * sq;
          for (int j = 0; j < cols; ++j) {
            const float value = m[j * sk];
            if (options.attn_mask_boolean) {
              if (value == 0.0f) row[j] = kNegInf;
            } else {
              row[j] += value;
            }
          }
        }
      }
    }
  }
  if (options.key_padding_mask.present()) {
    for (int b = 0; b < batch; ++b) {
      for (int j = 0; j < cols; ++j) {
        if (options.key_padding_mask.data[static_cast<std::size_t>(b) * cols + j] == 0.0f) continue;
        for (std::size_t r = static_cast<std::size_t>(b) * heads * rows; r < static_cast<std::size_t>(b + 1) * heads * rows; ++r) {
          masked.data[r * cols + j] = kNegInf;
        }
      }
    }
  }
}

}  // namespace ap
