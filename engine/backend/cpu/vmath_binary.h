#pragma once
// The binary ops of the same math (vmath_exp.h, vmath_trig.h) on the CPU binary loop, for float:
// pow (C99's special cases), logaddexp and logaddexp2 (PyTorch's formula), atan2. The FMA builds
// (avx2, avx512) compute in float with double-float steps where the error would grow (errors within
// PyTorch's SLEEF u10 functions: tests/python/test_binary_accuracy.py); the baseline build computes
// in double and rounds once. Only isa_loops.cpp includes this header.
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

#if defined(__FMA__)
// ---------------------------------------------------------------- native float (FMA builds)
// kFast: the version for blocks where every element is in the common range (fast_ok_binary below):
// the same operations less the special cases, so both give the same bits there.
namespace nf {
// log2((1+s)/(1-s)) = c1 s + c3 s^3 + s^3 R(s^2) on |s| <= 3 - 2 sqrt(2) (c1 = kC1H + kC1L)
constexpr float kC1H = 2.885390043258667f, kC1L = 3.851926067000022e-08f, kC3H = 0.9617967009544373f;
constexpr float kPowR[] = {-7.018102543554505e-09f, 0.5770779848098755f, 0.412203311920166f,
                           0.32015281915664673f, 0.27936863899230957f};
constexpr float kLn2H = 0.6931471824645996f, kLn2L = -1.9046542121259336e-09f;
// (2^r - 1 - r ln2) / r^2 on |r| <= 1/2
constexpr float kPowE[] = {0.24022650718688965f, 0.05550410971045494f, 0.009618082083761692f,
                           0.0013333482202142477f, 0.00015453185187652707f, 1.530371082480997e-05f};
// (e^r - 1 - r) / r^2 on |r| <= ln2/2
constexpr float kExpQ[] = {0.5f, 0.1666666716337204f, 0.041666463017463684f, 0.008333360776305199f,
                           0.0013933687005192041f, 0.00019857814186252654f};
// (log((1+s)/(1-s)) - 2s) / s^3 in z = s^2 on 0 <= s <= 1/3; kLaeR2: the same over ln2
constexpr float kLaeR[] = {0.6666666865348816f, 0.3999970257282257f, 0.2859250605106354f,
                           0.21704423427581787f, 0.23234127461910248f};
constexpr float kLaeR2[] = {0.9617967009544373f, 0.5770781636238098f, 0.4121822416782379f,
                            0.32121554017066956f, 0.2519243359565735f, 0.3000403046607971f};
// (atan(t) - t) / t^3 in z = t^2 on |t| <= 1/2
constexpr float kAtanB[] = {-0.3333333432674408f, 0.19999878108501434f, -0.1427987664937973f,
                            0.11007716506719589f, -0.08239280432462692f, 0.04231662303209305f};
constexpr float kPi4H = 0.785398006439209f, kPi4L = 1.5695823663008923e-07f;  // kPi4H * q exact, q <= 7
}  // namespace nf

// pow: |x|^y = 2^(y log2|x|); log2|x| = e + log2(m), m in [sqrt(1/2), sqrt(2)), in double-float
// from s = (m-1)/(m+1) (one division), y log2|x| in double-float, then 2^(hi + lo) in float with
// ln2 r in double-float. Fast: x positive normal, y finite.
template <bool kFast>
LUCID_VM float pow_f(float x, float y) {
  using namespace nf;
  const float ax = abs_(x);
  bool sub = false;
  if constexpr (!kFast) sub = ax < 1.17549435e-38f;  // denormal x: scaled by 2^23
  const int32_t ix = f2i(sel(sub, ax * 8388608.0f, ax));
  const int32_t k = (ix - 0x3f3504f3) >> 23;
  const float m = i2f(ix - (k << 23));
  const float e = float(k - sel(sub, 23, 0));
  const float f = m - 1.0f;                                   // exact
  const float u = 1.0f + m, ul = (1.0f - u) + m;              // u + ul = 2 + f exactly
  const float inv = 1.0f / u;
  const float s = f * inv;
  const float sl = std::fma(-s, ul, std::fma(-s, u, f)) * inv;  // s + sl = f / (2 + f)
  const float s2 = s * s, s2l = std::fma(s, s, -s2);
  const float s3 = s2 * s, s3l = std::fma(s2, s, -s3) + std::fma(s, s2l, 3.0f * s2 * sl);
  const float hi = kC1H * s, hl = std::fma(kC1H, s, -hi) + std::fma(kC1L, s, kC1H * sl);
  const float mid = kC3H * s3, ml = std::fma(kC3H, s3, -mid) + kC3H * s3l;
  const float tail = s3 * poly(s2, kPowR);
  const float Lh = hi + mid, Ll = ((hi - Lh) + mid) + (hl + ml + tail);  // log2(m)
  float Th = e + Lh, Tl = ((e - Th) + Lh) + Ll;                           // log2|x|
  if constexpr (!kFast) {
    const bool special = !(ax > 0.0f && ax < Lim<float>::inf);  // 0: -inf; inf, NaN: themselves
    Th = sel(special, sel(ax == 0.0f, -Lim<float>::inf, ax), Th);
    Tl = sel(special, 0.0f, Tl);
  }
  float Ph = y * Th, Pl = std::fma(y, Tl, std::fma(y, Th, -Ph));  // y log2|x|
  Pl = sel(abs_(Ph) <= 160.0f, Pl, 0.0f);
  Ph = sel(Ph < -160.0f, -160.0f, sel(Ph > 160.0f, 160.0f, Ph));  // NaN passes
  int32_t n;
  const float r = Ph - round_int(Ph, n);  // exact
  const float rh = r + Pl, rl = Pl - (rh - r);
  const float a = rh * kLn2H;
  const float S = 1.0f + a, Se = (1.0f - S) + a;
  float al = std::fma(rh, kLn2H, -a);
  al = std::fma(rh, kLn2L, al);
  al = std::fma(rl * kLn2H, S, al);
  const float b = rh * rh * poly(rh, kPowE);
  float res = ldexp2(S + (Se + (al + b)), n);
  if constexpr (!kFast) {  // C99's special cases
    const bool y_int = y == std::trunc(y);
    const bool y_odd = y_int && abs_(y) < 16777216.0f && (int32_t(y) & 1);
    res = (std::signbit(x) && y_odd) ? -res : res;
    res = (x < 0.0f && x > -Lim<float>::inf && !y_int) ? Lim<float>::nan : res;
    res = (x == -1.0f && abs_(y) == Lim<float>::inf) ? 1.0f : res;
    res = (y == 0.0f || x == 1.0f) ? 1.0f : res;
  }
  return res;
}

// atan2: atan(num / den) for num = min(|y|, |x|), den = max, above num = den/2 as pi/4 +
// atan((num - den) / (num + den)) (num - den exact, num + den in double-float), with the division's
// remainder; then q pi/4 +- that in double-float, y's sign. Fast: |x|, |y| in [2^-64, 2^100].
template <bool kFast>
LUCID_VM float atan2_f(float y, float x) {
  using namespace nf;
  const float ay = abs_(y), ax = abs_(x);
  const bool swap = ay > ax;
  float num = sel(swap, ax, ay), den = sel(swap, ay, ax);
  if constexpr (!kFast) {
    const bool dinf = den == Lim<float>::inf;
    num = sel(dinf, sel(num == Lim<float>::inf, 1.0f, 0.0f), num);  // inf/inf: pi/4; finite/inf: 0
    den = sel(dinf || den == 0.0f, 1.0f, den);                      // 0/0: 0
    // 2^-64 above 2^100 (num + den stays finite), 2^60 for num < 2^-64 (the remainder stays normal)
    const float sc = sel(den > 1.2676506e30f, 5.421011e-20f,
                         sel(num < 5.421011e-20f && den < 1.8446744e19f, 1.1529215e18f, 1.0f));
    num *= sc, den *= sc;
  }
  const bool big = num > 0.5f * den;
  const float s1 = num + den, s1l = num - (s1 - den);
  const bool xneg = std::signbit(x), flip = swap != xneg;
  float nh = sel(big, num - den, num);
  nh = sel(flip, -nh, nh);  // the sign of the atan term
  const float dh = sel(big, s1, den), dl = sel(big, s1l, 0.0f);
  const float inv = 1.0f / dh;
  const float th = nh * inv;
  const float tl = std::fma(-th, dl, std::fma(-th, dh, nh)) * inv;  // th + tl = nh / (dh + dl)
  const float z = th * th;
  const float al = std::fma(th * z, poly(z, kAtanB), std::fma(-tl, z, tl));  // atan(th + tl) - th
  const float q = sel(swap, 2.0f, sel(xneg, 4.0f, 0.0f)) + sel(big, sel(flip, -1.0f, 1.0f), 0.0f);
  const float Kh = q * kPi4H;
  const float S = Kh + th, Se = (Kh - S) + th;
  float res = copysign_(S + (Se + std::fma(q, kPi4L, al)), y);
  if constexpr (!kFast) res = (x != x || y != y) ? x + y : res;
  return res;
}

// logaddexp(2): max + c log1p(E), E = e^d or 2^d for d = min - max <= 0 (d + dl exactly): E in
// double-float (Eh + El), log1p(E) = 2 atanh(E / (2 + E)) with the division's remainder, the sum
// with max in double-float. Fast: a, b finite, |a - b| < 64.
template <bool kFast, bool kBase2>
LUCID_VM float logaddexp_f(float a, float b) {
  using namespace nf;
  const float m = a > b ? a : b;
  float mn = a > b ? b : a;
  if constexpr (!kFast) {  // min - max >= lo (E < 2^-150 below); -inf too, NaN passes (the same
    // operations after this as the fast version: the compiler contracts them alike)
    constexpr float lo = kBase2 ? -160.0f : -110.0f;
    mn = sel(mn < m + lo, m + lo, mn);
  }
  const float d = mn - m, bb = d - mn;
  const float dl = (mn - (d - bb)) + (-m - bb);
  int32_t n;
  float rh, rl;
  if constexpr (kBase2) {
    const float r = d - round_int(d, n);
    rh = r * kLn2H, rl = std::fma(r, kLn2H, -rh) + std::fma(r, kLn2L, dl * kLn2H);
  } else {
    const float q = round_int(d * 1.44269504088896341f, n);
    rh = std::fma(q, -kLn2H, d), rl = std::fma(q, -kLn2L, dl);  // rh exact
  }
  // e^(rh + rl) = 1 + th + tl (e^rh (1 + rl): rl, up to 2^-21 with q ln2's low part, times e^rh - 1
  // counts), E = 2^n that
  const float p = rh * rh * poly(rh, kExpQ);
  const float w = std::fma(rl, rh + p, p + rl);
  const float th = rh + w, tl = w - (th - rh);
  const float eh = 1.0f + th, el = ((1.0f - eh) + th) + tl;
  float Eh, El;
  if constexpr (kFast) {  // E normal: n added to the exponent
    Eh = i2f(f2i(eh) + (n << 23)), El = el * pow2i(n);
  } else {
    const int32_t n1 = n >> 1;
    const float p1 = pow2i(n1), p2 = pow2i(n - n1);
    Eh = eh * p1 * p2, El = el * p1 * p2;
  }
  // c log1p(E) = hi + lo, c = 2 ch + cl; s = E / (2 + E)
  constexpr float ch = kBase2 ? kC1H : 2.0f, cl = kBase2 ? kC1L : 0.0f;
  const float u = 2.0f + Eh, ul = (2.0f - u) + Eh;
  const float inv = 1.0f / u;
  const float s = Eh * inv;
  const float sl = std::fma(-s, ul, std::fma(-s, u, Eh) + El) * inv;
  const float z = s * s;
  float hi = ch * s;
  float lo = std::fma(ch, s, -hi) + std::fma(cl, s, ch * sl);
  if constexpr (kBase2) lo += s * z * poly(z, kLaeR2);
  else lo += s * z * poly(z, kLaeR);
  const bool same = d == 0.0f;  // a == b: c log1p(1) exactly (logaddexp2(a, a) = a + 1)
  hi = sel(same, kBase2 ? 1.0f : kLn2H, hi), lo = sel(same, kBase2 ? 0.0f : kLn2L, lo);
  if constexpr (!kFast) {
    // n < -92: c log1p(E) = c E / 2 = (th2 + tl2) 2^n, rounded once into the denormals: hi the
    // rounded th2 2^n, lo the rest rounded to the denormal spacing (hi + lo exact)
    const bool tiny = n < -92;
    const float th2 = (0.5f * ch) * eh;
    const float tl2 = std::fma(0.5f * ch, eh, -th2) + std::fma(0.5f * cl, eh, (0.5f * ch) * el);
    const int32_t n1 = n >> 1, n2 = n - n1;
    const float p1 = pow2i(n1), p2 = pow2i(n2);
    const float a1 = th2 * p1, hi2 = a1 * p2;
    const float rem = (a1 - hi2 * pow2i(-n2)) + tl2 * p1;
    hi = sel(tiny, hi2, hi), lo = sel(tiny, rem * p2, lo);
  }
  const float S = m + hi, sb = S - m, Se = (m - (S - sb)) + (hi - sb);
  float res = S + (Se + lo);
  if constexpr (!kFast) {
    res = (m == Lim<float>::inf || mn == -Lim<float>::inf) ? m + 0.0f : res;
    res = (a != a || b != b) ? a + b : res;
  }
  return res;
}
#endif

// Blocks where every element passes fast_ok_binary take apply_fast_binary (FMA builds, float).
template <BinaryOp Op, typename M>
constexpr bool has_fast_binary_vm() {
#if defined(__FMA__)
  return std::is_same_v<M, float> && has_vec_binary<Op, M>();
#else
  return false;
#endif
}
#if defined(__FMA__)
template <BinaryOp Op>
LUCID_VM bool fast_ok_binary(float a, float b) {
  using B = BinaryOp;
  const uint32_t ua = uint32_t(f2i(a)), ub = uint32_t(f2i(b));
  // (& rather than &&: no branches in the and-reduction loop)
  if constexpr (Op == B::Pow) return (ua - 0x00800000u < 0x7f000000u) & ((ub & 0x7fffffffu) < 0x7f800000u);
  else if constexpr (Op == B::Atan2)  // |a|, |b| in [2^-64, 2^100]
    return ((ua & 0x7fffffffu) - 0x1f800000u <= 0x52000000u) & ((ub & 0x7fffffffu) - 0x1f800000u <= 0x52000000u);
  else return abs_(a - b) < 64.0f;  // E >= 2^-93; NaN, inf: false
}
template <BinaryOp Op>
LUCID_VM float apply_fast_binary(float a, float b) {
  using B = BinaryOp;
  if constexpr (Op == B::Pow) return pow_f<true>(a, b);
  else if constexpr (Op == B::LogAddExp) return logaddexp_f<true, false>(a, b);
  else if constexpr (Op == B::LogAddExp2) return logaddexp_f<true, true>(a, b);
  else return atan2_f<true>(a, b);
}
#endif

template <BinaryOp Op, typename M>
LUCID_VM M apply_vec_binary(M a, M b) {
  using B = BinaryOp;
#if defined(__FMA__)
  if constexpr (std::is_same_v<M, float>) {
    if constexpr (Op == B::Pow) return pow_f<false>(a, b);
    else if constexpr (Op == B::LogAddExp) return logaddexp_f<false, false>(a, b);
    else if constexpr (Op == B::LogAddExp2) return logaddexp_f<false, true>(a, b);
    else return atan2_f<false>(a, b);
  } else
#endif
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

// o[i] = op(a[i], b[i]) (kScalarB: b[0] for every i). Blocks where every element is in the fast
// range go through the fast version: computed together with the range test (one pass over the
// memory) unless o overlaps a or b (in place: the test first, then the math).
template <BinaryOp Op, typename M, bool kScalarB>
void run_block(const M* a, const M* b, M* o, int64_t m) {
  const M b0 = b[0];
  if constexpr (has_fast_binary_vm<Op, M>()) {
    const uintptr_t po = uintptr_t(o), pa = uintptr_t(a), pb = uintptr_t(b), len = uintptr_t(m) * sizeof(M);
    const bool overlap = (po < pa + len && pa < po + len) || (!kScalarB && po < pb + len && pb < po + len);
    int32_t all = 1;  // an and-reduction of the range tests vectorises
    if (!overlap) {
      for (int64_t i = 0; i < m; ++i) {
        const M bi = kScalarB ? b0 : b[i];
        o[i] = apply_fast_binary<Op>(a[i], bi);
        all &= int32_t(fast_ok_binary<Op>(a[i], bi));
      }
      if (all) return;
    } else {
      for (int64_t i = 0; i < m; ++i) all &= int32_t(fast_ok_binary<Op>(a[i], kScalarB ? b0 : b[i]));
      if (all) {
        for (int64_t i = 0; i < m; ++i) o[i] = apply_fast_binary<Op>(a[i], kScalarB ? b0 : b[i]);
        return;
      }
    }
  }
  for (int64_t i = 0; i < m; ++i) o[i] = apply_vec_binary<Op, M>(a[i], kScalarB ? b0 : b[i]);
}

// A BinaryLoop of loops.h: contiguous float/double runs (b contiguous or a broadcast scalar) straight
// through in blocks; other runs gathered into blocks of M (half/bfloat16 converted) so the math loop
// stays contiguous.
template <BinaryOp Op, typename T, typename M>
void binary_loop(char** ptrs, const int64_t* strides, int64_t n, const Scalar&) {
  constexpr int64_t kBlock = 1024;
  constexpr int64_t sz = sizeof(T);
  if constexpr (std::is_same_v<T, M>) {
    if (strides[0] == sz && strides[1] == sz && (strides[2] == sz || strides[2] == 0)) {
      M* o = reinterpret_cast<M*>(ptrs[0]);
      const M* a = reinterpret_cast<const M*>(ptrs[1]);
      const M* b = reinterpret_cast<const M*>(ptrs[2]);
      for (int64_t s = 0; s < n; s += kBlock) {
        const int64_t m = n - s < kBlock ? n - s : kBlock;
        if (strides[2] == 0) run_block<Op, M, true>(a + s, b, o + s, m);
        else run_block<Op, M, false>(a + s, b + s, o + s, m);
      }
      return;
    }
  }
  alignas(64) M A[kBlock];
  alignas(64) M Bv[kBlock];
  alignas(64) M C[kBlock];
  for (int64_t s = 0; s < n; s += kBlock) {
    const int64_t m = n - s < kBlock ? n - s : kBlock;
    const char* pa = ptrs[1] + s * strides[1];
    const char* pb = ptrs[2] + s * strides[2];
    load<T>(pa, strides[1], m, A);
    load<T>(pb, strides[2], m, Bv);
    run_block<Op, M, false>(A, Bv, C, m);
    char* po = ptrs[0] + s * strides[0];
    for (int64_t i = 0; i < m; ++i) *reinterpret_cast<T*>(po + i * strides[0]) = T(C[i]);
  }
}
}  // namespace

}  // namespace lucid::cpu::vmath
