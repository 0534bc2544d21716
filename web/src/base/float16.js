// IEEE binary16 (float16) conversions, in one place for the safetensors writer (train/) and the streaming
// checkpoint reader (gpt2/).

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** The IEEE binary16 bits of x, rounded to nearest even as torch's .half() (overflow → ±Infinity, NaN kept). */
export function float16Bits(x) {
  F32[0] = x;
  const bits = U32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    // a subnormal float16: the 24-bit significand shifted to units of 2⁻²⁴
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    let half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && (half & 1))) half++;
    return sign | half;
  }
  let half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1))) half++; // a carry into the exponent is still right
  return sign | half;
}

/** The number binary16 bits stand for (exact in float32; subnormals, infinities and NaN included). */
export function float16Value(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >>> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

let halfTable = null;
/** Every binary16 bit pattern's value, built once (widening a tensor is then one lookup per value). */
export function float16Table() {
  if (!halfTable) {
    halfTable = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) halfTable[h] = float16Value(h);
  }
  return halfTable;
}
