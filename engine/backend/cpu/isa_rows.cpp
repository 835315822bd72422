// Compiled once per ISA (CMake sets LUCID_ISA and the -m flags, as for isa_loops.cpp): the float32
// row kernels of vec_rows.h on GCC vector types as wide as the ISA's registers, with a
// branch-free exp (Cephes' polynomial, ~1 ulp).
#include <cmath>
#include <cstring>
#include <limits>

#include <immintrin.h>

#include "backend/cpu/vec_rows.h"

#ifndef LUCID_ISA
#error "LUCID_ISA must be defined"
#endif

namespace lucid::cpu {
namespace LUCID_ISA {
namespace {

#if defined(__AVX512F__)
#define LUCID_VW 16
#elif defined(__AVX2__)
#define LUCID_VW 8
#else
#define LUCID_VW 4
#endif
constexpr int W = LUCID_VW;
typedef float vf __attribute__((vector_size(LUCID_VW * 4)));
typedef int32_t vi __attribute__((vector_size(LUCID_VW * 4)));

constexpr float kInf = std::numeric_limits<float>::infinity();

inline vf splat(float s) { return vf{} + s; }
inline vf ld(const float* p) {
  vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void st(float* p, vf v) { std::memcpy(p, &v, sizeof v); }
inline vf ld_part(const float* p, int64_t k, float fill) {
  float b[W];
  for (int j = 0; j < W; ++j) b[j] = j < k ? p[j] : fill;
  return ld(b);
}
inline void st_part(float* p, vf v, int64_t k) {
  float b[W];
  st(b, v);
  for (int64_t j = 0; j < k; ++j) p[j] = b[j];
}
inline float hsum(vf v) {
  float s = 0;
  for (int j = 0; j < W; ++j) s += v[j];
  return s;
}
inline bool any(vi m) {  // m: lanes all-ones or zero, as vector comparisons give
#if defined(__AVX512F__)
  return _mm512_test_epi32_mask((__m512i)m, (__m512i)m) != 0;
#elif defined(__AVX2__)
  return _mm256_movemask_ps((__m256)m) != 0;
#else
  return _mm_movemask_ps((__m128)m) != 0;
#endif
}

// exp(x): x = n ln2 + r, |r| <= ln2/2, a degree-6 polynomial, 2^n in two halves (n = 128 exact);
// 0 below -87.33 (where the result would be denormal), inf above 88.72, NaN through.
inline vf vexp(vf x) {
  const vf lo = splat(-87.3365478515625f), hi = splat(88.72283935546875f);
  vf xc = x < lo ? lo : x;
  xc = xc > hi ? hi : xc;
  const vf n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  vf r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  vf q = splat(1.9875691500e-4f);
  q = q * r + 1.3981999507e-3f;
  q = q * r + 8.3334519073e-3f;
  q = q * r + 4.1665795894e-2f;
  q = q * r + 1.6666665459e-1f;
  q = q * r + 5.0000001201e-1f;
  const vf y = q * r * r + r + 1.0f;
  const vi ni = __builtin_convertvector(n, vi);
  const vi n1 = ni >> 1, n2 = ni - n1;
  vf e = y * (vf)((n1 + 127) << 23) * (vf)((n2 + 127) << 23);
  e = x < lo ? splat(0.0f) : e;
  e = x > hi ? splat(kInf) : e;
  return x != x ? x : e;
}
// 1/d for finite d whose reciprocal is a normal float: the hardware estimate and a Newton step.
inline vf recip(vf d) {
#if defined(__AVX512F__)
  const vf r = (vf)_mm512_rcp14_ps((__m512)d);
  return r * (2.0f - d * r);
#elif defined(__AVX2__)
  vf r = (vf)_mm256_rcp_ps((__m256)d);
  r = r * (2.0f - d * r);
  return r * (2.0f - d * r);
#else
  return 1.0f / d;
#endif
}

// Max of a row and whether it holds a NaN.
inline float row_max(const float* x, int64_t n, bool* nan) {
  vf m0 = splat(-kInf), m1 = m0;
  vi nm = {};
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    const vf a = ld(x + i), b = ld(x + i + W);
    m0 = a > m0 ? a : m0;
    m1 = b > m1 ? b : m1;
    nm |= (a != a) | (b != b);
  }
  for (; i + W <= n; i += W) {
    const vf a = ld(x + i);
    m0 = a > m0 ? a : m0;
    nm |= a != a;
  }
  m0 = m1 > m0 ? m1 : m0;
  float m = -kInf;
  for (int j = 0; j < W; ++j) m = m0[j] > m ? m0[j] : m;
  bool nn = any(nm);
  for (; i < n; ++i) {
    m = x[i] > m ? x[i] : m;
    nn = nn || x[i] != x[i];
  }
  *nan = nn;
  return m;
}

// sum of exp(x - m) over a row (writing the exps to o unless null), blocks of 1024 in float
// lanes, block totals in double.
template <bool kStore>
inline double row_sum_exp(float* o, const float* x, int64_t n, float m) {
  constexpr int64_t kBlock = 1024;
  const vf mv = splat(m);
  double s = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = b + kBlock < n ? b + kBlock : n;
    vf a0 = {}, a1 = {};
    int64_t i = b;
    for (; i + 2 * W <= e; i += 2 * W) {
      const vf e0 = vexp(ld(x + i) - mv), e1 = vexp(ld(x + i + W) - mv);
      if constexpr (kStore) {
        st(o + i, e0);
        st(o + i + W, e1);
      }
      a0 += e0;
      a1 += e1;
    }
    for (; i + W <= e; i += W) {
      const vf e0 = vexp(ld(x + i) - mv);
      if constexpr (kStore) st(o + i, e0);
      a0 += e0;
    }
    if (i < e) {
      const vf e0 = vexp(ld_part(x + i, e - i, -kInf) - mv);
      if constexpr (kStore) st_part(o + i, e0, e - i);
      a0 += e0;
    }
    s += double(hsum(a0 + a1));
  }
  return s;
}

void softmax_f32(float* out, const float* x, int64_t rows, int64_t D, bool log) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * D;
    float* o = out + r * D;
    bool nan = false;
    float m = row_max(xr, D, &nan);
    if (nan) {  // a NaN anywhere makes the row NaN
      for (int64_t d = 0; d < D; ++d) o[d] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    if (m == -kInf) m = 0.0f;  // a row of -inf: exp gives 0s, then 0/0 (log: -inf - -inf) = NaN as PyTorch
    int64_t i = 0;
    if (log) {
      const double s = row_sum_exp<false>(nullptr, xr, D, m);
      const float lse = m + float(std::log(s));
      const vf lv = splat(lse);
      for (; i + W <= D; i += W) st(o + i, ld(xr + i) - lv);
      for (; i < D; ++i) o[i] = xr[i] - lse;
    } else {
      const double s = row_sum_exp<true>(o, xr, D, m);
      const float inv = float(1.0 / s);
      const vf iv = splat(inv);
      for (; i + W <= D; i += W) st(o + i, ld(o + i) * iv);
      for (; i < D; ++i) o[i] *= inv;
    }
  }
}

// Sum of a row (blocks of 1024 in float lanes, totals in double); with c, of (x - c)^2.
template <bool kSq>
inline double row_sum(const float* x, int64_t n, float c) {
  constexpr int64_t kBlock = 1024;
  const vf cv = splat(c);
  double s = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = b + kBlock < n ? b + kBlock : n;
    vf a0 = {}, a1 = {};
    int64_t i = b;
    for (; i + 2 * W <= e; i += 2 * W) {
      vf u = ld(x + i), v = ld(x + i + W);
      if constexpr (kSq) {
        u -= cv;
        v -= cv;
        a0 += u * u;
        a1 += v * v;
      } else {
        a0 += u;
        a1 += v;
      }
    }
    float t = hsum(a0 + a1);
    for (; i < e; ++i) {
      const float u = kSq ? x[i] - c : x[i];
      t += kSq ? u * u : u;
    }
    s += double(t);
  }
  return s;
}

double sqdev_sum_f32(const float* x, int64_t n, float c) { return row_sum<true>(x, n, c); }

// float lanes converted to double on the load: two registers of doubles per register of floats,
// four accumulators to cover the multiplications' latency.
typedef double vd __attribute__((vector_size(LUCID_VW * 4)));
typedef float vhalf __attribute__((vector_size(LUCID_VW * 2)));
inline vd ld_wide(const float* p) {
  vhalf h;
  std::memcpy(&h, p, sizeof h);
  return __builtin_convertvector(h, vd);
}
double prod_f32(const float* x, int64_t n) {
  constexpr int H = W / 2;
  vd a0 = vd{} + 1.0, a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 4 * H <= n; i += 4 * H) {
    a0 *= ld_wide(x + i);
    a1 *= ld_wide(x + i + H);
    a2 *= ld_wide(x + i + 2 * H);
    a3 *= ld_wide(x + i + 3 * H);
  }
  const vd m = (a0 * a1) * (a2 * a3);
  double a = 1.0;
  for (int k = 0; k < H; ++k) a *= m[k];
  for (; i < n; ++i) a *= double(x[i]);
  return a;
}

void nan_to_num_f32(float* o, const float* x, int64_t n, float nan, float pos, float neg) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float r = v == kInf ? pos : (v == -kInf ? neg : v);
    o[i] = v != v ? nan : r;
  }
}

void round_scaled_f32(float* o, const float* x, int64_t n, float s, bool div_first) {
  if (div_first)
    for (int64_t i = 0; i < n; ++i) o[i] = std::nearbyint(x[i] / s) * s;
  else
    for (int64_t i = 0; i < n; ++i) o[i] = std::nearbyint(x[i] * s) / s;
}

template <bool kW, bool kB>
inline void ln_apply(float* y, const float* x, const float* w, const float* b, int64_t D, float m, float q) {
  const vf mv = splat(m), qv = splat(q);
  int64_t i = 0;
  for (; i + W <= D; i += W) {
    vf v = (ld(x + i) - mv) * qv;
    if constexpr (kW) v = v * ld(w + i);
    if constexpr (kB) v = v + ld(b + i);
    st(y + i, v);
  }
  for (; i < D; ++i) {
    float v = (x[i] - m) * q;
    if constexpr (kW) v = v * w[i];
    if constexpr (kB) v = v + b[i];
    y[i] = v;
  }
}

void layer_norm_f32(float* y, float* mean, float* rstd, const float* x, const float* w, const float* b, int64_t rows,
                    int64_t D, double eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * D;
    const double mu = D ? row_sum<false>(xr, D, 0.0f) / double(D) : 0.0;
    // the squared deviations from the float mean, corrected for its rounding (exact to first order)
    const float mf = float(mu);
    const double dm = mu - double(mf);
    const double ss = D ? row_sum<true>(xr, D, mf) / double(D) - dm * dm : 0.0;
    const double rs = 1.0 / std::sqrt((ss > 0 ? ss : 0.0) + eps);
    mean[r] = mf;
    rstd[r] = float(rs);
    float* yr = y + r * D;
    if (w && b) ln_apply<true, true>(yr, xr, w, b, D, mf, float(rs));
    else if (w) ln_apply<true, false>(yr, xr, w, b, D, mf, float(rs));
    else if (b) ln_apply<false, true>(yr, xr, w, b, D, mf, float(rs));
    else ln_apply<false, false>(yr, xr, w, b, D, mf, float(rs));
  }
}

bool lse_f32(const float* x, int64_t n, float* m, double* s) {
  bool nan = false;
  const float mx = row_max(x, n, &nan);
  if (nan || std::isinf(mx)) return false;
  *m = mx;
  *s = row_sum_exp<false>(nullptr, x, n, mx);
  return true;
}

template <bool kMax>
inline float extreme(const float* x, int64_t n, int64_t* idx) {
  vf m0 = splat(kMax ? -kInf : kInf);
  vi nm = {};
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const vf a = ld(x + i);
    if constexpr (kMax) m0 = a > m0 ? a : m0;
    else m0 = a < m0 ? a : m0;
    nm |= a != a;
  }
  float m = kMax ? -kInf : kInf;
  for (int j = 0; j < W; ++j) m = (kMax ? m0[j] > m : m0[j] < m) ? m0[j] : m;
  bool nan = any(nm);
  for (; i < n; ++i) {
    m = (kMax ? x[i] > m : x[i] < m) ? x[i] : m;
    nan = nan || x[i] != x[i];
  }
  if (nan) {
    if (idx) {
      int64_t k = 0;
      while (x[k] == x[k]) ++k;
      *idx = k;
    }
    return std::numeric_limits<float>::quiet_NaN();
  }
  if (!idx) return m;
  // the first position holding the extreme (every extreme compares equal to m, -0 == +0)
  const vf mv = splat(m);
  int64_t k = 0;
  for (; k + W <= n; k += W)
    if (any(ld(x + k) == mv)) break;
  while (k < n - 1 && x[k] != m) ++k;
  *idx = k;
  return x[k];
}

float extreme_f32(const float* x, int64_t n, bool want_max, int64_t* idx) {
  return want_max ? extreme<true>(x, n, idx) : extreme<false>(x, n, idx);
}

void minmax_f32(const float* x, int64_t n, float* mn, float* mx) {
  vf lo = splat(kInf), hi = splat(-kInf);
  vi nm = {};
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const vf a = ld(x + i);
    lo = a < lo ? a : lo;
    hi = a > hi ? a : hi;
    nm |= a != a;
  }
  float l = kInf, h = -kInf;
  for (int j = 0; j < W; ++j) {
    l = lo[j] < l ? lo[j] : l;
    h = hi[j] > h ? hi[j] : h;
  }
  bool nan = any(nm);
  for (; i < n; ++i) {
    l = x[i] < l ? x[i] : l;
    h = x[i] > h ? x[i] : h;
    nan = nan || x[i] != x[i];
  }
  *mn = nan ? std::numeric_limits<float>::quiet_NaN() : l;
  *mx = nan ? std::numeric_limits<float>::quiet_NaN() : h;
}

// cummax/cummin of one run: a block of W lanes that cannot move the running extreme (none at least
// as good, no NaN, the extreme not NaN) is two splat stores; other blocks take PyTorch's rule lane
// by lane (a NaN takes over and each new NaN moves the index; ties move to the latest index).
template <bool kMax>
inline void cumext(const float* x, int64_t n, float* v, int64_t* ix) {
  float cur = x[0];
  int64_t ci = 0, i = 0;
  auto step = [&](int64_t k) {
    const float a = x[k];
    const bool take = (a != a) | ((cur == cur) & (kMax ? a >= cur : a <= cur));
    cur = take ? a : cur;
    ci = take ? k : ci;
    v[k] = cur;
    ix[k] = ci;
  };
  for (; i + W <= n; i += W) {
    if (cur == cur) {
      const vf a = ld(x + i), c = splat(cur);
      if (!any((kMax ? a >= c : a <= c) | (a != a))) {
        st(v + i, c);
        for (int t = 0; t < W; ++t) ix[i + t] = ci;
        continue;
      }
    }
    for (int t = 0; t < W; ++t) step(i + t);
  }
  for (; i < n; ++i) step(i);
}

// topk of one run (small k): the k best so far kept in order in tv/ti, a new element inserted after
// the equal ones (its index is larger); once k are kept, a block of W lanes none of which beats the
// k-th (a NaN where a NaN would) is skipped with one compare. Random rows insert about k ln(n/k)
// times; past n/16 + 4k insertions (a rising run shifts k entries per element) it gives up and returns
// false for the caller's partial sort. lucid's total order: NaN above every number, NaNs equal,
// -0 == +0, equal keys by index.
template <bool kLargest>
inline bool topk_run(const float* x, int64_t n, int64_t k, float* tv, int64_t* ti) {
  auto beats = [](float a, float b) {  // a strictly before b in the output order
    if constexpr (kLargest) return b == b && (a != a || a > b);
    else return a == a && (b != b || a < b);
  };
  int64_t cnt = 0;
  auto insert = [&](float a, int64_t j) {
    int64_t p = cnt < k ? cnt++ : k - 1;  // full: the k-th drops out (callers check beats)
    while (p > 0 && beats(a, tv[p - 1])) {
      tv[p] = tv[p - 1];
      ti[p] = ti[p - 1];
      --p;
    }
    tv[p] = a;
    ti[p] = j;
  };
  int64_t i = 0;
  for (; i < k; ++i) insert(x[i], i);
  int64_t budget = n / 16 + 4 * k;
  for (; i + W <= n; i += W) {
    const float thr = tv[k - 1];
    if (thr == thr) {
      const vf a = ld(x + i), c = splat(thr);
      if (!any(kLargest ? (a > c) | (a != a) : (a < c))) continue;
    }
    for (int t = 0; t < W; ++t)
      if (beats(x[i + t], tv[k - 1])) insert(x[i + t], i + t), --budget;
    if (budget < 0) return false;
  }
  for (; i < n; ++i)
    if (beats(x[i], tv[k - 1])) insert(x[i], i);
  return true;
}

bool topk_f32(const float* x, int64_t n, int64_t k, bool largest, float* tv, int64_t* ti) {
  return largest ? topk_run<true>(x, n, k, tv, ti) : topk_run<false>(x, n, k, tv, ti);
}

void cumext_f32(const float* x, int64_t n, bool want_max, float* v, int64_t* ix) {
  if (want_max) cumext<true>(x, n, v, ix);
  else cumext<false>(x, n, v, ix);
}

template <bool kMax, bool kIdx>
inline void extreme_cols(float* acc, int32_t* idx, const float* p, int64_t k, int32_t c) {
  for (int64_t j = 0; j < k; ++j) {
    const float x = p[j], a = acc[j];
    const bool take = (a == a) && ((x != x) || (kMax ? x > a : x < a));
    acc[j] = take ? x : a;
    if constexpr (kIdx) idx[j] = take ? c : idx[j];
  }
}

void extreme_cols_f32(float* acc, int32_t* idx, const float* p, int64_t k, int32_t c, bool want_max) {
  if (want_max) {
    if (idx) extreme_cols<true, true>(acc, idx, p, k, c);
    else extreme_cols<true, false>(acc, idx, p, k, c);
  } else {
    if (idx) extreme_cols<false, true>(acc, idx, p, k, c);
    else extreme_cols<false, false>(acc, idx, p, k, c);
  }
}

// x86 max/min: the second operand where either is NaN (so vmax(c, x) keeps a NaN x).
inline vf vmax(vf a, vf b) {
#if defined(__AVX512F__)
  return (vf)_mm512_max_ps((__m512)a, (__m512)b);
#elif defined(__AVX2__)
  return (vf)_mm256_max_ps((__m256)a, (__m256)b);
#else
  return (vf)_mm_max_ps((__m128)a, (__m128)b);
#endif
}
inline vf vmin(vf a, vf b) {
#if defined(__AVX512F__)
  return (vf)_mm512_min_ps((__m512)a, (__m512)b);
#elif defined(__AVX2__)
  return (vf)_mm256_min_ps((__m256)a, (__m256)b);
#else
  return (vf)_mm_min_ps((__m128)a, (__m128)b);
#endif
}

// exp(q) for q <= 1 (NaN through): 2^n by adding n to the exponent bits, n read off the rounding
// constant's mantissa; 0 below -86.6 (results near the denormal range).
inline vf vexp_le1(vf q) {
  const vf lo = splat(-86.6f);
  const vf qc = vmax(lo, q);
  const vf magic = splat(12582912.0f);  // 1.5 * 2^23: the low mantissa bits of q/ln2 + magic hold round(q/ln2)
  const vf tn = qc * 1.44269504088896341f + magic;
  const vf n = tn - magic;
  vf r = qc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  vf p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const vf y = p * (r * r) + r + 1.0f;
  const vf e = (vf)((((vi)tn - (vi)magic) << 23) + (vi)y);
  return q < lo ? splat(0.0f) : e;
}

#if defined(__AVX512F__)
// AVX-512: gelu and silu on rcp14 (+ a Newton step), vrangeps (min(|x|, c)) and scalef (2^n with exact
// overflow, underflow and denormals), all lanes one branch-free formula.

inline __m512 c16(float v) { return _mm512_set1_ps(v); }

// exp(r) for |r| <= ln2/2 (a little over): minimax degree 6, relative error 2e-9 before rounding.
// kNeg: exp(-r) (the odd coefficients negated).
template <bool kNeg>
inline __m512 exp_reduced(__m512 r) {
  constexpr float so = kNeg ? -1.0f : 1.0f;
  __m512 q = c16(0.00138365378f);
  q = _mm512_fmadd_ps(q, r, c16(so * 0.00837506055f));
  q = _mm512_fmadd_ps(q, r, c16(0.0416682441f));
  q = _mm512_fmadd_ps(q, r, c16(so * 0.166664173f));
  q = _mm512_fmadd_ps(q, r, c16(0.499999919f));
  q = _mm512_fmadd_ps(q, r, c16(so * 1.0f));
  return _mm512_fmadd_ps(q, r, c16(1.0f));
}

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;  // Cody-Waite: n * kLn2Hi exact
constexpr float kLn2 = 0.693147182464599609375f;                  // ln 2 rounded to float (1.9e-9 high)
// round(v) for |v| < 2^22 as (v + 1.5 * 2^23) - 1.5 * 2^23: two plain ops, cheaper than vrndscaleps
inline __m512 round_near(__m512 a, float b) {
  const __m512 magic = c16(12582912.0f);
  return _mm512_sub_ps(_mm512_fmadd_ps(a, c16(b), magic), magic);  // round(a * b)
}

// h = Phi(-|x|) = exp(-x^2 / 2) S(|x|), S(u) = erfcx(u / sqrt 2) / 2 a degree-8 minimax polynomial in
// t = 1 / (1 + p u) over u in [0, 14.5] (|x| is clamped there; h underflows to 0 beyond), relative
// error 4.3e-8; exp(-u^2 / 2) from the exact split u^2 / 2 = hi + lo, reduced by n ln 2 with ln 2
// rounded to float: the error that leaves, exp(-n (kLn2 - ln 2)) with n = round(-u^2 / (2 ln 2)),
// is smooth in u and the polynomial carries its inverse (fitted to S(u) exp(u^2 / (2 ln 2) (ln 2 -
// kLn2))). With E, also exp(-x^2 / 2) (that error left in: 3e-7 relative at most, at |x| = 14.5).
// NaN through; about 5 ulp at worst in all, 2 typical.
template <bool kE>
inline __m512 phi_neg_abs(__m512 x, __m512* E) {
  const __m512 u = _mm512_range_ps(x, c16(14.5f), 0xA);  // min(|x|, 14.5), NaN through
  const __m512 d = _mm512_fmadd_ps(c16(0.294999987f), u, c16(1.0f));
  const __m512 t0 = _mm512_rcp14_ps(d);
  const __m512 t = _mm512_fmadd_ps(t0, _mm512_fnmadd_ps(d, t0, c16(1.0f)), t0);
  __m512 p = c16(0.0391364765f);
  p = _mm512_fmadd_ps(p, t, c16(-0.182119175f));
  p = _mm512_fmadd_ps(p, t, c16(0.268554245f));
  p = _mm512_fmadd_ps(p, t, c16(-0.11447333f));
  p = _mm512_fmadd_ps(p, t, c16(0.164639903f));
  p = _mm512_fmadd_ps(p, t, c16(0.0853885656f));
  p = _mm512_fmadd_ps(p, t, c16(0.121548629f));
  p = _mm512_fmadd_ps(p, t, c16(0.117308716f));
  p = _mm512_fmadd_ps(p, t, c16(1.59522621e-05f));
  const __m512 m = _mm512_mul_ps(u, c16(-0.5f));
  const __m512 hi = _mm512_mul_ps(m, u);
  const __m512 lo = _mm512_fmsub_ps(m, u, hi);
  const __m512 n = round_near(hi, kLog2e);
  const __m512 r = _mm512_fnmadd_ps(n, c16(kLn2), hi);
  const __m512 q = exp_reduced<false>(_mm512_add_ps(r, lo));
  if constexpr (kE) {
    *E = _mm512_scalef_ps(q, n);
    return _mm512_mul_ps(p, *E);
  }
  return _mm512_scalef_ps(_mm512_mul_ps(p, q), n);
}

// Phi(x) from h = Phi(-|x|).
inline __m512 cdf_from(__m512 x, __m512 h) {
  const __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
  return _mm512_mask_sub_ps(h, pos, c16(1.0f), h);
}

inline vf gelu_v(vf xv) {
  const __m512 x = (__m512)xv;
  return (vf)_mm512_mul_ps(x, cdf_from(x, phi_neg_abs<false>(x, nullptr)));
}

// gelu'(x) = Phi(x) + x phi(x)
inline vf gelu_d1_v(vf xv) {
  const __m512 x = (__m512)xv;
  __m512 E;
  const __m512 cdf = cdf_from(x, phi_neg_abs<true>(x, &E));
  return (vf)_mm512_fmadd_ps(_mm512_mul_ps(x, c16(0.39894228040143267794f)), E, cdf);
}

// exp(-x) for x clamped to [-100, 100] (NaN through).
inline __m512 exp_neg(__m512 x) {
  const __m512 xc = _mm512_range_ps(x, c16(100.0f), 0x2);  // min(|x|, 100) with the sign of x
  const __m512 n = round_near(xc, -kLog2e);
  __m512 r = _mm512_fmadd_ps(n, c16(kLn2Hi), xc);  // -(the reduced argument)
  r = _mm512_fmadd_ps(n, c16(kLn2Lo), r);
  return _mm512_scalef_ps(exp_reduced<true>(r), n);
}

// silu(x) = x / (1 + exp(-x)): x times the Newton-refined reciprocal; the exact quotient where
// 1 / (1 + exp(-x)) would be denormal.
inline vf silu_v(vf xv) {
  const __m512 x = (__m512)xv;
  const __m512 d = _mm512_add_ps(exp_neg(x), c16(1.0f));
  if (_mm512_cmp_ps_mask(x, c16(-80.0f), _CMP_LT_OQ)) return (vf)_mm512_div_ps(x, d);
  const __m512 t0 = _mm512_rcp14_ps(d);
  return (vf)_mm512_mul_ps(x, _mm512_fmadd_ps(t0, _mm512_fnmadd_ps(d, t0, c16(1.0f)), t0));
}

#else  // AVX2 / baseline: one formula on the generic vectors

// Phi(-|x|) from Numerical Recipes' erfc (fractional error below 1.2e-7 everywhere, no
// cancellation in the lower tail), as activation.cpp's scalar formula.
inline vf phi_neg_abs_v(vf x) {
  const vf ax = (vf)((vi)x & 0x7fffffff);
  const vf z = vmin(splat(12.0f), ax * 0.70710678118654752f);  // erfc(12) is 0 in float; keeps t finite
  const vf t = recip(0.5f * z + 1.0f);
  vf p = t * 0.17087277f - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  const vf q = p * t - (z * z + 1.26551223f);
  return (0.5f * t) * vexp_le1(q);
}

inline vf gelu_v(vf x) {
  const vf h = phi_neg_abs_v(x);
  return x * (x > 0.0f ? 1.0f - h : h);
}

inline vf gelu_d1_v(vf x) {
  const vf h = phi_neg_abs_v(x);
  return (x > 0.0f ? 1.0f - h : h) + x * vexp(-0.5f * x * x) * 0.39894228040143267794f;
}

// silu(x) = x / (1 + exp(-x)); the exact quotient where 1/(1 + exp(-x)) would be denormal.
inline vf silu_v(vf x) {
  const vf d = vexp(-x) + 1.0f;
  if (any(x < -80.0f)) return x / d;
  return x * recip(d);
}

#endif

// Four independent vectors per step: long dependent chains (two polynomials and an exp per lane)
// need that many in flight to keep the vector units busy.
template <vf (*F)(vf)>
inline void map_f32(float* o, const float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    const vf a = F(ld(x + i)), b = F(ld(x + i + W)), c = F(ld(x + i + 2 * W)), d = F(ld(x + i + 3 * W));
    st(o + i, a);
    st(o + i + W, b);
    st(o + i + 2 * W, c);
    st(o + i + 3 * W, d);
  }
  for (; i + W <= n; i += W) st(o + i, F(ld(x + i)));
  if (i < n) st_part(o + i, F(ld_part(x + i, n - i, 0.0f)), n - i);
}

void gelu_f32(float* o, const float* x, int64_t n) { map_f32<gelu_v>(o, x, n); }
void silu_f32(float* o, const float* x, int64_t n) { map_f32<silu_v>(o, x, n); }

void gelu_backward_f32(float* o, const float* g, int64_t gs, const float* x, int64_t n) {
  int64_t i = 0;
  if (gs == 0) {
    const vf gv = splat(*g);
    for (; i + 4 * W <= n; i += 4 * W) {
      const vf a = gelu_d1_v(ld(x + i)), b = gelu_d1_v(ld(x + i + W));
      const vf c = gelu_d1_v(ld(x + i + 2 * W)), d = gelu_d1_v(ld(x + i + 3 * W));
      st(o + i, gv * a);
      st(o + i + W, gv * b);
      st(o + i + 2 * W, gv * c);
      st(o + i + 3 * W, gv * d);
    }
    for (; i + W <= n; i += W) st(o + i, gv * gelu_d1_v(ld(x + i)));
    if (i < n) st_part(o + i, gv * gelu_d1_v(ld_part(x + i, n - i, 0.0f)), n - i);
    return;
  }
  for (; i + 4 * W <= n; i += 4 * W) {
    const vf a = gelu_d1_v(ld(x + i)), b = gelu_d1_v(ld(x + i + W));
    const vf c = gelu_d1_v(ld(x + i + 2 * W)), d = gelu_d1_v(ld(x + i + 3 * W));
    const vf ga = ld(g + i), gb = ld(g + i + W), gc = ld(g + i + 2 * W), gd = ld(g + i + 3 * W);
    st(o + i, ga * a);
    st(o + i + W, gb * b);
    st(o + i + 2 * W, gc * c);
    st(o + i + 3 * W, gd * d);
  }
  for (; i + W <= n; i += W) st(o + i, ld(g + i) * gelu_d1_v(ld(x + i)));
  if (i < n) st_part(o + i, ld_part(g + i, n - i, 0.0f) * gelu_d1_v(ld_part(x + i, n - i, 0.0f)), n - i);
}

void bn_stats_f32(const float* x, int64_t N, int64_t S, int64_t stride, double* mean, double* var) {
  double s = 0;
  for (int64_t r = 0; r < N; ++r) s += row_sum<false>(x + r * stride, S, 0.0f);
  const double cnt = double(N) * double(S);
  const double mu = cnt ? s / cnt : 0.0;
  // the squared deviations from the float mean, corrected for its rounding (exact to first order)
  const float mf = float(mu);
  const double dm = mu - double(mf);
  double ss = 0;
  for (int64_t r = 0; r < N; ++r) ss += row_sum<true>(x + r * stride, S, mf);
  const double v = cnt ? ss / cnt - dm * dm : 0.0;
  *mean = mu;
  *var = v > 0 ? v : 0.0;
}

void bn_apply_f32(float* y, const float* x, int64_t N, int64_t S, int64_t stride, float scale, float shift) {
  const vf a = splat(scale), b = splat(shift);
  for (int64_t r = 0; r < N; ++r) {
    const float* xr = x + r * stride;
    float* yr = y + r * stride;
    int64_t i = 0;
    for (; i + 2 * W <= S; i += 2 * W) {
      const vf u = ld(xr + i) * a + b, v = ld(xr + i + W) * a + b;
      st(yr + i, u);
      st(yr + i + W, v);
    }
    for (; i + W <= S; i += W) st(yr + i, ld(xr + i) * a + b);
    for (; i < S; ++i) yr[i] = xr[i] * scale + shift;
  }
}

void sum_cols_f32(double* acc, const float* p, int64_t k) {
  for (int64_t j = 0; j < k; ++j) acc[j] += double(p[j]);
}

#if defined(__AVX512F__)
void transpose16_b32(char* d, int64_t dj, const char* s, int64_t si) {
  // In registers: 32-bit, then 64-bit interleaves within 128-bit lanes, then two rounds of lane
  // shuffles (64 shuffles for 256 elements, against one load and one store per element).
  __m512 r[16], a[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(reinterpret_cast<const float*>(s + i * si));
  for (int k = 0; k < 16; k += 2) {
    a[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
    a[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 16; k += 4) {  // r[k + m], 128-bit lane L: rows k..k+3 of column 4 L + m
    const __m512d a0 = _mm512_castps_pd(a[k]), a1 = _mm512_castps_pd(a[k + 1]);
    const __m512d a2 = _mm512_castps_pd(a[k + 2]), a3 = _mm512_castps_pd(a[k + 3]);
    r[k] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a2));
    r[k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a2));
    r[k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, a3));
    r[k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, a3));
  }
  for (int m = 0; m < 4; ++m) {  // column 4 L + m: lane L of r[m], r[4 + m], r[8 + m], r[12 + m]
    const __m512 e0 = _mm512_shuffle_f32x4(r[m], r[4 + m], 0x88), e1 = _mm512_shuffle_f32x4(r[m], r[4 + m], 0xdd);
    const __m512 f0 = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0x88);
    const __m512 f1 = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0xdd);
    _mm512_storeu_ps(reinterpret_cast<float*>(d + m * dj), _mm512_shuffle_f32x4(e0, f0, 0x88));
    _mm512_storeu_ps(reinterpret_cast<float*>(d + (m + 4) * dj), _mm512_shuffle_f32x4(e1, f1, 0x88));
    _mm512_storeu_ps(reinterpret_cast<float*>(d + (m + 8) * dj), _mm512_shuffle_f32x4(e0, f0, 0xdd));
    _mm512_storeu_ps(reinterpret_cast<float*>(d + (m + 12) * dj), _mm512_shuffle_f32x4(e1, f1, 0xdd));
  }
}
#endif

}  // namespace
}  // namespace LUCID_ISA

namespace {
#define LUCID_ROWS_ENUM_baseline Isa::Baseline
#define LUCID_ROWS_ENUM_avx2 Isa::AVX2
#define LUCID_ROWS_ENUM_avx512 Isa::AVX512
#define LUCID_ROWS_CAT(a, b) a##b
#define LUCID_ROWS_ENUM(x) LUCID_ROWS_CAT(LUCID_ROWS_ENUM_, x)
const bool rows_registered =
    (register_row_kernels(LUCID_ROWS_ENUM(LUCID_ISA),
                          {&LUCID_ISA::softmax_f32, &LUCID_ISA::layer_norm_f32, &LUCID_ISA::lse_f32,
                           &LUCID_ISA::extreme_f32, &LUCID_ISA::minmax_f32, &LUCID_ISA::cumext_f32, &LUCID_ISA::topk_f32, &LUCID_ISA::extreme_cols_f32, &LUCID_ISA::sqdev_sum_f32, &LUCID_ISA::prod_f32,
                           &LUCID_ISA::nan_to_num_f32, &LUCID_ISA::round_scaled_f32, &LUCID_ISA::sum_cols_f32,
                           &LUCID_ISA::gelu_f32, &LUCID_ISA::silu_f32, &LUCID_ISA::gelu_backward_f32,
                           &LUCID_ISA::bn_stats_f32, &LUCID_ISA::bn_apply_f32,
#if defined(__AVX512F__)
                           &LUCID_ISA::transpose16_b32
#else
                           nullptr  // copy.cpp's scalar tile loop
#endif
                          }),
     true);
}  // namespace

}  // namespace lucid::cpu
