#pragma once
// The binary ops of the same math (vmath_exp.h, vmath_trig.h) on the CPU binary loop, for float
// (computed in double, rounded once): pow (e^{y log|x|} with C99's special cases), logaddexp and
// logaddexp2 (PyTorch's formula), atan2. Only isa_loops.cpp includes this header.
#include <type_traits>

#include "backend/cpu/vmath_exp.h"
#include "backend/cpu/vmath_special.h"
#include "backend/cpu/vmath_trig.h"
#include "backend/kernels/elementwise.h"
#include "core/scalar.h"

namespace lucid::cpu::vmath {

template <BinaryOp Op, typename M>
constexpr bool has_vec_binary() {
  using B = BinaryOp;
  if constexpr (std::is_same_v<M, float>) return Op == B::Pow || Op == B::LogAddExp || Op == B::LogAddExp2 || Op == B::Atan2;
  else return false;  // double: the scalar loop (its logaddexp cancels near 0 as PyTorch's; pow needs more)
}

// pow for float: |x|^y = e^{y log|x|} in double (exact enough to round once), then C99's cases.
LUCID_VM float pow(float xf, float yf) {
  const double x = xf, y = yf, ax = abs_(x);
  double r = exp(y * log(ax));
  const bool y_int = y == std::trunc(y);
  const bool y_odd = y_int && abs_(y) < 16777216.0 && (int32_t(y) & 1);
  r = (std::signbit(xf) && y_odd) ? -r : r;
  r = (x < 0.0 && x > -Lim<double>::inf && !y_int) ? Lim<double>::nan : r;  // NaN y passes: r is NaN
  r = (x == -1.0 && abs_(y) == Lim<double>::inf) ? 1.0 : r;
  r = (y == 0.0 || x == 1.0) ? 1.0 : r;
  return float(r);
}

// max(a, b) + log1p(e^{-|a-b|}), as PyTorch (and the scalar bm::logaddexp).
LUCID_VM float logaddexp(float af, float bf) {
  const double a = af, b = bf;
  const double m = a > b ? a : b;
  const double d = -abs_(a - b);  // exact for floats
  const double e = exp_for_float(d < -110.0 ? -110.0 : d);
  double fe;
  const double lg = log_m_for_float(1.0 + e, fe) + fe * 0.69314718055994530942;
  const double small = e * (1.0 + e * (-0.5 + e * (1.0 / 3 + e * -0.25)));
  double r = m + (e < 1e-4 ? small : lg);
  r = (a != a || b != b) ? a + b : r;
  r = (a == b && abs_(a) == Lim<double>::inf) ? a : r;
  return float(r);
}
LUCID_VM float logaddexp2(float af, float bf) {
  const double a = af, b = bf;
  const double m = a > b ? a : b;
  const double d = -abs_(a - b);
  const double e = exp_for_float((d < -160.0 ? -160.0 : d) * 0.69314718055994530942);
  double fe;
  const double lg = log_m_for_float(1.0 + e, fe) + fe * 0.69314718055994530942;
  const double small = e * (1.0 + e * (-0.5 + e * (1.0 / 3 + e * -0.25)));
  double r = m + (e < 1e-4 ? small : lg) * kLog2eD;
  r = (a != a || b != b) ? a + b : r;
  r = (a == b && abs_(a) == Lim<double>::inf) ? a : r;
  return float(r);
}
// atan2 for float in double: atan(|y| / |x|), reflected for x with its sign bit set, y's sign.
LUCID_VM float atan2(float yf, float xf) {
  const double y = yf, x = xf, ay = abs_(y), ax = abs_(x);
  double t = atan_pos(ay / ax);
  t = (ay == 0.0 && ax == 0.0) ? 0.0 : t;
  t = (ay == Lim<double>::inf && ax == Lim<double>::inf) ? 0.78539816339744830962 : t;
  t = std::signbit(xf) ? 3.14159265358979323846 - t : t;
  return float(copysign_(t, y));  // NaN: t is NaN
}

template <BinaryOp Op, typename M>
LUCID_VM M apply_vec_binary(M a, M b) {
  using B = BinaryOp;
  if constexpr (Op == B::Pow) return pow(a, b);
  else if constexpr (Op == B::LogAddExp) return logaddexp(a, b);
  else if constexpr (Op == B::LogAddExp2) return logaddexp2(a, b);
  else return atan2(a, b);
}

namespace {
template <typename T, typename M>
void load(const char* p, int64_t stride, int64_t m, M* dst) {
  if (stride == int64_t(sizeof(T))) {
    const T* q = reinterpret_cast<const T*>(p);
    for (int64_t i = 0; i < m; ++i) dst[i] = M(q[i]);
  } else if (stride == 0) {
    const M v = M(*reinterpret_cast<const T*>(p));
    for (int64_t i = 0; i < m; ++i) dst[i] = v;
  } else {
    for (int64_t i = 0; i < m; ++i) dst[i] = M(*reinterpret_cast<const T*>(p + i * stride));
  }
}

// A BinaryLoop of loops.h: operands gathered into blocks of M (contiguous, broadcast scalar or
// strided; half/bfloat16 converted), the math loop over the blocks contiguous so it vectorises.
template <BinaryOp Op, typename T, typename M>
void binary_loop(char** ptrs, const int64_t* strides, int64_t n, const Scalar&) {
  constexpr int64_t kBlock = 512;
  alignas(64) M A[kBlock];
  alignas(64) M Bv[kBlock];
  for (int64_t s = 0; s < n; s += kBlock) {
    const int64_t m = n - s < kBlock ? n - s : kBlock;
    const char* pa = ptrs[1] + s * strides[1];
    const char* pb = ptrs[2] + s * strides[2];
    load<T>(pa, strides[1], m, A);
    load<T>(pb, strides[2], m, Bv);
    for (int64_t i = 0; i < m; ++i) A[i] = apply_vec_binary<Op, M>(A[i], Bv[i]);
    char* po = ptrs[0] + s * strides[0];
    for (int64_t i = 0; i < m; ++i) *reinterpret_cast<T*>(po + i * strides[0]) = T(A[i]);
  }
}
}  // namespace

}  // namespace lucid::cpu::vmath
