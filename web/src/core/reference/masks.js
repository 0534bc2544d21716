// The masks of the multi-head functions and crossAttention (docs/api.md "Masks"), checked and applied once for
// the JS reference (the C++ twin is cpp/attention/masks.cpp, same words):
//   options.attnMask        boolean {data: Uint8Array of 0/1, 1 = may attend} or float {data: Float32Array} added
//                           to the scaled scores (−∞ allowed); shape (Tq, Tk), (B, Tq, Tk) or (B, H, Tq, Tk),
//                           each axis its size or 1. Not nn.MultiheadAttention's (B·H, Tq, Tk).
//   options.keyPaddingMask  {data: Uint8Array of 0/1, shape (B, Tk)}, 1 = padding (ignored), as
//                           nn.MultiheadAttention's key_padding_mask.
// Both put −∞ (boolean) or add (float) on the scaled scores, with causal's −∞, before the softmax; a row left
// with no key gets zero weights and a zero context. They combine only with mask: 'neg_inf'.
// Their shape checks are written here, not read from the registry's named axes: an attnMask has 2 to 4 axes,
// each its size or 1 (broadcasting), which a row of fixed named axes does not express.
import { formatShape } from '../tensor.js';
import { checkAnyTensor, fail } from './check-helpers.js';

const present = (mask) => mask !== null && mask !== undefined;

/** True when attnMask or keyPaddingMask is given (the results then include `masked`). */
export const hasMasks = (options) => present(options.attnMask) || present(options.keyPaddingMask);

/** The attnMask's shape as (B, H, Tq, Tk) axes: (Tq, Tk) → [1, 1, Tq, Tk], (B, Tq, Tk) → [B, 1, Tq, Tk]. */
export function asFourAxes(shape) {
  if (shape.length === 2) return [1, 1, ...shape];
  if (shape.length === 3) return [shape[0], 1, shape[1], shape[2]];
  return shape;
}

/** The values of a Uint8Array mask must be 0 or 1. */
function checkZeroOne(fn, name, data, meaning) {
  for (let i = 0; i < data.length; i++) {
    if (data[i] !== 0 && data[i] !== 1) fail(fn, 'value', `${name}.data[${i}]`, data[i], `0 or 1 (${meaning})`);
  }
}

/**
 * Checks attnMask and keyPaddingMask against the call's sizes {B, H, Tq, Tk}, and the mask mode they need.
 * Options without the keys (the backward functions') pass.
 */
export function checkMasks(fn, options, { B, H, Tq, Tk }) {
  const { attnMask, keyPaddingMask } = options;
  if (!present(attnMask) && !present(keyPaddingMask)) return;
  if (options.mask !== 'neg_inf') {
    fail(fn, 'option', 'options.mask', options.mask,
      `'neg_inf' when options.${present(attnMask) ? 'attnMask' : 'keyPaddingMask'} is given (masks apply as −∞ before the softmax)`);
  }
  if (present(attnMask)) {
    const boolean = attnMask.data instanceof Uint8Array;
    // a boolean mask is checked as its 0/1 values; a float mask may hold −∞ (masked out), never NaN or +∞
    checkAnyTensor(fn, 'options.attnMask', boolean ? { shape: attnMask.shape, data: Float32Array.from(attnMask.data) } : attnMask,
      { allowNegativeInfinity: !boolean });
    const { shape } = attnMask;
    const target = [B, H, Tq, Tk];
    const four = asFourAxes(shape);
    if (shape.length < 2 || shape.length > 4 || !four.every((size, axis) => size === 1 || size === target[axis])) {
      fail(fn, 'shape', 'options.attnMask', shape,
        `(Tq, Tk), (B, Tq, Tk) or (B, H, Tq, Tk), each size as in [B=${B}, H=${H}, Tq=${Tq}, Tk=${Tk}] or 1 (not (B·H, Tq, Tk))`);
    }
    if (boolean) checkZeroOne(fn, 'options.attnMask', attnMask.data, 'a boolean mask: 1 = may attend');
    // A float mask's values are scanned here on every backend (it is small, and its Error stays structured
    // where a WASM binding would otherwise scan it): −∞ masks out, NaN and +∞ are refused.
    else {
      for (let i = 0; i < attnMask.data.length; i++) {
        const value = attnMask.data[i];
        if (!Number.isFinite(value) && value !== -Infinity) fail(fn, 'value', `options.attnMask[${i}]`, value, 'finite numbers or -Infinity');
      }
    }
  }
  if (present(keyPaddingMask)) {
    const { shape } = keyPaddingMask;
    if (shape.length !== 2 || shape[0] !== B || shape[1] !== Tk) {
      fail(fn, 'shape', 'options.keyPaddingMask', shape, `[B=${B}, Tk=${Tk}] (B, Tk)`);
    }
    checkZeroOne(fn, 'options.keyPaddingMask', keyPaddingMask.data, '1 = padding, ignored');
  }
}

/**
 * Puts the masks on `masked` (B, H, Tq, Tk), flat, in place: −∞ where a boolean attnMask is 0 or a key is
 * padding, the float attnMask's value added (rounded to float32 as the scores are).
 */
export function applyMasks(masked, { B, H, Tq, Tk }, options) {
  const { attnMask, keyPaddingMask } = options;
  if (present(attnMask)) {
    const [mb, mh, mq, mk] = asFourAxes(attnMask.shape);
    // the mask's stride along each of (B, H, Tq, Tk), 0 where it broadcasts
    const sk = mk === 1 ? 0 : 1;
    const sq = mq === 1 ? 0 : mk;
    const sh = mh === 1 ? 0 : mq * mk;
    const sb = mb === 1 ? 0 : mh * mq * mk;
    const boolean = attnMask.data instanceof Uint8Array;
    for (let b = 0; b < B; b++) {
      for (let h = 0; h < H; h++) {
        for (let i = 0; i < Tq; i++) {
          const row = ((b * H + h) * Tq + i) * Tk;
          const base = b * sb + h * sh + i * sq;
          for (let j = 0; j < Tk; j++) {
            const m = attnMask.data[base + j * sk];
            if (boolean) {
              if (m === 0) masked[row + j] = -Infinity;
            } else {
              masked[row + j] = Math.fround(masked[row + j] + m);
            }
          }
        }
      }
    }
  }
  if (present(keyPaddingMask)) {
    for (let b = 0; b < B; b++) {
      for (let j = 0; j < Tk; j++) {
        if (keyPaddingMask.data[b * Tk + j] === 0) continue;
        for (let r = b * H * Tq; r < (b + 1) * H * Tq; r++) masked[r * Tk + j] = -Infinity;
      }
    }
  }
}
