#pragma once
// Branch-free trigonometric functions for float and double (see vmath_base.h): sin, cos, tan, asin,
// acos, atan, atan2. Double: fdlibm's algorithms (kernels, constants) with their branches turned into
// selects; float: the same in double (one rounding at the end), except on the FMA builds for sin, cos,
// tan, asin, acos and atan: native float kernels (below). sin/cos/tan reduce exactly for |x| < kTrigMax
// (float native: kTrigMaxF); the loop sends blocks with larger lanes to the float-in-double code and libm.
#include "backend/cpu/vmath_base.h"
#if defined(__AVX512F__) && defined(__FMA__)
#include "backend/cpu/vmath_table.h"
#endif

namespace lucid::cpu::vmath {

constexpr double kTrigMax = 1.0e6;  // x = n pi/2 + r with |n| < 2^20: the 3-part reduction is exact

// fdlibm __kernel_sin / __kernel_cos on |x| <= pi/4, x + y the argument in two parts.
constexpr double kS1 = -1.66666666666666324348e-01, kS2 = 8.33333333332248946124e-03,
                 kS3 = -1.98412698298579493134e-04, kS4 = 2.75573137070700676789e-06,
                 kS5 = -2.50507602534068634195e-08, kS6 = 1.58969099521155010221e-10;
constexpr double kC1 = 4.16666666666666019037e-02, kC2 = -1.38888888888741095749e-03,
                 kC3 = 2.48015872894767294178e-05, kC4 = -2.75573143513906633035e-07,
                 kC5 = 2.08757232129817482790e-09, kC6 = -1.13596475577881948265e-11;
LUCID_VM double ksin(double x, double y) {
  const double z = x * x, v = z * x;
  const double r = kS2 + z * (kS3 + z * (kS4 + z * (kS5 + z * kS6)));
  return x - ((z * (0.5 * y - v * r) - y) - v * kS1);
}
LUCID_VM double kcos(double x, double y) {
  const double z = x * x, w = z * z;
  const double r = z * (kC1 + z * (kC2 + z * kC3)) + w * w * (kC4 + z * (kC5 + z * kC6));
  const double hz = 0.5 * z, ww = 1.0 - hz;
  return ww + (((1.0 - ww) - hz) + (z * r - x * y));
}
// x = n pi/2 + y0 + y1: pi/2 in three 33-bit parts (fdlibm's) and a tail; fn * part is exact for
// |n| < 2^20, and the two subtractions keep their rounding errors (two_sum).
LUCID_VM double rem_pio2(double x, double& y1, int64_t& n) {
  constexpr double p1 = 1.57079632673412561417e+00, p2 = 6.07710050630396597660e-11;
  constexpr double p3 = 2.02226624871116645580e-21, p3t = 8.47842766036889956997e-32;
  const double fn = round_int(x * 6.36619772367581382433e-01, n);
  const double r1 = x - fn * p1;  // exact
  double e2, e3;
  const double r2 = two_sum(r1, -(fn * p2), e2);
  const double r3 = two_sum(r2, -(fn * p3), e3);
  const double tail = (e2 + e3) - fn * p3t;
  double l;
  const double y0 = fast_two_sum(r3, tail, l);
  y1 = l;
  return y0;
}
LUCID_VM double sin(double x) {
  int64_t n;
  double y1;
  const double y0 = rem_pio2(x, y1, n);
  const double s = ksin(y0, y1), c = kcos(y0, y1);
  const double r = (n & 1) ? c : s;
  return x == 0.0 ? x : ((n & 2) ? -r : r);
}
LUCID_VM double cos(double x) {
  int64_t n;
  double y1;
  const double y0 = rem_pio2(x, y1, n);
  const double s = ksin(y0, y1), c = kcos(y0, y1);
  const double r = (n & 1) ? -s : c;
  return (n & 2) ? -r : r;
}
// tan = sin / cos of the reduced argument, the quotient corrected once (num and den in two parts).
LUCID_VM double tan(double x) {
  int64_t n;
  double y1;
  const double y0 = rem_pio2(x, y1, n);
  // sin: y0 + sl, cos: ch + cl (the kernels' last additions left unevaluated)
  const double z = y0 * y0, v = z * y0, w2 = z * z;
  const double rs = kS2 + z * (kS3 + z * (kS4 + z * (kS5 + z * kS6)));
  const double sl = -((z * (0.5 * y1 - v * rs) - y1) - v * kS1);
  const double rc = z * (kC1 + z * (kC2 + z * kC3)) + w2 * w2 * (kC4 + z * (kC5 + z * kC6));
  const double hz = 0.5 * z, ch = 1.0 - hz;
  const double cl = ((1.0 - ch) - hz) + (z * rc - y0 * y1);
  double se, ce;
  const double sh = fast_two_sum(y0, sl, se), chh = fast_two_sum(ch, cl, ce);
  const bool odd = n & 1;  // tan = -cos / sin
  const double nh = odd ? chh : sh, nl = odd ? ce : se;
  const double dh = odd ? sh : chh, dl = odd ? se : ce;
  const double q = nh / dh;
  const double res = (std::fma(-q, dh, nh) + nl - q * dl) / dh;
  const double t = q + res;
  return x == 0.0 ? x : (odd ? -t : t);
}

// float in double (sin_wide etc.: the baseline build's sin(float), and the FMA builds' for blocks with
// lanes beyond kTrigMaxF): reduction and polynomials in double (|x| < kTrigMax).
LUCID_VM double rem_pio2_f(float xf, int64_t& n) {
  const double x = xf;
  const double fn = round_int(x * 6.36619772367581382433e-01, n);
  return (x - fn * 1.57079632673412561417e+00) - fn * 6.07710050650619224932e-11;
}
LUCID_VM double sin_poly_f(double y, double z) {
  return y + y * z * (kS1 + z * (kS2 + z * (kS3 + z * kS4)));
}
LUCID_VM double cos_poly_f(double z) {
  return 1.0 - 0.5 * z + z * z * (kC1 + z * (kC2 + z * (kC3 + z * kC4)));
}
LUCID_VM float sin_wide(float x) {
  int64_t n;
  const double y = rem_pio2_f(x, n), z = y * y;
  const double r = (n & 1) ? cos_poly_f(z) : sin_poly_f(y, z);
  return x == 0.0f ? x : float((n & 2) ? -r : r);
}
LUCID_VM float cos_wide(float x) {
  int64_t n;
  const double y = rem_pio2_f(x, n), z = y * y;
  const double r = (n & 1) ? -sin_poly_f(y, z) : cos_poly_f(z);
  return float((n & 2) ? -r : r);
}
LUCID_VM float tan_wide(float x) {
  int64_t n;
  const double y = rem_pio2_f(x, n), z = y * y;
  const double s = sin_poly_f(y, z), c = cos_poly_f(z);
  return x == 0.0f ? x : float((n & 1) ? -c / s : s / c);
}


#if defined(__FMA__)
// float, native (FMA builds): |x| = n pi/2 + rh + lo in float for |x| < kTrigMaxF (pi/2 in three
// parts; fn * P1 exact in the fma, fn * P2 exact as ph + pl, a - ph a fast two-sum since a is a
// multiple of ulp(ph); the error of rh + lo stays below 2^-56 there), then the sin and cos
// polynomials (minimax on [-pi/4, pi/4], fitted for float) with the low part added last. Blocks with
// larger lanes take sin_wide etc. Exhaustive (every float below kTrigMaxF, avx2 and avx512 alike):
// max 0.87 ulp (sin), 0.86 ulp (cos); the kSmall reduction (below kTrigSmallF) 0.85 and 0.81.
constexpr float kTrigMaxF = 131072.0f, kTrigSmallF = 12.0f;
// Selects on the bits (bsel) where GCC would otherwise split the loop body into two paths on the
// condition and if-convert both (computing the polynomials twice).
LUCID_VM float bsel(bool c, float a, float b) {
  const int32_t m = -int32_t(c);
  return i2f((f2i(a) & m) | (f2i(b) & ~m));
}
constexpr float kSinF[] = {-0.16666655f, 0.008332189f, -0.00019518289f};
constexpr float kCosF[] = {0.041666646f, -0.001388731f, 2.4432327e-05f};
template <bool kSmall>
LUCID_VM float rem_pio2_nf(float ax, float& lo, int32_t& n) {  // ax >= 0
  // kSmall (ax < kTrigSmallF, n <= 8): p2 has 20 bits, fn * p2 is exact
  constexpr float p1 = 0x1.921fb6p+0f, p2 = kSmall ? -0x1.777a6p-25f : -0x1.777a5cp-25f,
                  p3 = kSmall ? 0x1.84698ap-48f : -0x1.ee59dap-50f;
  const float t = std::fma(ax, 0.63661975f, Lim<float>::magic);  // explicit fmas throughout: the vector
  // body and the scalar tail of a loop must round alike
  n = f2i(t);  // n mod 2^22 (magic's low bits are 0): the quadrant
  const float fn = t - Lim<float>::magic;
  const float a = std::fma(-fn, p1, ax);  // exact
  if constexpr (kSmall) {
    const float rh = std::fma(-fn, p2, a), tt = a - rh;  // a - rh exact
    lo = std::fma(-fn, p3, std::fma(-fn, p2, tt));
    return rh;
  } else {
    const float ph = fn * p2, pl = std::fma(fn, p2, -ph);
    const float rh = a - ph, tt = rh - a;
    lo = std::fma(-fn, p3, -((ph + tt) + pl));
    return rh;
  }
}
// sin(rh + lo) = rh + lo + rh z P(z); cos(rh + lo) = h + err + z^2 Q(z), h + err = 1 + hh rh exactly,
// hh = -rh / 2 - lo (rounded)
LUCID_VM float ksin_nf(float rh, float lo, float z) {
  return rh + std::fma(z * rh, poly(z, kSinF), lo);
}
LUCID_VM float kcos_nf(float rh, float lo, float z) {
  const float hh = std::fma(-0.5f, rh, -lo);
  const float h = std::fma(hh, rh, 1.0f);
  const float err = std::fma(hh, rh, 1.0f - h);
  return h + std::fma(z * z, poly(z, kCosF), err);
}
template <bool kSmall = false>
LUCID_VM float sin_nf(float x) {  // on |x|, x's sign put back (sin(-0) = -0)
  int32_t n;
  float lo;
  const float rh = rem_pio2_nf<kSmall>(abs_(x), lo, n), z = rh * rh;
  const float s = ksin_nf(rh, lo, z), c = kcos_nf(rh, lo, z);
  const float r = (n & 1) ? c : s;
  return i2f(f2i(r) ^ ((int32_t(uint32_t(n) << 30) ^ f2i(x)) & int32_t(0x80000000u)));
}
template <bool kSmall = false>
LUCID_VM float cos_nf(float x) {
  int32_t n;
  float lo;
  const float rh = rem_pio2_nf<kSmall>(abs_(x), lo, n), z = rh * rh;
  const float s = ksin_nf(rh, lo, z), c = kcos_nf(rh, lo, z);
  const float r = (n & 1) ? s : c;
  return i2f(f2i(r) ^ (int32_t(uint32_t(n + 1) << 30) & int32_t(0x80000000u)));
}
// tan(rh + lo) = rh + c, c = rh^3 P(z) + lo tan'(rh) with rh^3 = w + wl exactly and tan' = 1 + tan^2 taken
// as 1 + 1.625 z (exact at pi/4, where the error matters most); odd quadrants -1 / (rh + c), the
// reciprocal of h = rh + c corrected once. P: minimax for (tan r - r) / r^3 on |r| <= pi/4, weighted by
// r^3 / tan r (its error below 2^-29.5 of tan r). Exhaustive (every float below kTrigMaxF, avx2 and
// avx512 alike): max 0.91 ulp; the kSmall reduction (below kTrigSmallF) 0.88.
constexpr float kTanF[] = {0.333333492f, 0.133326754f, 0.0540588982f, 0.0212863777f, 0.0108267665f,
                           9.93882786e-05f, 0.00437200349f};
template <bool kSmall = false>
LUCID_VM float tan_nf(float x) {
  int32_t n;
  float lo;
  const float rh = rem_pio2_nf<kSmall>(abs_(x), lo, n);
  const float z = rh * rh, zl = std::fma(rh, rh, -z);
  const float w = rh * z, wl = std::fma(rh, zl, std::fma(rh, z, -w));
  const float c = std::fma(w, poly(z, kTanF), std::fma(wl, kTanF[0], std::fma(z * 1.625f, lo, lo)));
  const float h = rh + c;
  const float q0 = -1.0f / h;
  const float q = std::fma(q0, std::fma(q0, c, std::fma(q0, rh, 1.0f)), q0);
  const float r = (n & 1) ? q : h;
  return i2f(f2i(r) ^ (f2i(x) & int32_t(0x80000000u)));
}
LUCID_VM float sin(float x) { return sin_nf(x); }
LUCID_VM float cos(float x) { return cos_nf(x); }
LUCID_VM float tan(float x) { return tan_nf(x); }
#else
constexpr float kTrigMaxF = float(kTrigMax);
LUCID_VM float sin(float x) { return sin_wide(x); }
LUCID_VM float cos(float x) { return cos_wide(x); }
LUCID_VM float tan(float x) { return tan_wide(x); }
#endif

// atan (fdlibm s_atan.c): |x| reduced to |t| < 7/16 by one of four Moebius maps (one division),
// atan(x) = atanhi[id] + atan(t).
constexpr double kAT[] = {3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01,
                          -1.11111104054623557880e-01, 9.09088713343650656196e-02, -7.69187620504482999495e-02,
                          6.66107313738753120669e-02, -5.83357013379057348645e-02, 4.97687799461593236017e-02,
                          -3.65315727442169155270e-02, 1.62858201153657823623e-02};
LUCID_VM double atan_pos(double ax_in) {  // ax >= 0 or NaN
  const double ax = ax_in > 1e300 ? 1e300 : ax_in;  // atan(inf) = pi/2
  // t = (a ax + b) / (c ax + d); from the largest interval down (sequential selects vectorise)
  double a = 0.0, b = -1.0, c = 1.0, d = 0.0;
  double hi = 1.57079632679489655800e+00, lo = 6.12323399573676603587e-17;
  const bool b3 = ax < 2.4375, b2 = ax < 1.1875, b1 = ax < 0.6875, b0 = ax < 0.4375;
  a = b3 ? 1.0 : a, b = b3 ? -1.5 : b, c = b3 ? 1.5 : c, d = b3 ? 1.0 : d;
  hi = b3 ? 9.82793723247329054082e-01 : hi, lo = b3 ? 1.39033110312309984516e-17 : lo;
  b = b2 ? -1.0 : b, c = b2 ? 1.0 : c;
  hi = b2 ? 7.85398163397448278999e-01 : hi, lo = b2 ? 3.06161699786838301793e-17 : lo;
  a = b1 ? 2.0 : a, d = b1 ? 2.0 : d;
  hi = b1 ? 4.63647609000806093515e-01 : hi, lo = b1 ? 2.26987774529616870924e-17 : lo;
  a = b0 ? 1.0 : a, b = b0 ? 0.0 : b, c = b0 ? 0.0 : c, d = b0 ? 1.0 : d;
  hi = b0 ? 0.0 : hi, lo = b0 ? 0.0 : lo;
  // ax = inf: t = -1/inf = -0
  const double t = (a * ax + b) / (c * ax + d);
  const double z = t * t, w = z * z;
  const double s1 = z * (kAT[0] + w * (kAT[2] + w * (kAT[4] + w * (kAT[6] + w * (kAT[8] + w * kAT[10])))));
  const double s2 = w * (kAT[1] + w * (kAT[3] + w * (kAT[5] + w * (kAT[7] + w * kAT[9]))));
  const double r = hi - ((t * (s1 + s2) - lo) - t);
  return ax != ax ? ax : r;
}
LUCID_VM double atan(double x) {
  const double r = copysign_(atan_pos(abs_(x)), x);
  return x == 0.0 ? x : r;
}
#if !defined(__FMA__)  // float in double (the FMA builds: native float below)
// float: atan(t) = t + t z P(z) on t = min(|x|, 1/|x|) <= 1 (minimax, relative error 1.7e-10), in
// double, pi/2 - atan(1/|x|) above 1: one division.
constexpr double kAtanF[] = {-0.33333333327533077, 0.19999998290643217, -0.14285630170099894, 0.111094723711802,
                             -0.09074178696485087, 0.07589514165913465, -0.06254496171116279, 0.04744534021535609,
                             -0.030091378279362303, 0.014204193723294565, -0.004276351248424339,
                             0.0006028943989012259};
LUCID_VM float atan(float xf) {
  const double x = xf, ax = abs_(x);
  const bool inv = ax > 1.0;
  const double t = (inv ? 1.0 : ax) / (inv ? ax : 1.0);  // |x| = inf: 0
  const double z = t * t;
  const double a = t + t * z * poly(z, kAtanF);
  const double r = copysign_(inv ? 1.57079632679489661923 - a : a, x);
  return xf == 0.0f ? xf : float(r);  // NaN passes through t
}
#else
// float, native (FMA builds): atan|x| = K + (t + (tl + t z P(z))), z = t^2, with t = n / d and
// n / d = |x| (|x| <= a0), (|x| - 1) / (|x| + 1) (|x| <= 2; |x| - 1 exact) or -1 / |x|, so |t| <= a0;
// one division (1 / d), and tl = (n - t d) / d from its exact residual. K = 0, pi/4 or pi/2 as an
// exact product KA * kPi4B in the last fma (pi/4 to 2^-46). No compensated sum for K + t: above
// a0 = tan(1/2) the result is >= 1/2, so ulp(t) <= ulp(result) / 2. The rounding of |x| + 1 is left
// out of tl (up to ~0.15 ulp, in the middle range). P: weighted minimax on [0, a0^2] for float.
// Exhaustive (every float, avx2 and avx512 alike): max 0.83 ulp (0.826 at x = 0.549, the middle range
// near a0; 0.773 below a0).
constexpr float kAtanA0 = 0.5464f;  // > tan(1/2)
constexpr float kAtanNF[] = {-0.333333164f, 0.199988768f, -0.142605901f, 0.10847978f, -0.0764487162f,
                             0.0341475643f};
constexpr float kPi4A = 0x1.aee9d6p-1f, kPi4B = 0x1.ddcb02p-1f;  // kPi4A * kPi4B = pi/4 (1 + 1e-14)
LUCID_VM float atan(float x) {
  const float a = abs_(x);
  // the ranges as two selects of constants: n = u a + v, d = u - v a, K = (1 - u - v) pi/4 with
  // u = [a <= 2], v = -[a > a0] (NaN: u = 1, v = 0, and NaN passes). Selects of values, or a sum of
  // two selects, became extra blends or split the loop.
  const float v = a > kAtanA0 ? -1.0f : 0.0f, u = a > 2.0f ? 0.0f : 1.0f;
  const float n = std::fma(u, a, v);
  const float d = std::fma(v, -a, u);
  const float KA = std::fma(v, -kPi4A, std::fma(u, -kPi4A, kPi4A));
  const float inv = 1.0f / d;
  const float t = n * inv;
  const float tl = std::fma(-t, d, n) * inv;
  const float z = t * t;
  float p = std::fma(kAtanNF[5], z, kAtanNF[4]);
  p = std::fma(p, z, kAtanNF[3]);
  p = std::fma(p, z, kAtanNF[2]);
  p = std::fma(p, z, kAtanNF[1]);
  p = std::fma(p, z, kAtanNF[0]);
  const float r = std::fma(KA, kPi4B, t + std::fma(t * z, p, tl));
  const float res = a == Lim<float>::inf ? 2.0f * kPi4A * kPi4B : r;  // inf: n and the residual are NaN
  return i2f(f2i(res) | (f2i(x) & int32_t(0x80000000u)));  // res >= +0
}
#endif

// asin / acos (fdlibm e_asin.c, e_acos.c): rational R(t) = p/q, t = x^2 or (1 - |x|)/2.
constexpr double kPS[] = {1.66666666666666657415e-01, -3.25565818622400915405e-01, 2.01212532134862925881e-01,
                          -4.00555345006794114027e-02, 7.91534994289814532176e-04, 3.47933107596021167570e-05};
constexpr double kQS[] = {1.0, -2.40339491173441421878e+00, 2.02094576023350569471e+00, -6.88283971605453293030e-01,
                          7.70381505559019352791e-02};
constexpr double kPio2Hi = 1.57079632679489655800e+00, kPio2Lo = 6.12323399573676603587e-17,
                 kPio4Hi = 7.85398163397448278999e-01;
LUCID_VM double asin_r(double t) { return t * poly(t, kPS) / poly(t, kQS); }
LUCID_VM double asin(double x) {
  const double ax = abs_(x);
  const bool small = ax < 0.5;
  const double t = small ? x * x : (1.0 - ax) * 0.5;
  const double r = asin_r(t);
  const double s = std::sqrt(t);
  const double res_small = x + x * r;
  // |x| > 0.975
  const double res_edge = kPio2Hi - (2.0 * (s + s * r) - kPio2Lo);
  // 0.5 <= |x| <= 0.975: s = w + c with w the high half of s
  const double w = i2d(d2i(s) & int64_t(0xffffffff00000000ULL));
  const double c = (t - w * w) / (s + w);
  const double res_mid = kPio4Hi - ((2.0 * s * r - (kPio2Lo - 2.0 * c)) - (kPio4Hi - 2.0 * w));
  const double big = copysign_(ax > 0.975 ? res_edge : res_mid, x);
  const double res = small ? res_small : big;
  return ax > 1.0 ? Lim<double>::nan : res;  // NaN passes through the selects
}
LUCID_VM double acos(double x) {
  const double ax = abs_(x);
  const bool small = ax < 0.5;
  const double t = small ? x * x : (1.0 - ax) * 0.5;
  const double r = asin_r(t);
  const double s = std::sqrt(t);
  // explicit fmas: left to the compiler, the vector body and the scalar tail of a loop contracted
  // these differently, so a value's last bit depended on its position (strided vs contiguous)
  const double res_small = kPio2Hi - (x - std::fma(-x, r, kPio2Lo));
  const double res_neg = 2.0 * kPio2Hi - 2.0 * (s + std::fma(r, s, -kPio2Lo));
  const double df = i2d(d2i(s) & int64_t(0xffffffff00000000ULL));
  const double c = t == 0.0 ? 0.0 : (t - df * df) / (s + df);
  const double res_pos = 2.0 * (df + std::fma(r, s, c));
  const double res = small ? res_small : (x < 0.0 ? res_neg : res_pos);
  return ax > 1.0 ? Lim<double>::nan : res;
}
#if !defined(__FMA__)  // float in double (the FMA builds: native float below)
// float: asin(s) = s + s z P(z), z = s^2 <= 1/4 (minimax, relative error 7.5e-11), in double, with
// s = sqrt((1 - |x|) / 2) above |x| = 1/2: one square root, no division.
constexpr double kAsinF[] = {0.1666666666541967, 0.07500000628904364, 0.04464233898209661, 0.03039810706447844,
                             0.022126993336927005, 0.019338456644633965, 0.0053489831552314465,
                             0.029413427848564044};
LUCID_VM double asin_half_f(double x, double& p) {  // returns |x|; p = asin(s) as above
  const double ax = abs_(x);
  const bool small = ax <= 0.5;
  const double t = small ? x * x : (1.0 - ax) * 0.5;
  const double s = small ? ax : std::sqrt(t);
  p = s + s * t * poly(t, kAsinF);
  return ax;
}
LUCID_VM float asin(float xf) {
  const double x = xf;
  double p;
  const double ax = asin_half_f(x, p);
  const double r = copysign_(ax <= 0.5 ? p : 1.57079632679489661923 - 2.0 * p, x);
  return ax > 1.0 ? Lim<float>::nan : (xf == 0.0f ? xf : float(r));  // NaN passes through p
}
LUCID_VM float acos(float xf) {
  const double x = xf;
  double p;
  const double ax = asin_half_f(x, p);
  const double r = ax <= 0.5 ? 1.57079632679489661923 - copysign_(p, x)
                             : (x < 0.0 ? 3.14159265358979323846 - 2.0 * p : 2.0 * p);
  return ax > 1.0 ? Lim<float>::nan : float(r);
}

#endif

#if defined(__FMA__)
// float, native (FMA builds).
constexpr float kPio2HF = 0x1.921fb6p+0f, kPio2LF = -0x1.777a5cp-25f;  // pi/2 = hi + lo
// asin: |x| <= 1/2: |x| + |x| z P(z), z = x^2; else pi/2 - 2 (s + sl) - 2 s z P(z) with s + sl =
// sqrt(z), z = (1 - |x|) / 2 (sl from the exact residual and an approximate 1 / s: no division).
// acos = pi/2 - asin, with x's sign. Both are hi + y + (lo + yl + y z P(z)), hi + lo = 0, pi/2 or pi,
// hi + y a compensated sum. P: minimax for float on [0, 1/4], relative error 4.9e-9.
// Exhaustive (every float, avx2 and avx512 builds alike): max 0.68 ulp (asin), 0.67 ulp (acos).
constexpr float kAsinNF[] = {0.16666752f, 0.074953064f, 0.04546977f, 0.024180776f, 0.042166404f};
template <bool kAcos>
LUCID_VM float asin_acos_nf(float x) {
  const float ax = abs_(x);
  const bool small = ax <= 0.5f;
  const float w = std::fma(-0.5f, ax, 0.5f);  // (1 - ax) / 2, exact
  const float z = bsel(small, ax * ax, w);
  const float s = std::sqrt(w);
  float rc = i2f(0x7ef311c3 - f2i(s));  // 1 / s within 12%, then 1.5% (s = 0: finite, and the residual 0)
  rc = rc * std::fma(-s, rc, 2.0f);
  const float sl2 = std::fma(-s, s, w) * rc;  // 2 sl
  float y = bsel(small, ax, -2.0f * s), yl = small ? 0.0f : -sl2, hi = small ? 0.0f : kPio2HF;
  if constexpr (kAcos) {  // pi/2 - sgn(x) (hi + y + ...)
    const int32_t nsx = ~f2i(x) & int32_t(0x80000000u);
    y = i2f(f2i(y) ^ nsx), yl = i2f(f2i(yl) ^ nsx);
    hi = kPio2HF + i2f(f2i(hi) ^ nsx);  // exact: 0, pi/2 or pi
  }
  const float sh = hi + y, e = y - (sh - hi);
  const float r = sh + (e + std::fma(y * z, poly(z, kAsinNF), std::fma(hi, kPio2LF / kPio2HF, yl)));
  return ax > 1.0f ? Lim<float>::nan : (kAcos ? r : copysign_(r, x));  // NaN passes through
}
LUCID_VM float asin(float x) { return asin_acos_nf<false>(x); }
LUCID_VM float acos(float x) { return asin_acos_nf<true>(x); }
#if defined(__AVX512F__)
// AVX-512 (the unary loop's whole-block kernel): the same formula, but s + sl = sqrt(w) from
// vrsqrt14ps (2^-14) and one correction, s0 = w r, s0 + (w - s0^2) r / 2, rounded to s and its error
// (no square root: vsqrtps zmm takes 12 cycles a vector on this machine, the whole kernel 19).
// 0.350 ns per element against 0.410 (in cache, harness). Exhaustive: max 0.676 ulp (asin), 0.67
// (acos); its bits may differ from the AVX2 build's in the last place.
template <bool kAcos>
inline void asin_acos_run(const float* x, float* o, int64_t m) {
  const __m512 half = _mm512_set1_ps(0.5f);
  const __m512i sign = _mm512_set1_epi32(int32_t(0x80000000u));
  map16(x, o, m, [&](__m512 v) {
    const __m512 ax = _mm512_abs_ps(v);
    const __mmask16 small = _mm512_cmp_ps_mask(ax, half, _CMP_LE_OQ), big = __mmask16(~small);
    const __m512 w = _mm512_fnmadd_ps(half, ax, half);
    const __m512 z = _mm512_mask_mul_ps(w, small, ax, ax);
    const __m512 r = _mm512_rsqrt14_ps(_mm512_max_ps(w, _mm512_set1_ps(1e-30f)));  // w = 0: s0 = 0
    const __m512 s0 = _mm512_mul_ps(w, r);
    const __m512 h = _mm512_mul_ps(_mm512_mul_ps(_mm512_fnmadd_ps(s0, s0, w), r), half);
    const __m512 s = _mm512_add_ps(s0, h);
    const __m512 sl2 = _mm512_add_ps(_mm512_sub_ps(s0, s), h);  // sl, doubled below
    __m512 y = _mm512_mask_blend_ps(small, _mm512_mul_ps(_mm512_set1_ps(-2.0f), s), ax);
    __m512 yl = _mm512_maskz_mul_ps(big, _mm512_set1_ps(-2.0f), sl2);
    __m512 hi = _mm512_maskz_mov_ps(big, _mm512_set1_ps(kPio2HF));
    if constexpr (kAcos) {  // pi/2 - sgn(x) (hi + y + ...)
      const __m512i nsx = _mm512_andnot_si512(_mm512_castps_si512(v), sign);
      y = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(y), nsx));
      yl = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(yl), nsx));
      hi = _mm512_add_ps(_mm512_set1_ps(kPio2HF), _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(hi), nsx)));
    }
    __m512 p = _mm512_set1_ps(kAsinNF[4]);
    for (int k = 3; k >= 0; --k) p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(kAsinNF[k]));
    const __m512 sh = _mm512_add_ps(hi, y), e = _mm512_sub_ps(y, _mm512_sub_ps(sh, hi));
    const __m512 lo = _mm512_fmadd_ps(_mm512_mul_ps(y, z), p, _mm512_fmadd_ps(hi, _mm512_set1_ps(kPio2LF / kPio2HF), yl));
    __m512 res = _mm512_add_ps(sh, _mm512_add_ps(e, lo));
    if constexpr (!kAcos)  // x's sign
      res = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(sign, _mm512_castps_si512(v), _mm512_castps_si512(res), 0xca));  // sign ? v : res
    return _mm512_mask_mov_ps(res, _mm512_cmp_ps_mask(ax, _mm512_set1_ps(1.0f), _CMP_GT_OQ), _mm512_set1_ps(Lim<float>::nan));
  });
}
#endif
#endif

}  // namespace lucid::cpu::vmath
