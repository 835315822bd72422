#pragma once
// Branch-free float asinh and acosh (see vmath_base.h), computed in double and rounded once:
// asinh|x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), acosh x = log1p(t + sqrt(t (x + 1))), t = x - 1.
// For a float x, x^2 and t (x + 1) are exact in double, so the double log1p (vmath_exp.h) leaves an
// error far below float's half ulp. (double asinh/acosh keep libm.)
#include "backend/cpu/vmath_exp.h"

namespace lucid::cpu::vmath {

LUCID_VM float asinh(float xf) {
  const double t = abs_(double(xf)), q = t * t;
  const double r = log1p(t + q / (1.0 + std::sqrt(q + 1.0)));
  const double a = t == Lim<double>::inf ? t : r;  // inf / inf in the quotient
  return float(copysign_(a, double(xf)));         // +-0 and NaN pass through
}

LUCID_VM float acosh(float xf) {
  const double x = xf, t = x - 1.0;
  const double r = log1p(t + std::sqrt(t * (x + 1.0)));
  return x < 1.0 ? Lim<float>::nan : float(r);  // NaN: r is NaN
}

}  // namespace lucid::cpu::vmath
