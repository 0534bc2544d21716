// Internal: the masks of the multi-head functions and cross_attention (docs/api.md "Masks"), checked and applied
// once (the JS twin is web/src/core/reference/masks.js, same words):
//   options.attn_mask         (Tq, Tk), (B, Tq, Tk) or (B, H, Tq, Tk), each axis its size or 1; boolean (0/1 as
//                             floats, 1 = may attend: −∞ where 0) or float (added to the scaled scores, −∞ allowed).
//                             Not nn.MultiheadAttention's (B·H, Tq, Tk).
//   options.key_padding_mask  (B, Tk), 0/1 as floats, 1 = padding: −∞ in that key's column.
// They apply with causal's −∞, under MaskMode::NegInf only; a row left with no key gets zero weights.
#pragma once

#include <string>

#include "attention/options.h"
#include "attention/tensor.h"

namespace ap {

// attn_mask or key_padding_mask is given: the teaching code applies them, and `masked` is a result.
bool has_masks(const AttentionOptions& options);

// "" when the masks fit a call of (B, H, Tq, Tk) = (batch, heads, rows, cols), else the message.
std::string check_masks(const std::string& function, const AttentionOptions& options, int batch, int heads, int rows,
                        int cols);

// Puts the masks on `masked` (B, H, Tq, Tk), in place: −∞ where a boolean attn_mask is 0 or a key is padding,
// a float attn_mask's value added.
void apply_masks(Tensor& masked, const AttentionOptions& options);

}  // namespace ap
