#pragma once
// Branch-free float asinh and acosh (see vmath_base.h), computed in double and rounded once:
// asinh|x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), acosh x = log1p(t + sqrt(t (x + 1))), t = x - 1.
// For a float x, x^2 and t (x + 1) are exact in double, so the double log1p (vmath_exp.h) leaves an
// error far below float's half ulp. (double asinh/acosh keep libm.) On AVX-512, atanh's vector kernel
// (float atanh and double atanh are in vmath_exp.h).
#include "backend/cpu/vmath_exp.h"
#if defined(__AVX512F__) && defined(__FMA__)
#include "backend/cpu/vmath_table.h"
#endif

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

#if defined(__AVX512F__) && defined(__FMA__)
// float atanh in float (the unary loop's whole-block kernel; elsewhere atanh in double, vmath_exp.h):
// atanh|x| = log1p(q + ql) / 2 with q + ql = 2a / (1 - a), a = |x|: 1 - a = d + dl exactly, 1 / d from
// vrcp14ps and a Newton step, ql from the exact residual. 1 + q + ql = u + c exactly, and log1p =
// log(u) + c / u through float log1p's kernel (log_plus_small, vmath_exp.h), c / u among its small
// terms (1 / u from vrcp14ps: c / u is below 2^-24 u, and below 2^-9 of the result for a >= 2^-10).
// Below 2^-10, a + a^3 / 3. Exhaustive: max 0.846 ulp; 0.61 ns per element in cache against 1.12 for
// the double version (and PyTorch's libm loop).
inline void atanh_run(const float* x, float* o, int64_t m) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512i sign = _mm512_set1_epi32(int32_t(0x80000000u));
  map16(x, o, m, [&](__m512 v) {
    const __m512 a = _mm512_abs_ps(v);
    const __m512 d = _mm512_sub_ps(one, a), dl = _mm512_sub_ps(_mm512_sub_ps(one, d), a);
    __m512 rc = _mm512_rcp14_ps(d);
    rc = _mm512_fmadd_ps(rc, _mm512_fnmadd_ps(d, rc, one), rc);
    const __m512 t = _mm512_add_ps(a, a);
    const __m512 q = _mm512_mul_ps(t, rc);
    const __m512 ql = _mm512_mul_ps(_mm512_fnmadd_ps(q, dl, _mm512_fnmadd_ps(q, d, t)), rc);
    const __m512 u = _mm512_add_ps(one, q), b = _mm512_sub_ps(u, one);  // two-sum: c
    const __m512 c = _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(one, _mm512_sub_ps(u, b)), _mm512_sub_ps(q, b)), ql);
    const __m512i ix = _mm512_add_epi32(_mm512_castps_si512(u), _mm512_set1_epi32(0x3f800000 - 0x3f3504f3));
    const __m512 fe = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_srai_epi32(ix, 23), _mm512_set1_epi32(127)));
    const __m512i mant = _mm512_and_si512(ix, _mm512_set1_epi32(0x007fffff));
    const __m512 f = _mm512_sub_ps(_mm512_castsi512_ps(_mm512_add_epi32(mant, _mm512_set1_epi32(0x3f3504f3))), one);
    __m512 r = _mm512_mul_ps(log_plus_small(f, fe, _mm512_mul_ps(c, _mm512_rcp14_ps(u))), _mm512_set1_ps(0.5f));
    const __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_mul_ps(a, a), _mm512_set1_ps(1.0f / 3)), a, a);
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, _mm512_set1_ps(0x1p-10f), _CMP_LT_OQ), small);
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, one, _CMP_GE_OQ), _mm512_set1_ps(Lim<float>::nan));
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, one, _CMP_EQ_OQ), _mm512_set1_ps(Lim<float>::inf));
    return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(sign, _mm512_castps_si512(v), _mm512_castps_si512(r), 0xca));
  });  // NaN: r is NaN (no compare holds); +-0: +-0
}
#endif

}  // namespace lucid::cpu::vmath
