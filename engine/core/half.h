#pragma once
// float16 and bfloat16 storage types. Arithmetic converts to float (as PyTorch does on CPU);
// conversions are bit-exact round-to-nearest-even and usable from CUDA code too.
#include <cstdint>
#include <cstring>

#include "core/macros.h"

namespace lucid {

namespace detail {
LUCID_HD inline uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
LUCID_HD inline float bits_f32(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

LUCID_HD inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_f32(sign | 0x7f800000u | (mant << 13));  // inf / nan
  if (exp == 0) {
    if (mant == 0) return bits_f32(sign);
    // subnormal: normalise
    int e = -1;
    do { ++e; mant <<= 1; } while ((mant & 0x400u) == 0);
    mant &= 0x3ffu;
    return bits_f32(sign | uint32_t(127 - 15 - e) << 23 | (mant << 13));
  }
  return bits_f32(sign | (exp + 112) << 23 | (mant << 13));
}

LUCID_HD inline uint16_t float_to_half(float f) {
  const uint32_t x = f32_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return uint16_t(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
  if (ax >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to inf
  if (ax < 0x38800000u) {                                    // subnormal or zero in half
    if (ax < 0x33000000u) return uint16_t(sign);              // < 2^-25 rounds to 0
    const uint32_t e = ax >> 23;
    const uint32_t m = (ax & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14 + (113 - e) - 1
    uint32_t r = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return uint16_t(sign | r);
  }
  uint32_t r = ((ax - 0x38000000u) >> 13);
  const uint32_t rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return uint16_t(sign | r);
}

LUCID_HD inline float bf16_to_float(uint16_t b) { return bits_f32(uint32_t(b) << 16); }

LUCID_HD inline uint16_t float_to_bf16(float f) {
  const uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // quiet nan
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return uint16_t((x + rounding) >> 16);
}
}  // namespace detail

struct alignas(2) Half {
  uint16_t x;
  Half() = default;
  LUCID_HD constexpr Half(uint16_t bits, bool) : x(bits) {}
  LUCID_HD Half(float f) : x(detail::float_to_half(f)) {}
  LUCID_HD operator float() const { return detail::half_to_float(x); }
  static LUCID_HD Half from_bits(uint16_t b) { return Half(b, true); }
};

struct alignas(2) BFloat16 {
  uint16_t x;
  BFloat16() = default;
  LUCID_HD constexpr BFloat16(uint16_t bits, bool) : x(bits) {}
  LUCID_HD BFloat16(float f) : x(detail::float_to_bf16(f)) {}
  LUCID_HD operator float() const { return detail::bf16_to_float(x); }
  static LUCID_HD BFloat16 from_bits(uint16_t b) { return BFloat16(b, true); }
};

}  // namespace lucid
