// The handful of 4-lane float operations the fast kernels are written in (ggml's approach): one
// wasm_simd128 version and one scalar version with the same names, so each kernel is written once.
// The SIMD WASM module gets the first; the baseline WASM module and the native build get the second.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace ap::kernels::simd {

constexpr int kLanes = 4;

#if defined(__wasm_simd128__)

constexpr const char* kVocabulary = "wasm_simd128";
using f32x4 = v128_t;

inline f32x4 load(const float* p) { return wasm_v128_load(p); }
inline void store(float* p, f32x4 v) { wasm_v128_store(p, v); }
inline f32x4 splat(float x) { return wasm_f32x4_splat(x); }
inline f32x4 zero() { return wasm_f32x4_splat(0.0f); }
inline f32x4 add(f32x4 a, f32x4 b) { return wasm_f32x4_add(a, b); }
inline f32x4 sub(f32x4 a, f32x4 b) { return wasm_f32x4_sub(a, b); }
inline f32x4 mul(f32x4 a, f32x4 b) { return wasm_f32x4_mul(a, b); }
inline f32x4 div(f32x4 a, f32x4 b) { return wasm_f32x4_div(a, b); }
// a·b + c as a multiply then an add: clang 14 cannot emit the standard relaxed-SIMD madd.
inline f32x4 mul_add(f32x4 a, f32x4 b, f32x4 c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }
// Not wasm_f32x4_max: that one propagates NaN with extra work; the inputs here are never NaN.
inline f32x4 max(f32x4 a, f32x4 b) { return wasm_f32x4_pmax(a, b); }
inline float horizontal_sum(f32x4 v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}
inline float horizontal_max(f32x4 v) {
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}
// Rows a, b, c, d of a 4×4 block become its columns (the GEMM's packing: rows of A into panels).
inline void transpose(f32x4& a, f32x4& b, f32x4& c, f32x4& d) {
  const f32x4 ab_low = wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), ab_high = wasm_i32x4_shuffle(a, b, 2, 6, 3, 7);
  const f32x4 cd_low = wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), cd_high = wasm_i32x4_shuffle(c, d, 2, 6, 3, 7);
  a = wasm_i64x2_shuffle(ab_low, cd_low, 0, 2);
  b = wasm_i64x2_shuffle(ab_low, cd_low, 1, 3);
  c = wasm_i64x2_shuffle(ab_high, cd_high, 0, 2);
  d = wasm_i64x2_shuffle(ab_high, cd_high, 1, 3);
}
// (a0 b0 a1 b1) and (a2 b2 a3 b3).
inline f32x4 interleave_low(f32x4 a, f32x4 b) { return wasm_i32x4_shuffle(a, b, 0, 4, 1, 5); }
inline f32x4 interleave_high(f32x4 a, f32x4 b) { return wasm_i32x4_shuffle(a, b, 2, 6, 3, 7); }
// p[0..2) = lanes 0, 1 (low) or lanes 2, 3 (high).
inline void store_low_pair(float* p, f32x4 v) { wasm_v128_store64_lane(p, v, 0); }
inline void store_high_pair(float* p, f32x4 v) { wasm_v128_store64_lane(p, v, 1); }
inline f32x4 floor(f32x4 v) { return wasm_f32x4_floor(v); }
inline f32x4 clamp(f32x4 v, float lo, float hi) {
  return wasm_f32x4_pmin(wasm_f32x4_pmax(v, wasm_f32x4_splat(lo)), wasm_f32x4_splat(hi));
}
// 2^n for integral n in [-126, 127], built from the exponent bits.
inline f32x4 exp2_integral(f32x4 n) {
  v128_t biased = wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127));
  return wasm_i32x4_shl(biased, 23);
}
// x + 1.5·2^23, rounded: for |x| < 2^22 the sum's low mantissa bits hold n = round(x) (ties to even), and
// (sum − 1.5·2^23) is n as a float. Rounding this way is 1 add where floor is 2 instructions and
// trunc_sat's NaN and overflow handling ~7 in V8's x64 code.
constexpr float kRoundingShift = 12582912.0f;
inline f32x4 add_rounding_shift(f32x4 x) { return wasm_f32x4_add(x, wasm_f32x4_splat(kRoundingShift)); }
// 2^n for n in [-127, 127] (2^-127 as exactly 0) from add_rounding_shift(n): n's bits moved into the
// exponent field (the shift drops the sum's own exponent bits) plus the bias.
inline f32x4 exp2_of_shifted(f32x4 shifted) {
  return wasm_i32x4_add(wasm_i32x4_shl(shifted, 23), wasm_i32x4_splat(127 << 23));
}
// v where v ≥ lo, 0 elsewhere.
inline f32x4 zero_below(f32x4 v, f32x4 x, float lo) {
  return wasm_v128_and(v, wasm_f32x4_ge(x, wasm_f32x4_splat(lo)));
}

#else

constexpr const char* kVocabulary = "scalar";
struct f32x4 {
  float lane[kLanes];
};

inline f32x4 load(const float* p) {
  f32x4 v;
  std::memcpy(v.lane, p, sizeof v.lane);
  return v;
}
inline void store(float* p, f32x4 v) { std::memcpy(p, v.lane, sizeof v.lane); }
inline f32x4 splat(float x) { return {{x, x, x, x}}; }
inline f32x4 zero() { return splat(0.0f); }
inline f32x4 add(f32x4 a, f32x4 b) {
  for (int i = 0; i < kLanes; ++i) a.lane[i] += b.lane[i];
  return a;
}
inline f32x4 sub(f32x4 a, f32x4 b) {
  for (int i = 0; i < kLanes; ++i) a.lane[i] -= b.lane[i];
  return a;
}
inline f32x4 mul(f32x4 a, f32x4 b) {
  for (int i = 0; i < kLanes; ++i) a.lane[i] *= b.lane[i];
  return a;
}
inline f32x4 div(f32x4 a, f32x4 b) {
  for (int i = 0; i < kLanes; ++i) a.lane[i] /= b.lane[i];
  return a;
}
inline f32x4 mul_add(f32x4 a, f32x4 b, f32x4 c) {
  for (int i = 0; i < kLanes; ++i) c.lane[i] += a.lane[i] * b.lane[i];
  return c;
}
inline f32x4 max(f32x4 a, f32x4 b) {
  for (int i = 0; i < kLanes; ++i) a.lane[i] = a.lane[i] < b.lane[i] ? b.lane[i] : a.lane[i];
  return a;
}
inline float horizontal_sum(f32x4 v) { return (v.lane[0] + v.lane[1]) + (v.lane[2] + v.lane[3]); }
inline float horizontal_max(f32x4 v) {
  const float left = v.lane[0] < v.lane[1] ? v.lane[1] : v.lane[0];
  const float right = v.lane[2] < v.lane[3] ? v.lane[3] : v.lane[2];
  return left < right ? right : left;
}
inline void transpose(f32x4& a, f32x4& b, f32x4& c, f32x4& d) {
  f32x4* rows[kLanes] = {&a, &b, &c, &d};
  f32x4 columns[kLanes];
  for (int i = 0; i < kLanes; ++i)
    for (int j = 0; j < kLanes; ++j) columns[j].lane[i] = rows[i]->lane[j];
  for (int i = 0; i < kLanes; ++i) *rows[i] = columns[i];
}
inline f32x4 interleave_low(f32x4 a, f32x4 b) { return {{a.lane[0], b.lane[0], a.lane[1], b.lane[1]}}; }
inline f32x4 interleave_high(f32x4 a, f32x4 b) { return {{a.lane[2], b.lane[2], a.lane[3], b.lane[3]}}; }
inline void store_low_pair(float* p, f32x4 v) { std::memcpy(p, v.lane, 2 * sizeof(float)); }
inline void store_high_pair(float* p, f32x4 v) { std::memcpy(p, v.lane + 2, 2 * sizeof(float)); }
inline f32x4 floor(f32x4 v) {
  for (float& x : v.lane) x = std::floor(x);
  return v;
}
inline f32x4 clamp(f32x4 v, float lo, float hi) {
  for (float& x : v.lane) x = x < lo ? lo : (x > hi ? hi : x);
  return v;
}
inline f32x4 exp2_integral(f32x4 n) {
  for (float& x : n.lane) {
    uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(x) + 127) << 23;
    std::memcpy(&x, &bits, sizeof x);
  }
  return n;
}
constexpr float kRoundingShift = 12582912.0f;
inline f32x4 add_rounding_shift(f32x4 x) {
  for (float& v : x.lane) v = v + kRoundingShift;
  return x;
}
inline f32x4 exp2_of_shifted(f32x4 shifted) {
  for (float& x : shifted.lane) {
    const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(x - kRoundingShift) + 127) << 23;
    std::memcpy(&x, &bits, sizeof x);
  }
  return shifted;
}
inline f32x4 zero_below(f32x4 v, f32x4 x, float lo) {
  for (int i = 0; i < kLanes; ++i) v.lane[i] = x.lane[i] >= lo ? v.lane[i] : 0.0f;
  return v;
}

#endif

// e^x to about 2 ulp (Cephes' expf: x = n·ln2 + r, e^r by a degree-6 polynomial, 2^n from the
// exponent bits). Inputs below −87 (−∞ included: the causal mask) give exactly 0, which a
// softmax needs for masked keys; e^−87 ≈ 1.6e-38 is already at the edge of float's normal range.
inline f32x4 exp(f32x4 x) {
  constexpr float kLowest = -87.0f;
  f32x4 clamped = clamp(x, kLowest, 88.3762626647949f);
  f32x4 n = floor(mul_add(clamped, splat(1.44269504088896341f), splat(0.5f)));
  // r = x − n·ln2, with ln2 split in two so n·ln2 is exact in float.
  f32x4 r = sub(clamped, mul(n, splat(0.693359375f)));
  r = sub(r, mul(n, splat(-2.12194440e-4f)));
  f32x4 p = splat(1.9875691500e-4f);
  p = mul_add(p, r, splat(1.3981999507e-3f));
  p = mul_add(p, r, splat(8.3334519073e-3f));
  p = mul_add(p, r, splat(4.1665795894e-2f));
  p = mul_add(p, r, splat(1.6666665459e-1f));
  p = mul_add(p, r, splat(5.0000001201e-1f));
  f32x4 e_r = add(mul_add(p, mul(r, r), r), splat(1.0f));
  return zero_below(mul(e_r, exp2_integral(n)), x, kLowest);
}

inline float exp(float x) {
  f32x4 v = exp(splat(x));
  float lanes[kLanes];
  store(lanes, v);
  return lanes[0];
}

}  // namespace ap::kernels::simd
