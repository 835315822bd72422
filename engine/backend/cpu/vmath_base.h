#pragma once
// Building blocks of the branch-free float/double math (vmath_exp.h, vmath_trig.h,
// vmath_special.h): bit casts, round-to-nearest, 2^n scaling. Everything is inline, selects instead
// of branches, no calls, so a loop applying these per element vectorises under the per-ISA builds.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

// Always inlined: a call left in a loop stops its vectorisation, and an out-of-line copy would be
// one symbol shared by the per-ISA builds (the linker keeps one of them).
#define LUCID_VM inline __attribute__((always_inline))

namespace lucid::cpu::vmath {

LUCID_VM int32_t f2i(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i;
}
LUCID_VM float i2f(int32_t i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
LUCID_VM int64_t d2i(double d) {
  int64_t i;
  std::memcpy(&i, &d, 8);
  return i;
}
LUCID_VM double i2d(int64_t i) {
  double d;
  std::memcpy(&d, &i, 8);
  return d;
}

template <typename T> struct Lim;
template <> struct Lim<float> {
  using I = int32_t;
  static constexpr float inf = std::numeric_limits<float>::infinity();
  static constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  static constexpr float magic = 12582912.0f;  // 1.5 * 2^23: x + magic - magic rounds |x| < 2^22
};
template <> struct Lim<double> {
  using I = int64_t;
  static constexpr double inf = std::numeric_limits<double>::infinity();
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  static constexpr double magic = 6755399441055744.0;  // 1.5 * 2^52
};

LUCID_VM int32_t to_bits(float f) { return f2i(f); }
LUCID_VM int64_t to_bits(double d) { return d2i(d); }
LUCID_VM float from_bits(int32_t i) { return i2f(i); }
LUCID_VM double from_bits(int64_t i) { return i2d(i); }

// Nearest integer (ties to even) of |x| < 2^22 (float) / 2^51 (double), as a value and as an int.
template <typename T>
LUCID_VM T round_int(T x, typename Lim<T>::I& n) {
  const T t = x + Lim<T>::magic;
  n = to_bits(t) - to_bits(Lim<T>::magic);
  return t - Lim<T>::magic;
}

// 2^n for n in the normal range (float -126..127, double -1022..1023).
LUCID_VM float pow2i(int32_t n) { return i2f((n + 127) << 23); }
LUCID_VM double pow2i(int64_t n) { return i2d((n + 1023) << 52); }
// y * 2^n for n from about -2*bias to 2*bias, in two steps so denormal results round once and
// results that overflow give inf.
template <typename T, typename I>
LUCID_VM T ldexp2(T y, I n) {
  const I n1 = n >> 1;
  return y * pow2i(n1) * pow2i(I(n - n1));
}

template <typename T> LUCID_VM T sel(bool c, T a, T b) { return c ? a : b; }
template <typename T> LUCID_VM T copysign_(T mag, T sgn) {
  using I = typename Lim<T>::I;
  constexpr I sb = I(I(1) << (sizeof(T) * 8 - 1));
  return from_bits(I((to_bits(mag) & ~sb) | (to_bits(sgn) & sb)));
}
template <typename T> LUCID_VM T abs_(T x) {
  using I = typename Lim<T>::I;
  constexpr I sb = I(I(1) << (sizeof(T) * 8 - 1));
  return from_bits(I(to_bits(x) & ~sb));
}

// Polynomial c[0] + c[1] x + ... (Horner; the loops are throughput-bound, so latency does not matter).
template <typename T, int N>
LUCID_VM T poly(T x, const T (&c)[N]) {
  T r = c[N - 1];
  for (int i = N - 2; i >= 0; --i) r = r * x + c[i];
  return r;
}
// The same with every step an explicit fma: the same roundings in a vector body and its scalar
// tail (and in hand-written vector twins), whatever GCC's contraction does. FMA builds only (without
// FMA, std::fma is a library call).
template <typename T, int N>
LUCID_VM T poly_fma(T x, const T (&c)[N]) {
  T r = c[N - 1];
#pragma GCC unroll 16
  for (int i = N - 2; i >= 0; --i) r = std::fma(r, x, c[i]);
  return r;
}

// a + b = s + e exactly (|a| >= |b| or a == 0).
template <typename T> LUCID_VM T fast_two_sum(T a, T b, T& e) {
  const T s = a + b;
  e = b - (s - a);
  return s;
}
template <typename T> LUCID_VM T two_sum(T a, T b, T& e) {
  const T s = a + b;
  const T bb = s - a;
  e = (a - (s - bb)) + (b - bb);
  return s;
}

}  // namespace lucid::cpu::vmath
