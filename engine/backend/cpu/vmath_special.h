#pragma once
// Branch-free erf, erfc and erfinv for float (see vmath_base.h). On the baseline build erf and erfc
// compute in double and round once: erf = x P(x^2) near 0, erfc = e^{-x^2} R(x) in the middle and
// e^{-x^2} S(1/x^2) / x in the tail (minimax fits, relative error below 1e-9). On the FMA builds erf is
// native float, and so is erfc below |x| = 4.5 (the double tail above; on AVX-512 the table kernel of
// vmath_erfc_table.h); erfinv is native float too (double fits in Giles' variable w = -log(1 - y^2) on
// the baseline build; below).
#include "backend/cpu/vmath_exp.h"
#if defined(__AVX512F__) && defined(__FMA__)
#include "backend/cpu/vmath_erfc_table.h"
#endif

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
#if defined(__FMA__)
// Native float erfc (AVX2 builds; AVX-512 has the table kernel; max 0.83 ulp over all floats) for |x| <
// 4.5: erfc(a) = e^{-E} R(a) with a = |x| and E = a (k a + b) = eh + el kept exact (fma), where
// k a^2 + b a, close to a^2 + log(1 / erfc(a) e^{-a^2}), leaves R flat (0.86..1.18; k = 7/8, b = 1 below
// a = 1.5, k = 15/16, b = 3/4 above), so that the float rounding errors of the polynomial in R stay
// small against it. e^{-E} = 2^n e^{rh + rl} with rh exact (a multiple of 2^-25 below 1/2), e^rh =
// 1 + rh + A; R = 31/32 + T with T a polynomial on each range (both evaluated, one selected), and R e^rh
// summed as s + se + small terms, so that only the last addition rounds at full size. x < 0: 2 - erfc(-x).
// Minimax fits (Lawson, relative error below 2^-28.4) with float coefficients.
constexpr float kErfcLoF[] = {0.031570293f, 0.08665407f, 0.07092299f, -0.04698956f, 0.010638623f,
                              -0.0047218786f, 0.0019625034f, -0.0006391748f, 0.00024802683f,
                              -8.345081e-05f};  // on [0, 1.5], in a - 0.75
constexpr float kErfcHiF[] = {-0.0010789201f, 0.06894298f, -0.01679507f, -0.008485377f, 0.0009421379f,
                              -7.801586e-06f, 3.7681963e-05f, -1.0192806e-05f, 1.6345535e-06f,
                              -5.210054e-07f, 1.2553991e-07f};  // on [1.5, 4.5], in a - 3
constexpr float kErfcExpF[] = {0.49999994f, 0.16666521f, 0.041668262f, 0.008368671f,
                               0.0013821042f};  // (e^r - 1 - r) / r^2 on |r| <= ln2/2
// erfc(x) for |x| < 4.5 (other x: finite or NaN garbage, selected away by erfc)
LUCID_VM float erfc_nf(float x) {
  const float a = abs_(x);
  const bool lo = a < 1.5f;
  const float k = lo ? 0.875f : 0.9375f, b = lo ? 1.0f : 0.75f;
  const float w = std::fma(a, k, b), wl = std::fma(a, k, b - w);  // k a + b = w + wl
  const float eh = a * w, el = std::fma(a, wl, std::fma(a, w, -eh));  // E = eh + el
  const float t = std::fma(eh, -1.44269504088896341f, Lim<float>::magic);  // low bits: n = round(-E / ln2)
  const float q = t - Lim<float>::magic;
  const float rh = std::fma(q, -0.693147182f, -eh);  // exact
  const float rl = std::fma(q, 1.9046543e-09f, -el);  // -E - n ln2 = rh + rl (ln2 in two floats)
  const float A = (rh * rh) * poly_fma(rh, kErfcExpF);
  const float T = lo ? poly_fma(a - 0.75f, kErfcLoF) : poly_fma(a - 3.0f, kErfcHiF);
  const float Rh = 0.96875f + T;
  const float Rl = std::fma(Rh, rl, (0.96875f - Rh) + T);  // R e^rl = Rh + Rl
  const float s = std::fma(Rh, rh, Rh), se = std::fma(Rh, rh, Rh - s);  // Rh (1 + rh) = s + se
  const float y = s + (se + std::fma(Rh, A, std::fma(Rl, rh + A, Rl)));
  const float c = i2f(f2i(y) + (f2i(t) << 23));  // y 2^n
  return x < 0.0f ? 2.0f - c : c;
}
// erfc(x) for |x| >= 4.5 and NaN: erfc_pos's tail alone, in double (0 beyond 10.1)
LUCID_VM float erfc_tail(float xf) {
  const double ax = abs_(double(xf)), a = ax > 10.1 ? 10.1 : ax < 4.0 ? 4.0 : ax;
  const double inv = 1.0 / a;
  const double c = ax > 10.1 ? 0.0 : exp_for_float(-(a * a)) * inv * poly(inv * inv, kErfcTail);
  return sel(xf != xf, xf, float(xf < 0.0f ? 2.0 - c : c));
}
// Blocks whose lanes all have |x| < 4.5 take erfc_fast alone; erfc adds the double tail (its division)
// for the others, with the same results below 4.5. On AVX-512 erfc_fast is the table kernel of
// vmath_erfc_table.h (erfc_nf's 58 ops per 16 lanes were slower than PyTorch's SLEEF erfc; the table
// kernel takes 31), whose vector form erfc_tab_block is the unary loop's fast block (vmath_unary.h).
#if defined(__AVX512F__)
LUCID_VM float erfc_fast(float x) { return erfc_tab(x); }
#else
LUCID_VM float erfc_fast(float x) { return erfc_nf(x); }
#endif
LUCID_VM bool erfc_fast_ok(float x) { return abs_(x) < 4.5f; }  // NaN: no
LUCID_VM float erfc(float x) { return abs_(x) < 4.5f ? erfc_fast(x) : erfc_tail(x); }
#else
// Blocks whose lanes all have |x| < 4 skip the tail (its division above all): erfc_fast gives the
// same results as erfc there (the select before 2 - c keeps the roundings of erfc's).
LUCID_VM bool erfc_fast_ok(float x) { return abs_(x) < 4.0f; }  // NaN: no
LUCID_VM float erfc_fast(float xf) {
  const double x = xf, ax = abs_(x);
  const double small = 1.0 - x * poly(x * x, kErfSmall);
  const double c = ax < 4.0 ? exp_for_float(-(ax * ax)) * poly(ax, kErfcMid) : 0.0;
  const double big = x < 0.0 ? 2.0 - c : c;
  return float(ax < 0.75 ? small : big);
}
LUCID_VM float erfc(float xf) {
  const double x = xf, ax = abs_(x);
  const double small = 1.0 - x * poly(x * x, kErfSmall);
  const double c = erfc_pos(ax);
  const double big = x < 0.0 ? 2.0 - c : c;
  return float(ax < 0.75 ? small : sel(x != x, x, big));
}

#endif

#if defined(__FMA__)
// Native float erfinv (FMA builds; max 0.657 ulp over all floats, the same on avx2 and avx512; PyTorch's
// is 0.544). V = log(1 - y^2) (-w, Giles' variable) in two floats: 1 - y^2 = uh + ul exactly (y^2 = z + zl
// by an fma), uh = 2^e m with m in [sqrt(1/2), sqrt(2)), log m = f + F^2 (Q(F) F - 1/2) with f = m - 1
// exact and F = f + ul 2^-e, e ln2 with ln2 in two parts (e ln2h exact) and the rounding of the sum kept
// (vh + vl). Then erfinv = y P with P = ph + t: for |y| <= 0.99, P = c0 + c1 V + V^2 R(V) in vh, with
// c0 + c1 vh = ph + pl exact (fma) and c1 vl added to the small part; above, P in s = sqrt(-V) =
// sqrt(-vh) + rs / (2 sh) (rs the residual), a0 + a1 d + d^2 T(d) with d = sh - s0 exact and Pt(s0) = a0
// to 2^-34, rs P' / (2 s) a line in d. y P = fma(y, ph, y t) rounds once at full size. Minimax fits
// (Lawson, float coefficients): Q to 2^-27 absolute, P to 2^-29.7 and Pt to 2^-28.1 relative; c0 =
// sqrt(pi)/2 in two parts (the low one through vl, as kErfinvK). |y| < 2^-100: fma(y, c0 - 1, y), one
// rounding (y t would round again as a subnormal).
constexpr float kErfinvLogQF[] = {0.333341658f, -0.250016987f, 0.199548796f, -0.165644273f, 0.149779558f,
                                  -0.143789858f, 0.0867226422f};  // (log(1+f) - f + f^2/2) / f^3
constexpr float kErfinvC0 = 0.886226952f, kErfinvC1 = -0.232013628f;
constexpr float kErfinvRF[] = {0.011549796f, 0.00233692373f, -0.000124465645f, -4.26293773e-05f, 4.70955229e-06f,
                               2.13447538e-06f, 2.39471916e-07f, 9.68297975e-09f};  // on log(1 - 0.99^2) <= V <= 0
constexpr float kErfinvK = -2.662320023830404e-08f / kErfinvC1;  // (sqrt(pi)/2 - c0) / c1
constexpr float kErfinvLn2H = 0.693145751953125f, kErfinvLn2L = 1.4286068203094173e-06f;
constexpr float kErfinvS0 = 2.9998691082000732f, kErfinvA0 = 2.832845687866211f, kErfinvA1 = 1.00167286f;
constexpr float kErfinvTF[] = {0.00944877975f, -0.00764781795f, 0.00568306446f, -0.00355411251f, 0.00150673056f,
                               -0.000163217075f, -0.000333672244f, 0.000223832161f, 5.01540171e-06f,
                               -3.55041666e-05f};  // on 1.97 <= s <= 4, in d = s - s0
// V = vh + vl - kErfinvK for |y| < 1 (other y: garbage, selected away)
LUCID_VM float erfinv_logu(float y, float& vl) {
  const float z = y * y, zl = std::fma(y, y, -z);
  const float uh = 1.0f - z, ul = ((1.0f - uh) - z) - zl;  // 1 - y^2 = uh + ul
  const int32_t ix = f2i(uh) - 0x3f3504f3;
  const float e = float(ix >> 23);
  const float sc = i2f((127 << 23) - (ix & int32_t(0xff800000)));  // 2^-e
  const float f = std::fma(uh, sc, -1.0f);  // m - 1, exact
  const float F = std::fma(ul, sc, f);
  const float g = std::fma(F, poly_fma(F, kErfinvLogQF), -0.5f);
  const float L = std::fma(F * F, g, f) + std::fma(e, kErfinvLn2L, std::fma(ul, sc, kErfinvK));
  const float vh = std::fma(e, kErfinvLn2H, L);
  vl = std::fma(e, kErfinvLn2H, -vh) + L;
  return vh;
}
LUCID_VM float erfinv_mid(float vh, float vl, float& t) {  // P = ph + t for |y| <= 0.99
  const float ph = std::fma(kErfinvC1, vh, kErfinvC0);
  const float pl = std::fma(kErfinvC1, vh, kErfinvC0 - ph);  // c0 + c1 vh = ph + pl
  t = std::fma(kErfinvC1, vl, std::fma(vh * vh, poly_fma(vh, kErfinvRF), pl));
  return ph;
}
LUCID_VM float erfinv_tail(float vh, float vl, float& t) {  // P = ph + t for 0.99 < |y| < 1
  const float sh = std::sqrt(-vh), d = sh - kErfinvS0;
  const float ph = std::fma(kErfinvA1, d, kErfinvA0);
  const float pl = std::fma(kErfinvA1, d, kErfinvA0 - ph);
  const float rs = (std::fma(-sh, sh, -vh) + kErfinvK) - vl;  // w - sh^2
  t = std::fma(rs, std::fma(-0.0522369295f, d, 0.170950189f), std::fma(d * d, poly_fma(d, kErfinvTF), pl));
  return ph;
}
LUCID_VM float erfinv_sign(float y, float r) { return i2f(f2i(r) | (f2i(y) & int32_t(0x80000000))); }  // -0 stays
// Blocks whose lanes all have 2^-100 <= |y| <= 0.99 or y = 0 take erfinv_fast (no square root, one fit);
// erfinv computes both fits and selects, with the same results there.
LUCID_VM bool erfinv_fast_ok(float y) {  // on the bits, without && (which would not vectorise); NaN: no
  const int32_t a = f2i(y) & 0x7fffffff;
  return int32_t(a <= 0x3f7d70a4) & int32_t(uint32_t(a - 1) >= 0x0d7fffffu);  // 0.99f; 0 or 2^-100 and up
}
LUCID_VM float erfinv_fast(float y) {
  float vl, t;
  const float vh = erfinv_logu(y, vl);
  const float ph = erfinv_mid(vh, vl, t);
  return erfinv_sign(y, std::fma(y, ph, y * t));
}
LUCID_VM float erfinv(float y) {
  float vl, t1, t2;
  const float vh = erfinv_logu(y, vl);
  const float ph1 = erfinv_mid(vh, vl, t1), ph2 = erfinv_tail(vh, vl, t2);
  const float a = abs_(y);
  const bool mid = a <= 0.99f;
  const float ph = mid ? ph1 : ph2, t = mid ? t1 : t2;
  float r = erfinv_sign(y, a < 0x1p-100f ? std::fma(y, -0.113773078f, y) : std::fma(y, ph, y * t));
  r = a == 1.0f ? copysign_(Lim<float>::inf, y) : r;
  return a > 1.0f || y != y ? Lim<float>::nan : r;
}
#else
// Baseline build: erfinv in double, rounded once (max 0.509 ulp over all floats, as accurate as
// PyTorch's float erfinv, 0.544 ulp): erfinv(y) = y P(w) with w = -log(1 - y^2) (Giles' variable; 1 - y^2 = (1 - y)
// (1 + y) is exact in double), P a minimax fit in w on [0, 4] (|y| <= 0.9908), in w on [4, 6.25] and in
// sqrt(w) on [6.25, 16.1] (w <= 15.95 for floats below 1), relative error below 1e-9. Blocks whose
// lanes are all within |y| <= 0.99 compute the first fit only (erfinv_fast: the same results).
// Replaces PyTorch's calc_erfinv (a rational guess and two Newton steps), which did not vectorise
// here: its two erf/exp evaluations per Newton step made the loop too costly for the vectoriser.
constexpr double kErfinvW1[] = {1.3772152109674272, 0.24976807479844776, -0.0019681355222691036,
                                -0.0016921732079173992, 0.0002159202945903019, 7.611219399341413e-06,
                                -4.8617710017236015e-06, 3.021891816020912e-07, 6.55468474313277e-08,
                                -9.588323456915646e-09};  // w - 2
constexpr double kErfinvW2[] = {2.106412329946349, 0.21189284061301267, -0.007210978343489244,
                                0.00015542085078615894, 4.644763812266927e-05, -9.773416076900386e-06,
                                9.384797647183189e-07};  // w - 5.125
constexpr double kErfinvS[] = {3.0901589007783623, 1.0053255675556652, 0.005301277200883952,
                               -0.0036898146446372898, 0.0024391112000662868, -0.0016513709241627273,
                               0.0009393311206002168, -0.0003603913656412747, 2.287387671465043e-05,
                               7.910416788597209e-05, -3.957640593715116e-05};  // sqrt(w) - 3.256240264773888
// log(1 + f) / f on sqrt(1/2) - 1 <= f <= sqrt(2) - 1 (absolute error of log(1 + f) 8e-10)
constexpr double kErfinvLog[] = {0.9999999999709588, -0.4999997502374384, 0.333333193646092,
                                 -0.25002429826435757, 0.2000278422401759, -0.165934508670865,
                                 0.14160261579613048, -0.13332896908529243, 0.13058242586607058,
                                 -0.07607373906296103};
// w = -log(1 - y^2) for |y| < 1 (1 - y^2 >= 2^-24: normal)
LUCID_VM double erfinv_w(double y) {
  const int64_t ix = d2i((1.0 - y) * (1.0 + y)) + (0x3ff0000000000000LL - 0x3fe6a09e667f3bcdLL);
  const double fe = double((ix >> 52) - 1023);
  const double f = i2d((ix & 0x000fffffffffffffLL) + 0x3fe6a09e667f3bcdLL) - 1.0;
  return -(f * poly(f, kErfinvLog) + fe * 0.69314718055994530942);
}
LUCID_VM bool erfinv_fast_ok(float y) { return abs_(y) <= 0.99f; }  // NaN: no
LUCID_VM float erfinv_fast(float yf) {
  const double y = yf;
  return float(y * poly(erfinv_w(y) - 2.0, kErfinvW1));
}
LUCID_VM float erfinv(float yf) {
  const float ay = abs_(yf);
  const double y = yf;
  const double w = erfinv_w(ay < 1.0f ? y : 0.0);
  const double p = w <= 4.0 ? poly(w - 2.0, kErfinvW1)
                 : w <= 6.25 ? poly(w - 5.125, kErfinvW2) : poly(std::sqrt(w) - 3.256240264773888, kErfinvS);
  float r = float(y * p);  // +-0 stay
  r = ay == 1.0f ? copysign_(Lim<float>::inf, yf) : r;
  return ay > 1.0f || yf != yf ? Lim<float>::nan : r;
}

#endif

}  // namespace lucid::cpu::vmath
