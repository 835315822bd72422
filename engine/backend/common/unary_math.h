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
#undef LUCID_UM_FN
}  // namespace um

template <UnaryOp Op, typename M>
LUCID_HD inline M apply_unary(M x) {
  using U = UnaryOp;
  if constexpr (Op == U::Abs) return x < M(0) ? M(-x) : x;
  else if constexpr (Op == U::Sign) return M((M(0) < x) - (x < M(0)));
  else if constexpr (Op == U::Square) return x * x;
  else if constexpr (Op == U::Relu) return x > M(0) ? x : M(0);
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
    LUCID_U(Floor) LUCID_U(Ceil) LUCID_U(Trunc) LUCID_U(Frac)
#undef LUCID_U
  }
  return f.template operator()<UnaryOp::Abs>();
}

}  // namespace lucid
