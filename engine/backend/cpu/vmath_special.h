#pragma once
// Branch-free erf, erfc and erfinv for float (see vmath_base.h), computed in double and rounded once:
// erf = x P(x^2) near 0, erfc = e^{-x^2} R(x) in the middle and e^{-x^2} S(1/x^2) / x in the tail
// (minimax fits, relative error below 1e-9), erfinv as PyTorch's calc_erfinv (a rational first
// guess and two Newton steps) on these.
#include "backend/cpu/vmath_exp.h"

namespace lucid::cpu::vmath {

// erf(x) / x in z = x^2 on |x| <= 0.75
constexpr double kErfSmall[] = {1.1283791670678003, -0.3761263842755695, 0.11283778252368715,
                                -0.026864742516529306, 0.005216689971320937, -0.0008355366391792178,
                                9.461261681434179e-05};
// erfc(x) e^{x^2} on 0.75 <= x <= 4
constexpr double kErfcMid[] = {0.9997350683173382, -1.125980816573177, 0.9900137916991887, -0.7267804363659693,
                               0.4552321966452681, -0.24301416637285042, 0.10912560082520223,
                               -0.040467945454344775, 0.012136441379280535, -0.0028747023328390318,
                               0.0005223817834896248, -6.996223432226053e-05, 6.486035807053428e-06,
                               -3.708975609701861e-07, 9.839426400272448e-09};
// erfc(x) e^{x^2} x in u = 1/x^2 on 4 <= x <= 10.1
constexpr double kErfcTail[] = {0.5641895804422388, -0.2820938873474194, 0.4230366532367904, -1.0513808002012976,
                                3.471830562112114, -11.681392815107362, 24.833389743458127};

// e^x for x in [-110, 10] to about 1e-15 relative (float-grade callers).
LUCID_VM double exp_for_float(double x) {
  int64_t n;
  const double q = round_int(x * kLog2eD, n);
  const double r = x - q * kLn2HiD - q * kLn2LoD;
  return (r * r * poly(r, kExpm1F) + r + 1.0) * pow2i(n);
}

// erfc(|x|) for |x| >= 0.75 (0 beyond 10.1, where the float result underflows)
LUCID_VM double erfc_pos(double ax) {
  const double a = ax > 10.1 ? 10.1 : ax;
  const double e = exp_for_float(-(a * a));  // a * a is exact for a float a
  const double mid = e * poly(a, kErfcMid);
  const double inv = 1.0 / a;
  const double tail = e * inv * poly(inv * inv, kErfcTail);
  return ax > 10.1 ? 0.0 : (a < 4.0 ? mid : tail);
}

// erf to about 1e-10 relative (float-grade), for double arguments too
LUCID_VM double erf_lite(double x) {
  const double ax = abs_(x);
  const double small = x * poly(x * x, kErfSmall);
  const double a = ax > 4.0 ? 4.0 : ax;  // erf = 1 beyond 3.9 in float: the middle fit suffices
  const double big = copysign_(1.0 - exp_for_float(-(a * a)) * poly(a, kErfcMid), x);
  return ax < 0.75 ? small : big;  // NaN: small
}
#if defined(__FMA__)
// Native float erf (FMA builds; max 0.92 ulp over all floats, the same on avx2 and avx512):
// x + x P(x^2) below |x| = 1, with x^2 = z + zl exact and the two leading terms rounded once, so
// the rounding of P stays small against the result; a polynomial in |x| - 2.4375 up to 3.875
// (erf rounds to 1 above 3.8325). Minimax fits (Lawson) with float coefficients.
constexpr float kErfSmallF[] = {0.12837916612625122f, -0.3761262595653534f, 0.11283578723669052f,
                                -0.026853347197175026f, 0.005187162198126316f, -0.0007997853099368513f,
                                7.806903886375949e-05f};
constexpr float kErfSmallHiF[] = {kErfSmallF[2], kErfSmallF[3], kErfSmallF[4], kErfSmallF[5], kErfSmallF[6]};
constexpr float kErfMidF[] = {0.9994334578514099f, 0.002965753898024559f, -0.007229060400277376f,
                              0.010758625343441963f, -0.010702109895646572f, 0.007206785026937723f,
                              -0.003002522047609091f, 0.00037613624590449035f, 0.00041570619214326143f,
                              -0.0003003456222359091f, 7.10937674739398e-05f, 1.9764262106036767e-05f,
                              -1.804802377591841e-05f, 2.7756909730669577e-06f, 1.2027094271616079e-06f,
                              -3.810644102486549e-07f};
LUCID_VM float erf(float x) {
  const float ax = abs_(x);
  const float z = x * x, zl = std::fma(x, x, -z);  // x^2 = z + zl exactly
  constexpr float c0 = kErfSmallF[0], c1 = kErfSmallF[1], c2 = kErfSmallF[2];
  const float p = std::fma(z, c1, c0) + (z * z * poly(z, kErfSmallHiF) + zl * (c1 + 2.0f * c2 * z));
  const float small = std::fma(x, p, x);  // odd; -0 stays -0
  const float big = ax > 3.875f ? 1.0f : poly(ax - 2.4375f, kErfMidF);  // NaN: NaN
  return ax < 1.0f ? small : copysign_(big, x);
}
#else
LUCID_VM float erf(float x) { return float(erf_lite(double(x))); }
#endif
LUCID_VM float erfc(float xf) {
  const double x = xf, ax = abs_(x);
  const double small = 1.0 - x * poly(x * x, kErfSmall);
  const double c = erfc_pos(ax);
  const double big = x < 0.0 ? 2.0 - c : c;
  return float(ax < 0.75 ? small : sel(x != x, x, big));
}

// erfinv as PyTorch's calc_erfinv: a rational first guess (central or tail), two Newton steps.
LUCID_VM float erfinv(float yf) {
  const double y = yf, ay = abs_(y);
  const double z1 = y * y;
  const double n1 = ((-0.140543331 * z1 + 0.914624893) * z1 - 1.645349621) * z1 + 0.886226899;
  const double d1 = (((0.012229801 * z1 - 0.329097515) * z1 + 1.442710462) * z1 - 2.118377725) * z1 + 1.0;
  double fe;
  const double lm = log_m_for_float((1.0 - (ay < 1.0 ? ay : 0.5)) * 0.5, fe);
  const double z2 = std::sqrt(-(lm + fe * 0.69314718055994530942));
  const double n2 = ((1.641345311 * z2 + 3.429567803) * z2 - 1.624906493) * z2 - 1.970840454;
  const double d2 = (1.637067800 * z2 + 3.543889200) * z2 + 1.0;
  const bool central = ay <= 0.7;
  double x = (central ? y * n1 : copysign_(n2, y)) / (central ? d1 : d2);
  constexpr double k = 1.12837916709551257390;  // 2 / sqrt(pi)
  x = x - (erf_lite(x) - y) / (k * exp_for_float(-(x * x)));
  x = x - (erf_lite(x) - y) / (k * exp_for_float(-(x * x)));
  float r = float(x);
  r = ay == 1.0 ? copysign_(Lim<float>::inf, yf) : r;
  r = yf == 0.0f ? yf : r;
  return ay > 1.0 || y != y ? Lim<float>::nan : r;
}

}  // namespace lucid::cpu::vmath
