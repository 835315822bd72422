#pragma once
// Branch-free exp/log family for float and double (vectorisable; see vmath_base.h): exp, exp2,
// expm1, log, log2, log10, log1p, tanh (on AVX-512 half from the table of vmath_tanh_table.h), sinh,
// cosh, atanh, sigmoid. Errors (max ulp over dense grids, tests/python/test_unary_accuracy.py) are
// within PyTorch's SLEEF 1-ulp functions. Float functions that PyTorch computes slowly anyway (expm1,
// log1p, ...) run in double internally, which makes them correctly rounded but for rare ties.
#include "backend/cpu/vmath_base.h"
#if defined(__AVX512F__) && defined(__FMA__)
#include "backend/cpu/vmath_tanh_table.h"
#endif

namespace lucid::cpu::vmath {

// Minimax coefficients (discrete Remez, relative error) of:
// (e^r - 1 - r) / r^2 on |r| <= ln2/2
constexpr float kExpF[] = {0.5f, 0.1666666716337204f, 0.04166646674275398f, 0.008333360776305199f,
                           0.0013933597365394235f, 0.00019857801089528948f};
constexpr double kExpD[] = {0.5, 0.1666666666666667, 0.041666666666666616, 0.008333333333326167,
                            0.0013888888888917953, 0.00019841269874720942, 2.4801587245751432e-05,
                            2.7557255514102585e-06, 2.7557349612557486e-07, 2.510517366849171e-08,
                            2.088937580199898e-09};
constexpr double kExpm1F[] = {0.5000000000020879, 0.16666666718769874, 0.04166666640541188,
                              0.008333298559621801, 0.0013888923741853267, 0.00019899223410969346,
                              2.482087159369201e-05};
// (2^r - 1) / r on |r| <= 1/2
constexpr float kExp2F[] = {0.6931471824645996f, 0.24022650718688965f, 0.05550410598516464f,
                            0.009618056938052177f, 0.0013333669630810618f, 0.00015461329894606024f,
                            1.525272000435507e-05f};
constexpr double kExp2D[] = {0.6931471805599453, 0.24022650695910072, 0.055504108664821625,
                             0.009618129107628437, 0.001333355814640663, 0.00015403530393466168,
                             1.525273384137854e-05, 1.321548672135689e-06, 1.0178057169265113e-07,
                             7.054932272729735e-09, 4.4558048566799065e-10, 2.5678426856934126e-11};
// (log(1+f) - f + f^2/2) / f^3 on sqrt(1/2)-1 <= f <= sqrt(2)-1 (= Cephes logf)
constexpr float kLogF[] = {0.3333333134651184f, -0.24999994039535522f, 0.2000071406364441f,
                           -0.16668057441711426f, 0.14249323308467865f, -0.12420140951871872f,
                           0.11676997691392899f, -0.11514608561992645f, 0.07037685066461563f};
constexpr double kLn2HiD = 6.93147180369123816490e-01, kLn2LoD = 1.90821492927058770002e-10;
constexpr double kL2U = .69314718055966295651160180568695068359375;  // ln2 with 20 trailing zero bits
constexpr double kL2L = .28235290563031577122588448175013436025525412068e-12;
constexpr double kLog2eD = 1.4426950408889634074;

// ---------------------------------------------------------------- exp
LUCID_VM float exp(float x) {
  const float xc = sel(x < -104.0f, -104.0f, sel(x > 89.0f, 89.0f, x));  // NaN passes
  int32_t n;
  const float q = round_int(xc * 1.44269504088896341f, n);
  float r = xc - q * 0.693359375f;
  r = r - q * -2.12194440e-4f;
  return ldexp2(r * r * poly(r, kExpF) + r + 1.0f, n);
}

// Fast versions for the common range: 2^n applied by adding n to the exponent bits (one shift: the
// low bits of x / ln2 + 1.5 * 2^23 are n); the loop uses them for blocks where every lane is in range
// (exp_fast_ok) and the full versions above otherwise (denormal and infinite results, NaN).
LUCID_VM bool exp_fast_ok(float x) { return x > -86.5f && x < 88.0f; }
LUCID_VM bool exp_fast_ok(double x) { return x > -707.0 && x < 709.0; }
LUCID_VM float exp_fast(float x) {
  const float t = x * 1.44269504088896341f + Lim<float>::magic;
  const float q = t - Lim<float>::magic;
  float r = x - q * 0.693359375f;
  r = r - q * -2.12194440e-4f;
  const float y = r * r * poly(r, kExpF) + r + 1.0f;
  return i2f(f2i(y) + (f2i(t) << 23));
}
LUCID_VM double exp_fast(double x) {
  const double t = x * kLog2eD + Lim<double>::magic;
  const double q = t - Lim<double>::magic;
  const double r = (x - q * kL2U) - q * kL2L;
  const double y = r * r * poly(r, kExpD) + r + 1.0;
  return i2d(d2i(y) + (d2i(t) << 52));
}

// e^x = 2^n (1 + hi + lo) with |hi| <= 0.42, lo of the order of 2^-53 hi; x is clamped.
LUCID_VM double exp_kernel(double x, int64_t& n, double& lo) {
  const double xc = sel(x < -746.0, -746.0, sel(x > 746.0, 746.0, x));
  const double q = round_int(xc * kLog2eD, n);
  const double rh = xc - q * kL2U;  // exact
  const double t = q * -kL2L;
  double c;
  const double r = fast_two_sum(rh, t, c);
  double e1;
  const double hi = fast_two_sum(r, r * r * poly(r, kExpD), e1);
  lo = e1 + c * (1.0 + r);
  return hi;
}
LUCID_VM double exp(double x) {
  const double xc = sel(x < -746.0, -746.0, sel(x > 710.0, 710.0, x));
  int64_t n;
  const double q = round_int(xc * kLog2eD, n);
  const double r = (xc - q * kL2U) - q * kL2L;
  return ldexp2(r * r * poly(r, kExpD) + r + 1.0, n);
}

LUCID_VM float exp2(float x) {
  const float xc = sel(x < -151.0f, -151.0f, sel(x > 129.0f, 129.0f, x));
  int32_t n;
  const float r = xc - round_int(xc, n);
  return ldexp2(r * poly(r, kExp2F) + 1.0f, n);
}
LUCID_VM double exp2(double x) {
  const double xc = sel(x < -1080.0, -1080.0, sel(x > 1025.0, 1025.0, x));
  int64_t n;
  const double r = xc - round_int(xc, n);
  return ldexp2(r * poly(r, kExp2D) + 1.0, n);
}

LUCID_VM float expm1(float xf) {
  const double x = sel(xf < -110.0f, -110.0f, sel(xf > 89.0f, 89.0f, xf));
  int64_t n;
  const double q = round_int(x * kLog2eD, n);
  const double r = x - q * kLn2HiD - q * kLn2LoD;
  const double em = r * r * poly(r, kExpm1F) + r;
  const double scale = pow2i(n);
  const float y = float(em * scale + (scale - 1.0));
  return sel(xf == 0.0f, xf, y);
}
LUCID_VM double expm1(double x) {
  const double xc = sel(x < -40.0, -40.0, x);  // expm1(-40) rounds to -1
  int64_t n;
  double lo;
  const double hi = exp_kernel(xc, n, lo);
  const double scale = pow2i(n < 1000 ? n : int64_t(1000));
  double e2;
  const double s = two_sum(scale * hi, scale - 1.0, e2);
  const double small = s + (e2 + scale * lo);
  // n > 52: 2^n - 1 is not exact; 2^n (1 + hi) in two parts, then the -1 with the low part
  double e3;
  const double s3 = fast_two_sum(scale, scale * hi, e3);
  const double mid = s3 + ((e3 - 1.0) + scale * lo);
  double e1;
  const double one_hi = fast_two_sum(1.0, hi, e1);
  const double big = ldexp2(one_hi + (e1 + lo), n);
  const double y = n > 52 ? (n > 1000 ? big : mid) : small;
  return sel(x == 0.0, x, y);
}

// ---------------------------------------------------------------- log
// log(1 + f) + fe ln2 for sqrt(1/2)-1 <= f <= sqrt(2)-1: f + f^2 Q(f), Q = -1/2 + f P(f) (Cephes'
// P, kLogF, with its -f^2/2 folded in: one op fewer than f^3 P(f) - f^2/2, 4% of log's time), ln2
// in two parts. Max error over every float 0.841 ulp with FMA (0.827 unfolded), 0.917 without.
constexpr float kLogQ[] = {-0.5f, kLogF[0], kLogF[1], kLogF[2], kLogF[3], kLogF[4], kLogF[5], kLogF[6], kLogF[7], kLogF[8]};
LUCID_VM float log_kernel(float f, float fe) {
  const float z = f * f;
  float y = z * poly(f, kLogQ);
  y = y + fe * -2.12194440e-4f;
  return (f + y) + fe * 0.693359375f;
}
LUCID_VM float log(float x) {
  const bool sub = x < 1.17549435e-38f;
  int32_t ix = f2i(sub ? x * 8388608.0f : x) + (0x3f800000 - 0x3f3504f3);
  const int32_t e = (ix >> 23) - 127 - (sub ? 23 : 0);
  const float f = i2f((ix & 0x007fffff) + 0x3f3504f3) - 1.0f;
  float r = log_kernel(f, float(e));
  r = sel(x == Lim<float>::inf, x, r);
  r = sel(x == 0.0f, -Lim<float>::inf, r);
  return sel(x >= 0.0f, r, Lim<float>::nan);
}

// Fast versions for positive normal finite x (the full ones add denormals and special values).
template <typename T> LUCID_VM bool log_fast_ok(T x) {
  return x >= std::numeric_limits<T>::min() && x <= std::numeric_limits<T>::max();
}
LUCID_VM float log_fast(float x) {
  const int32_t ix = f2i(x) + (0x3f800000 - 0x3f3504f3);
  return log_kernel(i2f((ix & 0x007fffff) + 0x3f3504f3) - 1.0f, float((ix >> 23) - 127));
}

// log(1 + f) = f - hfsq + s (hfsq + R(s^2)), s = f / (2 + f) (fdlibm).
constexpr double kLg[] = {6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
                          2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
                          1.479819860511658591e-01};
// Splits x > 0 (finite, denormals too) into 2^e (1 + f), sqrt(1/2) <= 1 + f < sqrt(2).
LUCID_VM double log_split(double x, double& fe) {
  const bool sub = x < 2.2250738585072014e-308;
  const int64_t ix = d2i(sub ? x * 18014398509481984.0 : x) + (0x3ff0000000000000LL - 0x3fe6a09e667f3bcdLL);
  fe = double((ix >> 52) - 1023 - (sub ? 54 : 0));
  return i2d((ix & 0x000fffffffffffffLL) + 0x3fe6a09e667f3bcdLL) - 1.0;
}
LUCID_VM double log_r(double f, double& hfsq, double& s) {
  s = f / (2.0 + f);
  const double z = s * s, w = z * z;
  const double t1 = w * (kLg[1] + w * (kLg[3] + w * kLg[5]));
  const double t2 = z * (kLg[0] + w * (kLg[2] + w * (kLg[4] + w * kLg[6])));
  hfsq = 0.5 * f * f;
  return t1 + t2;
}
template <typename T>
LUCID_VM T log_special(T x, T r) {
  r = sel(x == Lim<T>::inf, x, r);
  r = sel(x == T(0), -Lim<T>::inf, r);
  return sel(x >= T(0), r, Lim<T>::nan);
}
LUCID_VM double log_fast(double x) {
  const int64_t ix = d2i(x) + (0x3ff0000000000000LL - 0x3fe6a09e667f3bcdLL);
  const double fe = double((ix >> 52) - 1023);
  const double f = i2d((ix & 0x000fffffffffffffLL) + 0x3fe6a09e667f3bcdLL) - 1.0;
  double hfsq, s;
  const double R = log_r(f, hfsq, s);
  return fe * kLn2HiD - ((hfsq - (s * (hfsq + R) + fe * kLn2LoD)) - f);
}
LUCID_VM double log(double x) {
  double fe, hfsq, s;
  const double f = log_split(x, fe);
  const double R = log_r(f, hfsq, s);
  const double r = fe * kLn2HiD - ((hfsq - (s * (hfsq + R) + fe * kLn2LoD)) - f);
  return log_special(x, r);
}
// log2/log10: the log of the mantissa in two parts, hi with its low 32 bits cleared (musl).
LUCID_VM double log_hilo(double f, double hfsq, double s, double R, double& lo) {
  double hi = f - hfsq;
  hi = i2d(d2i(hi) & int64_t(0xffffffff00000000ULL));
  lo = f - hi - hfsq + s * (hfsq + R);
  return hi;
}
LUCID_VM double log2(double x) {
  double fe, hfsq, s, lo;
  const double f = log_split(x, fe);
  const double R = log_r(f, hfsq, s);
  const double hi = log_hilo(f, hfsq, s, R, lo);
  const double vhi = hi * 1.44269504072144627571e+00;
  double vlo = (lo + hi) * 1.67517131648865118353e-10 + lo * 1.44269504072144627571e+00;
  const double w = fe + vhi;
  vlo += (fe - w) + vhi;
  return log_special(x, vlo + w);
}
LUCID_VM double log10(double x) {
  double fe, hfsq, s, lo;
  const double f = log_split(x, fe);
  const double R = log_r(f, hfsq, s);
  const double hi = log_hilo(f, hfsq, s, R, lo);
  const double vhi = hi * 4.34294481878168880939e-01;
  const double y2 = fe * 3.01029995663611771306e-01;
  double vlo = fe * 3.69423907715893078616e-13 + (lo + hi) * 2.50829467116452752298e-11 + lo * 4.34294481878168880939e-01;
  const double w = y2 + vhi;
  vlo += (y2 - w) + vhi;
  return log_special(x, vlo + w);
}
// log1p(x + xl), xl a small low part of the argument
LUCID_VM double log1p2(double x, double xl) {
  double c;
  const double u = two_sum(1.0, x, c);
  c = (c + xl) / u;  // the rounding error of 1 + x (and xl), relative to u
  double fe, hfsq, s;
  const double f = log_split(u, fe);
  const double R = log_r(f, hfsq, s);
  double r = fe * kLn2HiD - ((hfsq - (s * (hfsq + R) + (fe * kLn2LoD + c))) - f);
  r = sel(x == 0.0, x, r);
  r = sel(x == Lim<double>::inf, x, r);
  r = sel(x == -1.0, -Lim<double>::inf, r);
  return sel(x >= -1.0, r, Lim<double>::nan);
}

LUCID_VM double log1p(double x) { return log1p2(x, 0.0); }

// Float log2/log10/log1p in double: u = 2^e (1 + f), log(1 + f) = f Q(f) on sqrt(1/2)-1 <= f <=
// sqrt(2)-1 (minimax, relative error 1.6e-11; no division).
constexpr double kLogM[] = {0.9999999999859575, -0.500000000294076, 0.33333334333733355, -0.24999994081111762,
                            0.19999881144577467, -0.16666943367664505, 0.14290986930198077, -0.12497485600267963,
                            0.11005084030508766, -0.09922847127456666, 0.10033195500376824, -0.09900877192361764,
                            0.05362919755248147};
LUCID_VM double log_m_for_float(double u, double& fe) {
  const double f = log_split(u, fe);
  return f * poly(f, kLogM);
}
#if defined(__FMA__)
// Float log2/log10/log1p in float (FMA builds): x = 2^e (1 + f) as in log; log_b(1 + f) = f c + t with
// c = 1/ln(b) in one float and t = c1 f^2 + (c_lo f + f^3 R(f)) (minimax, relative error 5e-9), f^2
// rounded (its exact low part, two more ops, moved the error by 0.03-0.04 ulp: 8% of the time); then
// e log_b(2) + f c + t in one fma (e log10(2) with a 15-bit high part, exact). Max error 0.923 ulp
// (log2), 0.891 (log10) over every float; log1p as log: 0.85.
constexpr float kLog2R[] = {0.48089823f, -0.36069867f, 0.28856954f, -0.23956595f,
                            0.20452355f, -0.19144076f, 0.1868616f, -0.10984447f};
constexpr float kLog10R[] = {0.1447648f, -0.1085809f, 0.08686769f, -0.072121814f,
                             0.061579313f, -0.057595156f, 0.056157853f, -0.03303598f};
// sqrt(1/2) <= 1 + f < sqrt(2) with x = 2^fe (1 + f), x positive normal
LUCID_VM float log_split_f(float x, float& fe) {
  const int32_t ix = f2i(x) + (0x3f800000 - 0x3f3504f3);
  fe = float((ix >> 23) - 127);
  return i2f((ix & 0x007fffff) + 0x3f3504f3) - 1.0f;
}
LUCID_VM float log2_m(float f, float fe) {
  const float z = f * f;
  const float c1 = -0.72134733f;
  const float t = std::fma(z, c1, std::fma(f, 1.9203574e-08f, z * (f * poly(f, kLog2R))));
  return fe + std::fma(f, 1.4426950216293335f, t);
}
LUCID_VM float log10_m(float f, float fe) {
  const float z = f * f;
  const float c1 = -0.21714719f;
  const float lo = std::fma(f, -1.01199245e-08f, std::fma(fe, 4.6050390e-06f, z * (f * poly(f, kLog10R))));
  const float t = std::fma(z, c1, lo);
  return std::fma(fe, 0.301025390625f, std::fma(f, 0.4342944920063019f, t));
}
LUCID_VM float log2_fast(float x) {
  float fe;
  const float f = log_split_f(x, fe);
  return log2_m(f, fe);
}
LUCID_VM float log10_fast(float x) {
  float fe;
  const float f = log_split_f(x, fe);
  return log10_m(f, fe);
}
LUCID_VM float log2(float x) {
  const bool sub = x < 1.17549435e-38f;
  float fe;
  const float f = log_split_f(sub ? x * 8388608.0f : x, fe);
  return log_special(x, log2_m(f, fe - (sub ? 23.0f : 0.0f)));
}
LUCID_VM float log10(float x) {
  const bool sub = x < 1.17549435e-38f;
  float fe;
  const float f = log_split_f(sub ? x * 8388608.0f : x, fe);
  return log_special(x, log10_m(f, fe - (sub ? 23.0f : 0.0f)));
}
// log(u) + s for u = 2^fe (1 + f) as in log, and a term s far below log(u)'s ulp joining its small
// terms (log1p's and atanh's c / u): Cephes' form, -f^2/2 apart. V is float, or __m512 (atanh's
// AVX-512 kernel, vmath_hyp.h: GCC's vector operators, the same contractions).
template <typename V>
LUCID_VM V log_plus_small(V f, V fe, V s) {
  V p = V{} + kLogF[8];  // poly(f, kLogF), for vectors too
  for (int i = 7; i >= 0; --i) p = p * f + kLogF[i];
  const V z = f * f;
  V y = f * z * p;
  y = y + fe * -2.12194440e-4f;
  y = y + s;
  y = y - 0.5f * z;
  return (f + y) + fe * 0.693359375f;
}
// log1p: u = 1 + x rounded, c = 1 + x - u exactly; log1p(x) = log(u) + c / u. u is 0 or normal: no
// denormal split.
LUCID_VM float log1p(float x) {
  const float u = 1.0f + x;
  const float c = x > 1.0f ? 1.0f - (u - x) : x - (u - 1.0f);
  float fe;
  const float f = log_split_f(u, fe);
  float r = log_plus_small(f, fe, c / u);
  r = sel(x == Lim<float>::inf, x, r);
  r = sel(x == 0.0f, x, r);
  r = sel(x == -1.0f, -Lim<float>::inf, r);
  return sel(x >= -1.0f, r, Lim<float>::nan);
}
#else
LUCID_VM float log2(float x) {
  double fe;
  const double lm = log_m_for_float(double(x), fe);
  return log_special(x, float(fe + lm * kLog2eD));
}
LUCID_VM float log10(float x) {
  double fe;
  const double lm = log_m_for_float(double(x), fe);
  return log_special(x, float(fe * 0.30102999566398119521 + lm * 0.43429448190325182765));
}
LUCID_VM float log1p(float xf) {
  const double x = xf;
  const double u = 1.0 + x;  // exact unless |x| < 2^-29, where the series below is used
  double fe;
  const double lm = log_m_for_float(u, fe);
  const double big = fe * 0.69314718055994530942 + lm;
  const double small = x * (1.0 + x * (-0.5 + x * (1.0 / 3 + x * -0.25)));
  float r = float(x < 1e-4 && x > -1e-4 ? small : big);
  r = sel(xf == 0.0f, xf, r);
  r = sel(xf == Lim<float>::inf, xf, r);
  r = sel(xf == -1.0f, -Lim<float>::inf, r);
  return sel(xf >= -1.0f, r, Lim<float>::nan);
}

LUCID_VM float log2_fast(float x) { return log2(x); }
LUCID_VM float log10_fast(float x) { return log10(x); }
#endif
LUCID_VM double log2_fast(double x) { return log2(x); }
LUCID_VM double log10_fast(double x) { return log10(x); }

// ---------------------------------------------------------------- hyperbolic, sigmoid
#if defined(__FMA__)
// tanh (FMA builds): a + a z P(z) (z = a^2, a = |x|) below a = 0.98; above, 1 - g with g = 2 / D <= 1/4,
// D = e^{2a} + 1, so that g's rounding errors stay below 0.4 ulp of the result. AVX2: D = s (1 + 2 h)
// + 1, s = 2^n, h = (e^{2r} - 1) / 2 (r = a - n ln2 / 2), one division, a clamped at 9.5 (tanh rounds
// to 1 from 9.01) on the bits. AVX-512: g from a table of polynomials (vmath_tanh_table.h), no
// exponential and no division (13% faster). Max error 0.93 ulp over every float on both (at 0.9135, in
// the small path). A NaN lane fails a >= 0.98 and takes the polynomial, which keeps it NaN.
constexpr float kTanhP[] = {-0.3333330452442169f, 0.13332536816596985f, -0.053893472999334335f,
                            0.021531371399760246f, -0.008019871078431606f, 0.0023610300850123167f,
                            -0.0003772576746996492f};  // (tanh(a)/a - 1) / z on a <= 0.98
constexpr float kExpHalfF[] = {0.9999999403953552f, 0.6666616797447205f, 0.3333394527435303f,
                               0.13387002050876617f, 0.0443899966776371f};  // (e^{2r} - 1 - 2r) / (2 r^2)
LUCID_VM float tanh_small(float a) {  // a + a z P(z), a <= 0.98
  const float z = a * a;
  return std::fma(a, z * poly_fma(z, kTanhP), a);
}
#if defined(__AVX512F__)
// AVX-512: above 0.98, 1 - g(a) from the table of vmath_tanh_table.h (no exponential, no division);
// tanh_run is the vector form for a block (the unary loop's run_block calls it), the same bits.
LUCID_VM float tanh(float x) {
  const float a = abs_(x);
  const float y = a >= 0.98f ? tanh_big_tab(a) : tanh_small(a);  // NaN: small, NaN
  return i2f(f2i(y) ^ f2i(x) ^ f2i(a));  // the sign of x
}
inline void tanh_run(const float* x, float* o, int64_t m) {  // o may be x
  const TanhBigTab big;
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff);
  const int64_t mv = m - m % 16;
  for (int64_t j = 0; j < mv; j += 16) {
    const __m512 v = _mm512_loadu_ps(x + j);
    const __m512 a = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v), abs_mask));
    const __m512 z = _mm512_mul_ps(a, a);
    __m512 p = _mm512_set1_ps(kTanhP[6]);
    for (int r = 5; r >= 0; --r) p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(kTanhP[r]));  // poly_fma
    const __m512 small = _mm512_fmadd_ps(a, _mm512_mul_ps(z, p), a);
    const __m512 y = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, _mm512_set1_ps(0.98f), _CMP_GE_OQ), small, big(a));
    const __m512i s = _mm512_ternarylogic_epi32(_mm512_castps_si512(y), _mm512_castps_si512(v),
                                                _mm512_castps_si512(a), 0x96);  // y ^ x ^ |x|: x's sign
    _mm512_storeu_ps(o + j, _mm512_castsi512_ps(s));
  }
  for (int64_t j = mv; j < m; ++j) o[j] = tanh(x[j]);
}
#else
LUCID_VM float tanh(float x) {
  const float a = abs_(x);
  const float small = tanh_small(a);
  const int32_t ab = f2i(a);
  const float ac = i2f(ab < 0x41180000 ? ab : 0x41180000);  // min(a, 9.5)
  const float t = std::fma(ac, 2.0f * 1.44269504088896341f, Lim<float>::magic);
  const float q = t - Lim<float>::magic;
  const float r = std::fma(q, -0.693147182f * 0.5f, ac);
  const float h = std::fma(r * r, poly(r, kExpHalfF), r);
  const float s2 = i2f((f2i(t) << 23) + 0x40000000);  // 2^(n+1): the low bits of t are n
  const float d = std::fma(s2, h, std::fma(s2, 0.5f, 1.0f));
  const float big = std::fma(-2.0f, 1.0f / d, 1.0f);
  const float y = a >= 0.98f ? big : small;
  return i2f(f2i(y) ^ f2i(x) ^ ab);  // the sign of x
}
#endif
#else
// tanh without FMA: in double (a + a z P(z) below a = 0.625, 1 - 2 / (e^{2a} + 1) above), rounded once.
constexpr double kTanhD[] = {-0.3333328068256378, 0.13331405818462372, -0.05373651534318924,
                             0.02062816731631756, -0.0056922961957752705};
LUCID_VM float tanh(float xf) {
  const double x = xf;
  const double a = abs_(x);
  const double z = a * a;
  const double small = a + a * z * poly(z, kTanhD);
  const double ac = a > 9.5 ? 9.5 : a;  // NaN passes
  int64_t n;
  const double q = round_int(2.0 * ac * kLog2eD, n);
  const double r = 2.0 * ac - q * 0.6931471805599453;
  const double e = (r * r * poly(r, kExpm1F) + r + 1.0) * pow2i(n);
  const float y = float(a < 0.625 ? small : 1.0 - 2.0 / (e + 1.0));
  return copysign_(y, xf);
}
#endif
// double: em / (em + 2) with em = expm1(2|x|) in two parts, one division and a correction step.
LUCID_VM double tanh(double x) {
  const double ax = sel(abs_(x) > 40.0, 40.0, abs_(x));
  int64_t n;
  double lo;
  const double hi = exp_kernel(2.0 * ax, n, lo);
  // em = 2^n (1 + hi + lo) - 1 as eh + el
  const double scale = pow2i(n);
  double e2;
  const double eh = two_sum(scale * hi, scale - 1.0, e2);
  const double el = e2 + scale * lo;
  double dl;
  const double dh = two_sum(eh, 2.0, dl);  // em + 2
  dl += el;
  const double q = eh / dh;
  const double res = (std::fma(-q, dh, eh) + el - q * dl) / dh;
  const double y = q + res;
  return sel(x == 0.0 || x != x, x, copysign_(y, x));
}

// sinh/cosh for float in double: e^{|x|} = 2^n e^r and e^{-|x|} = 2^-n e^-r from one reduction.
LUCID_VM void exp_pm_for_float(double ax, double& ep, double& em) {
  int64_t n;
  const double q = round_int(ax * kLog2eD, n);
  const double r = ax - q * kLn2HiD - q * kLn2LoD;
  const double r2 = r * r;
  ep = (r2 * poly(r, kExpm1F) + r + 1.0) * pow2i(n);
  em = (r2 * poly(-r, kExpm1F) - r + 1.0) * pow2i(-n);
}
LUCID_VM float sinh(float xf) {
  const double x = xf;
  const double ax = sel(abs_(x) > 100.0, 100.0, abs_(x));
  double ep, em;
  exp_pm_for_float(ax, ep, em);
  const double z = x * x;
  const double small = x + x * z * (1.0 / 6 + z * (1.0 / 120 + z * (1.0 / 5040 + z * (1.0 / 362880))));
  const double big = copysign_(0.5 * (ep - em), x);
  return float(ax < 0.125 ? small : sel(x != x, x, big));
}
LUCID_VM float cosh(float xf) {
  const double ax = sel(abs_(double(xf)) > 100.0, 100.0, abs_(double(xf)));
  double ep, em;
  exp_pm_for_float(ax, ep, em);
  return float(sel(xf != xf, double(xf), 0.5 * (ep + em)));
}
// e^x / 2 = hi + lo (x >= 0, up to 720; inf above 710.47).
LUCID_VM double half_exp_dd(double x, double& lo) {
  int64_t n;
  double l;
  const double h = exp_kernel(x, n, l);
  double e;
  const double hh = fast_two_sum(1.0, h, e);
  const int64_t n1 = (n - 1) >> 1, n2 = (n - 1) - n1;
  const double s1 = pow2i(n1), s2 = pow2i(n2);
  lo = (e + l) * s1 * s2;
  return hh * s1 * s2;
}
// double: odd Taylor series below |x| = 1 (to x^21), (E - 1/E) / 2 above with E / 2 = 2^(n-1) e^r.
LUCID_VM double sinh(double x) {
  const double ax = sel(abs_(x) > 720.0, 720.0, abs_(x));
  const double z = x * x;
  double p = 1.0 / 51090942171709440000.0;  // 1/21!
  p = p * z + 1.0 / 121645100408832000.0;
  p = p * z + 1.0 / 355687428096000.0;
  p = p * z + 1.0 / 1307674368000.0;
  p = p * z + 1.0 / 6227020800.0;
  p = p * z + 1.0 / 39916800.0;
  p = p * z + 1.0 / 362880.0;
  p = p * z + 1.0 / 5040.0;
  p = p * z + 1.0 / 120.0;
  p = p * z + 1.0 / 6.0;
  const double small = x * z * p + x;
  double el;
  const double eh = half_exp_dd(ax, el);
  const double big = copysign_(eh + (el - 0.25 / eh), x);
  return ax < 1.0 ? small : sel(x != x, x, big);
}
LUCID_VM double cosh(double x) {
  const double ax = sel(abs_(x) > 720.0, 720.0, abs_(x));
  double el;
  const double eh = half_exp_dd(ax, el);
  return sel(x != x, x, eh + (el + 0.25 / eh));
}

// atanh(x) = log((1 + x) / (1 - x)) / 2 (float, in double: 1 +- x are exact); odd series near 0.
LUCID_VM float atanh(float xf) {
  const double x = xf;
  double fe;
  const double lm = log_m_for_float((1.0 + x) / (1.0 - x), fe);
  const double big = 0.5 * (fe * 0.69314718055994530942 + lm);
  const double z = x * x;
  const double small = x + x * z * (1.0 / 3 + z * (1.0 / 5 + z * (1.0 / 7)));
  float r = float(abs_(x) < 1e-3 ? small : big);
  r = sel(abs_(xf) == 1.0f, copysign_(Lim<float>::inf, xf), r);
  return sel(abs_(xf) <= 1.0f, r, Lim<float>::nan);
}
// double: log1p(2|x| / (1 - |x|)) / 2 with the quotient in two parts.
LUCID_VM double atanh(double x) {
  const double ax = abs_(x);
  const double t = ax + ax;
  double dl;
  const double dh = two_sum(1.0, -ax, dl);
  const double q = t / dh;
  const double ql = (std::fma(-q, dh, t) - q * dl) / dh;
  double r = copysign_(0.5 * log1p2(q, ql), x);
  r = sel(x == 0.0, x, r);
  r = sel(ax == 1.0, copysign_(Lim<double>::inf, x), r);
  return sel(ax <= 1.0, r, Lim<double>::nan);
}

// sigmoid as PyTorch: 1 / (1 + e^-x).
template <typename T> LUCID_VM T sigmoid(T x) { return T(1) / (T(1) + exp(T(-x))); }
template <typename T> LUCID_VM T sigmoid_fast(T x) { return T(1) / (T(1) + exp_fast(T(-x))); }

}  // namespace lucid::cpu::vmath
