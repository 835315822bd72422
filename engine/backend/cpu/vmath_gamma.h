#pragma once
// Branch-free lgamma and digamma for float (see vmath_base.h), computed in double and rounded once
// (float64 keeps libm / the common code; digamma: below). lgamma, for z > 0:
//   z < 5:  lgamma(z) = (u - 1)(u - 2) h(u) + log(P), u = z - floor(z) + 1 in [1, 2), P the shift
//           product u (u + 1) ... (z - 1) (at most three factors; P = 1 / z below 1, as -log z),
//           h a minimax fit, so the zeros at 1 and 2 come out with a small relative error;
//   z >= 5: Stirling, (z - 1/2) log z - z + log(2 pi) / 2 + S(1 / z^2) / z (minimax S).
// x < 0 reflects: lgamma(x) = -log(|sin(pi x)| / pi) - lgamma(1 - x), the sine from x - round(x) (exact)
// and the log of it merged with log(P). The logs are log_m_for_float (relative error 1.6e-11, and
// exactly 0 at 1). Errors (tests/python/test_unary_accuracy.py): at most 1 ulp away from the zeros
// near the negative roots, where the absolute error stays below PyTorch's (SLEEF's).
#include "backend/cpu/vmath_exp.h"
#include "backend/cpu/vmath_trig.h"

namespace lucid::cpu::vmath {

// lgamma(u) / ((u - 1)(u - 2)) in u - 1.5 on [1, 2] (relative error 1.5e-11)
constexpr double kLgammaH[] = {0.4831289505421882, -0.14595989572738333, 0.06291140060980156,
                               -0.031308508224536354, 0.016797127842243135, -0.009424968422672124,
                               0.005445771059734497, -0.003220862418196186, 0.0019305598419158676,
                               -0.0011077594890650448, 0.0006684271260113646, -0.0006075567982002715,
                               0.00038760855439522814};
// (lgamma(z) - ((z - 1/2) log z - z + log(2 pi) / 2)) z in 1 / z^2 on z >= 5 (absolute error 7e-16)
constexpr double kLgammaS[] = {0.08333333333328637, -0.0027777777441293705, 0.0007936438787755446,
                               -0.0005946233095394013, 0.000814610685075502, -0.001309925390064942};
// sin(pi r) / (pi r) in r^2 on |r| <= 1/2 (relative error 6e-14)
constexpr double kLgammaSin[] = {0.9999999999999377, -1.6449340668251202, 0.8117424238651235,
                                 -0.19075179116204724, 0.026147480416979153, -0.002343965867095817,
                                 0.0001423486505738527};

LUCID_VM double lgamma_log(double a) {  // a > 0 finite
  double fe;
  const double l = log_m_for_float(a, fe);
  return l + fe * 0.69314718055994530942;
}
// floor of 0 <= z < 2^51 (larger z: some value, unused)
LUCID_VM double lgamma_floor(double z) {
  int64_t n;
  const double t = round_int(z, n);
  return t > z ? t - 1.0 : t;
}

// lgamma(z) for z >= 1 (or z > 0 with b = 1), with log(b) added to the log of the shift product
// below 5 (b: the reflection's |sin(pi x)| / pi, 1 for x > 0); above 5 Stirling (b unused).
LUCID_VM double lgamma_pos(double z, double b, double& small_part, double& stirling) {
  const double n = lgamma_floor(z);
  const double u = z - n + 1.0;  // exact
  double p = 1.0;
  for (int k = 0; k < 3; ++k) p = double(k + 2) <= n ? p * (u + double(k)) : p;
  const bool below1 = n == 0.0;
  const bool big = z >= 5.0;
  const double a = big ? z : (below1 ? z : p) * b;
  const double l = lgamma_log(a);
  small_part = (u - 1.0) * (u - 2.0) * poly(u - 1.5, kLgammaH) + (below1 ? -l : l);
  const double rz0 = double(1.0f / float(z));  // a float reciprocal and a Newton step: no double division
  const double rz = rz0 * (2.0 - z * rz0);
  stirling = (z - 0.5) * l - z + (0.91893853320467274178 + poly(rz * rz, kLgammaS) * rz);
  return big ? stirling : small_part;
}

LUCID_VM bool lgamma_fast_ok(float x) { return x > 0.0f && x < Lim<float>::inf; }  // NaN: no
LUCID_VM float lgamma_fast(float x) {
  double sp, st;
  return float(lgamma_pos(double(x), 1.0, sp, st));
}
LUCID_VM float lgamma(float xf) {
  const double x = xf;
  const bool neg = x < 0.0;
  int64_t ni;
  const double r = x - round_int(neg ? x : 0.0, ni);  // x - round(x), exact (|x| < 2^23 matters)
  const double b = neg ? abs_(r) * poly(r * r, kLgammaSin) : 1.0;  // |sin(pi x)| / pi
  const double z = neg ? 1.0 - x : (xf < Lim<float>::inf ? x : 1.0);
  double sp, st;
  const double pos = lgamma_pos(z, b, sp, st);
  // x < 0: -lgamma(1 - x) - log(b), log(b) already in sp's log below 5
  const double negv = z >= 5.0 ? -st - lgamma_log(b > 0.0 ? b : 1.0) : -sp;
  float y = float(neg ? negv : pos);
  const bool pole = xf <= 0.0f && r == 0.0;  // 0, -0, negative integers, -inf (r: NaN - NaN)
  y = pole || abs_(xf) == Lim<float>::inf ? Lim<float>::inf : y;
  return xf != xf ? xf : y;
}

// digamma for float, in double, rounded once (float64 keeps the common code, PyTorch's calc_digamma):
// for z > 0, below 10 the sum of 1 / (z + k), k < 10, kept as one fraction N / D (one division instead
// of PyTorch's ten, and no loop whose length depends on z), then the asymptotic series at z + 10
// (Cephes' seven terms: log z - 1 / (2 z) - sum B_2k / (2k z^2k)). x < 0 reflects:
// psi(x) = psi(1 - x) - pi / tan(pi x), with tan(pi x) = tan(pi (x - round(x))) (exact argument).
// The double log keeps the cancellation near the root 1.4616 harmless (PyTorch's float32 loses it).
constexpr double kDigammaA[] = {8.33333333333333333333E-2, -8.33333333333333333333E-3, 3.96825396825396825397E-3,
                                -4.16666666666666666667E-3, 7.57575757575757575758E-3, -2.10927960927960927961E-2,
                                8.33333333333333333333E-2};  // in 1 / z^2
LUCID_VM double digamma_pos(double z) {  // z > 0
  double n = 0.0, d = 1.0;
  for (int k = 0; k < 10; ++k) {  // sum_{j < k} 1 / (z + j) = n / d
    const double t = z + double(k);
    n = n * t + d;
    d *= t;
  }
  const bool shift = z < 10.0;
  const double zs = shift ? z + 10.0 : z;
  const double s = shift ? n / d : 0.0;  // z >= 10: n / d may be inf / inf, unused
  const double r = 1.0 / zs, r2 = r * r;
  return (log(zs) - s) - (0.5 * r + r2 * poly(r2, kDigammaA));
}
LUCID_VM bool digamma_fast_ok(float x) { return x > 0.0f && x < Lim<float>::inf; }  // NaN: no
LUCID_VM float digamma_fast(float x) { return float(digamma_pos(double(x))); }
LUCID_VM float digamma(float xf) {
  const double x = xf;
  const bool neg = x < 0.0;
  int64_t ni;
  const double r = x - round_int(neg ? x : 0.0, ni);  // exact; 0 at the poles (and NaN for -inf)
  const double pos = digamma_pos(neg ? 1.0 - x : (xf < Lim<float>::inf ? x : 1.0));
  const double refl = -3.14159265358979323846 / tan(3.14159265358979323846 * (r == 0.0 ? 0.5 : r));
  float y = float(neg ? pos + refl : pos);
  y = xf == Lim<float>::inf ? xf : y;
  y = xf == 0.0f ? (f2i(xf) < 0 ? Lim<float>::inf : -Lim<float>::inf) : y;  // -0: +inf, as PyTorch
  return (neg && r == 0.0) || xf != xf || r != r ? Lim<float>::nan : y;
}

}  // namespace lucid::cpu::vmath
