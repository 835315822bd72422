#pragma once
// Scalar math of the unary op family, shared by the CPU loops and the CUDA kernels so both compute
// the same function. M is the arithmetic type (float for half/bfloat16, the type itself otherwise).
#include <math.h>

#include <type_traits>

#include "backend/kernels/elementwise.h"
#include "core/macros.h"

namespace lucid {

namespace um {
#define LUCID_UM_FN(name)                                              \
  template <typename M>                                                \
  LUCID_HD inline M name(M x) {                                        \
    if constexpr (std::is_same_v<M, float>) return ::name##f(x);       \
    else if constexpr (std::is_same_v<M, double>) return ::name(x);    \
    else return M(::name(double(x)));                                  \
  }
LUCID_UM_FN(exp)
LUCID_UM_FN(exp2)
LUCID_UM_FN(expm1)
LUCID_UM_FN(log)
LUCID_UM_FN(log2)
LUCID_UM_FN(log10)
LUCID_UM_FN(log1p)
LUCID_UM_FN(sqrt)
LUCID_UM_FN(sin)
LUCID_UM_FN(cos)
LUCID_UM_FN(tan)
LUCID_UM_FN(asin)
LUCID_UM_FN(acos)
LUCID_UM_FN(atan)
LUCID_UM_FN(sinh)
LUCID_UM_FN(cosh)
LUCID_UM_FN(tanh)
LUCID_UM_FN(asinh)
LUCID_UM_FN(acosh)
LUCID_UM_FN(atanh)
LUCID_UM_FN(erf)
LUCID_UM_FN(erfc)
LUCID_UM_FN(floor)
LUCID_UM_FN(ceil)
LUCID_UM_FN(trunc)
LUCID_UM_FN(lgamma)
LUCID_UM_FN(nearbyint)
#undef LUCID_UM_FN

constexpr double kPi = 3.14159265358979323846;

// Inverse error function as PyTorch's calc_erfinv: a rational first guess, then two Newton steps. On
// the GPU, CUDA's erfinvf / erfinv, as PyTorch's CUDA kernel (the Newton steps' erf and exp made the
// kernel 2x slower than PyTorch's there).
template <typename T>
LUCID_HD inline T erfinv(T y) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) return ::erfinvf(y);
  else if constexpr (std::is_same_v<T, double>) return ::erfinv(y);
#endif
  const T a[4] = {T(0.886226899), T(-1.645349621), T(0.914624893), T(-0.140543331)};
  const T b[4] = {T(-2.118377725), T(1.442710462), T(-0.329097515), T(0.012229801)};
  const T c[4] = {T(-1.970840454), T(-1.624906493), T(3.429567803), T(1.641345311)};
  const T d[2] = {T(3.543889200), T(1.637067800)};
  const T y_abs = y < T(0) ? T(-y) : y;
  if (y_abs > T(1)) return T(NAN);
  if (y_abs == T(1)) return y > T(0) ? T(INFINITY) : T(-INFINITY);
  T x, z, num, dem;
  if (y_abs <= T(0.7)) {
    z = y * y;
    num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + T(1);
    x = y * num / dem;
  } else {
    z = sqrt(T(-log((T(1) - y_abs) / T(2))));
    num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    dem = (d[1] * z + d[0]) * z + T(1);
    x = (y < T(0) ? T(-num) : num) / dem;
  }
  const T k = T(2) / T(1.7724538509055160273);  // 2 / sqrt(pi)
  x = x - (erf(x) - y) / (k * exp(T(-x * x)));
  x = x - (erf(x) - y) / (k * exp(T(-x * x)));
  return x;
}

// Digamma as PyTorch's calc_digamma (Cephes psi): reflection for x < 0, recurrence up to 10,
// then the asymptotic series.
template <typename T>
LUCID_HD inline T digamma(T x) {
  if (x == T(0)) return signbit(x) ? T(INFINITY) : T(-INFINITY);
  T result = T(0);
  if (x < T(0)) {
    if (x == trunc(x)) return T(NAN);
    const T r = x - trunc(x);
    result = T(-T(kPi) / tan(T(T(kPi) * r)));
    x = T(1) - x;
  }
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  if (x == T(10)) return result + T(2.25175258906672110764);
  const T A[7] = {T(8.33333333333333333333E-2), T(-2.10927960927960927961E-2), T(7.57575757575757575758E-3),
                  T(-4.16666666666666666667E-3), T(3.96825396825396825397E-3), T(-8.33333333333333333333E-3),
                  T(8.33333333333333333333E-2)};
  T y = T(0);
  if (x < T(1.0e17)) {
    const T z = T(1) / (x * x);
    T p = A[0];
    for (int i = 1; i < 7; ++i) p = p * z + A[i];
    y = z * p;
  }
  return result + log(x) - (T(0.5) / x) - y;
}
}  // namespace um

template <UnaryOp Op, typename M>
LUCID_HD inline M apply_unary(M x) {
  using U = UnaryOp;
  if constexpr (std::is_same_v<M, bool>) {
    if constexpr (Op == U::BitwiseNot) return !x;
    else return x;  // Sign; other ops refuse bool
  } else if constexpr (Op == U::BitwiseNot) {
    if constexpr (std::is_integral_v<M>) return M(~x);
    else return x;  // refused for floating dtypes by the op
  } else if constexpr (Op == U::Neg) return M(-x);
  else if constexpr (std::is_integral_v<M> && (Op == U::Round || Op == U::Erfinv || Op == U::Lgamma ||
                                                 Op == U::Digamma || Op == U::Sinc || Op == U::Deg2rad ||
                                                 Op == U::Rad2deg))
    return x;  // Round keeps integers; the others promote them to floating first
  else if constexpr (Op == U::Round) return um::nearbyint(x);
  else if constexpr (Op == U::Erfinv) return um::erfinv(x);
  else if constexpr (Op == U::Lgamma) return um::lgamma(x);
  else if constexpr (Op == U::Digamma) return um::digamma(x);
  else if constexpr (Op == U::Sinc) {
    if (x == M(0)) return M(1);
    const M p = M(um::kPi) * x;
    return um::sin(p) / p;
  } else if constexpr (Op == U::Deg2rad) return x * M(0.017453292519943295769236907684886127134428718885417);
  else if constexpr (Op == U::Rad2deg) return x * M(57.295779513082320876798154814105170332405472466564);
  else if constexpr (Op == U::Abs) return x < M(0) ? M(-x) : x;
  else if constexpr (Op == U::Sign) return M((M(0) < x) - (x < M(0)));
  else if constexpr (Op == U::Square) return x * x;
  else if constexpr (Op == U::Relu) return x < M(0) ? M(0) : x;  // NaN and -0.0 pass through, as in torch
  else if constexpr (std::is_integral_v<M> && (Op == U::Floor || Op == U::Ceil || Op == U::Trunc)) return x;
  else if constexpr (std::is_integral_v<M> && Op == U::Frac) return M(0);
  else if constexpr (Op == U::Exp) return um::exp(x);
  else if constexpr (Op == U::Exp2) return um::exp2(x);
  else if constexpr (Op == U::Expm1) return um::expm1(x);
  else if constexpr (Op == U::Log) return um::log(x);
  else if constexpr (Op == U::Log2) return um::log2(x);
  else if constexpr (Op == U::Log10) return um::log10(x);
  else if constexpr (Op == U::Log1p) return um::log1p(x);
  else if constexpr (Op == U::Sqrt) return um::sqrt(x);
  else if constexpr (Op == U::Rsqrt) return M(1) / um::sqrt(x);
  else if constexpr (Op == U::Reciprocal) return M(1) / x;
  else if constexpr (Op == U::Sin) return um::sin(x);
  else if constexpr (Op == U::Cos) return um::cos(x);
  else if constexpr (Op == U::Tan) return um::tan(x);
  else if constexpr (Op == U::Asin) return um::asin(x);
  else if constexpr (Op == U::Acos) return um::acos(x);
  else if constexpr (Op == U::Atan) return um::atan(x);
  else if constexpr (Op == U::Sinh) return um::sinh(x);
  else if constexpr (Op == U::Cosh) return um::cosh(x);
  else if constexpr (Op == U::Tanh) return um::tanh(x);
  else if constexpr (Op == U::Asinh) return um::asinh(x);
  else if constexpr (Op == U::Acosh) return um::acosh(x);
  else if constexpr (Op == U::Atanh) return um::atanh(x);
  else if constexpr (Op == U::Sigmoid) return M(1) / (M(1) + um::exp(M(-x)));
  else if constexpr (Op == U::Erf) return um::erf(x);
  else if constexpr (Op == U::Erfc) return um::erfc(x);
  else if constexpr (Op == U::Floor) return um::floor(x);
  else if constexpr (Op == U::Ceil) return um::ceil(x);
  else if constexpr (Op == U::Trunc) return um::trunc(x);
  else return x - um::trunc(x);  // Frac
}

// Calls f.template operator()<Op>() with Op the compile-time value of `op`.
template <typename F>
LUCID_INLINE decltype(auto) dispatch_unary(UnaryOp op, F&& f) {
  switch (op) {
#define LUCID_U(name) \
  case UnaryOp::name: return f.template operator()<UnaryOp::name>();
    LUCID_U(Abs) LUCID_U(Sign) LUCID_U(Square) LUCID_U(Relu) LUCID_U(Exp) LUCID_U(Exp2) LUCID_U(Expm1)
    LUCID_U(Log) LUCID_U(Log2) LUCID_U(Log10) LUCID_U(Log1p) LUCID_U(Sqrt) LUCID_U(Rsqrt) LUCID_U(Reciprocal)
    LUCID_U(Sin) LUCID_U(Cos) LUCID_U(Tan) LUCID_U(Asin) LUCID_U(Acos) LUCID_U(Atan) LUCID_U(Sinh) LUCID_U(Cosh)
    LUCID_U(Tanh) LUCID_U(Asinh) LUCID_U(Acosh) LUCID_U(Atanh) LUCID_U(Sigmoid) LUCID_U(Erf) LUCID_U(Erfc)
    LUCID_U(Floor) LUCID_U(Ceil) LUCID_U(Trunc) LUCID_U(Frac) LUCID_U(Neg) LUCID_U(Erfinv) LUCID_U(Lgamma)
    LUCID_U(Digamma) LUCID_U(Sinc) LUCID_U(Deg2rad) LUCID_U(Rad2deg) LUCID_U(Round) LUCID_U(BitwiseNot)
#undef LUCID_U
  }
  return f.template operator()<UnaryOp::Abs>();
}

}  // namespace lucid
