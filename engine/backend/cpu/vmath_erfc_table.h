#pragma once
// float erfc below |x| = 4.5 from a table of 32 polynomials (AVX-512 builds; included by
// vmath_special.h, which adds the tail). Lane i = int(a (a + 2.5)), a = |x|, picks an interval of a
// over which erfc falls by a factor of about 2; on it erfc(a) = c0 + c1 u + u^2 Q(u), u = a - c
// (exact by Sterbenz beyond the first interval), c1 in two floats, Q of degree 4. Minimax fits with
// float coefficients (scripts/fit_tables.py), relative error below 2^-28.3; each center c lies
// near the middle of its interval where erfc(c) rounds to a float within 2^-33, so c0 carries no
// rounding error. c1 u is kept exact (fma) and c0 + c1 u summed with its error, so only the last
// addition rounds at full size: max 0.84 ulp over all floats (at small negative x, 2 - erfc(-x)),
// the same bits in the vector kernel (vpermt2ps picks the coefficients: 10 of its 31 ops per 16
// lanes) and the scalar code. The polynomials carry erfc's scale (down to 2^-32): no exponential.
#include <cstdint>

#include "backend/cpu/vmath_base.h"
#include "backend/cpu/vmath_table.h"

namespace lucid::cpu::vmath {

alignas(64) constexpr float kErfcTabC[32] = {
    0.17539673f, 0.4940864f, 0.7616475f, 0.9971507f, 1.2099354f, 1.405916f, 1.5880533f, 1.759234f, 1.9213154f,
    2.0751328f, 2.2225885f, 2.3631139f, 2.499279f, 2.6302593f, 2.7576048f, 2.879944f, 2.999767f, 3.1160624f,
    3.228889f, 3.3389428f, 3.446834f, 3.5522459f, 3.655096f, 3.7562194f, 3.855132f, 3.9521363f, 4.0472198f,
    4.1412373f, 4.232839f, 4.323624f, 4.4129133f, 4.4785204f};
alignas(64) constexpr float kErfcTabP[8][32] = {
    {  // c0
     0.80409694f, 0.4847122f, 0.28142118f, 0.15848534f, 0.087061346f, 0.04678234f, 0.024713837f, 0.012848811f,
     0.006584669f, 0.0033389074f, 0.0016710314f, 0.00083192735f, 0.00040852535f, 0.00019942138f,
     9.625542e-05f, 4.6440142e-05f, 2.2122957e-05f, 1.0491976e-05f, 4.9631685e-06f, 2.3356179e-06f,
     1.0905151e-06f, 5.070275e-07f, 2.3524112e-07f, 1.08371246e-07f, 4.981203e-08f, 2.2816444e-08f,
     1.0426983e-08f, 4.724565e-09f, 2.1488145e-09f, 9.684323e-10f, 4.3533338e-10f, 2.3953037e-10f},
    {  // c1 (high part)
     -1.0941942f, -0.8839638f, -0.6317101f, -0.4174764f, -0.26101914f, -0.1563251f, -0.09061539f,
     -0.051092282f, -0.028136974f, -0.015216208f, -0.008073908f, -0.0042385883f, -0.0021861498f,
     -0.0011165836f, -0.0005622285f, -0.0002820868f, -0.0001394478f, -6.847358e-05f, -3.3467295e-05f,
     -1.6244494e-05f, -7.811739e-06f, -3.7353525e-06f, -1.7799151e-06f, -8.412291e-07f, -3.9623384e-07f,
     -1.8579928e-07f, -8.683939e-08f, -4.021347e-08f, -1.8673795e-08f, -8.5876275e-09f, -3.9363117e-09f,
     -2.1965834e-09f},
    {  // c1 (low part)
     9.599101e-09f, 1.7498585e-09f, 1.668985e-08f, 6.394398e-09f, -1.10866125e-08f, 6.1428977e-09f,
     4.5276297e-11f, 1.5576338e-09f, -1.6486676e-10f, -3.4044455e-11f, -3.1348882e-10f, -2.0147868e-10f,
     8.268195e-11f, -9.01549e-12f, -1.1525139e-11f, -1.0844482e-12f, -1.187814e-12f, 3.2616338e-12f,
     -5.998633e-13f, 1.7206478e-14f, 2.1966047e-13f, -4.049925e-14f, 4.4348273e-14f, 2.5239966e-14f,
     -8.2520965e-15f, 1.2702799e-15f, -2.2859958e-15f, -8.2245687e-16f, 4.890689e-19f, 3.5844838e-16f,
     1.8718954e-16f, -5.678388e-17f},
    {  // c2
     0.1919182f, 0.43675447f, 0.48114038f, 0.41628686f, 0.3158163f, 0.21977995f, 0.14390208f, 0.089883275f,
     0.054060005f, 0.031575654f, 0.017944977f, 0.010016267f, 0.005463798f, 0.0029369043f, 0.001550404f,
     0.0008123942f, 0.0004183109f, 0.00021336792f, 0.00010806217f, 5.423943e-05f, 2.6925765e-05f,
     1.3268889e-05f, 6.5057598e-06f, 3.1598406e-06f, 1.5275336e-06f, 7.3430397e-07f, 3.5145806e-07f,
     1.6653351e-07f, 7.9043154e-08f, 3.7129666e-08f, 1.73706e-08f, 9.837444e-09f},
    {  // c3
     0.3422732f, 0.1507933f, -0.033732515f, -0.13757311f, -0.167738f, -0.15388653f, -0.12214462f, -0.0883866f,
     -0.059865363f, -0.038610443f, -0.02389825f, -0.014366857f, -0.008374979f, -0.004777676f, -0.0026628503f,
     -0.0014657319f, -0.0007900704f, -0.00042041825f, -0.00022145662f, -0.00011531923f, -5.9268034e-05f,
     -3.017752e-05f, -1.5259335e-05f, -7.632214e-06f, -3.7937757e-06f, -1.8727579e-06f, -9.1932753e-07f,
     -4.463595e-07f, -2.1682378e-07f, -1.04159106e-07f, -4.9790447e-08f, -2.8639251e-08f},
    {  // c4
     -0.09399815f, -0.18282767f, -0.14752333f, -0.07016772f, -0.0037947106f, 0.034914445f, 0.04901773f,
     0.047784597f, 0.039489444f, 0.029535457f, 0.020576326f, 0.013636526f, 0.0086445315f, 0.005304337f,
     0.0031547798f, 0.0018398565f, 0.0010456045f, 0.0005839133f, 0.0003215178f, 0.0001744483f, 9.317127e-05f,
     4.9177608e-05f, 2.5719604e-05f, 1.3281329e-05f, 6.803834e-06f, 3.4560703e-06f, 1.7432903e-06f,
     8.687575e-07f, 4.3256512e-07f, 2.1280385e-07f, 1.0407375e-07f, 6.0851185e-08f},
    {  // c5
     -0.09496379f, -0.009273409f, 0.054573584f, 0.068937235f, 0.052059345f, 0.026565062f, 0.0055846646f,
     -0.007040701f, -0.012342701f, -0.012909666f, -0.011115744f, -0.0085801445f, -0.006133551f, -0.004152137f,
     -0.0026852156f, -0.0016830062f, -0.0010199072f, -0.0006032077f, -0.00034979545f, -0.00019898899f,
     -0.0001110348f, -6.1030627e-05f, -3.3143046e-05f, -1.773193e-05f, -9.390513e-06f, -4.9216014e-06f,
     -2.557052e-06f, -1.31086e-06f, -6.7029754e-07f, -3.3833243e-07f, -1.6956575e-07f, -1.00520055e-07f},
    {  // c6
     0.030584546f, 0.04970701f, 0.024919013f, -0.0044188756f, -0.02002149f, -0.021611983f, -0.015906349f,
     -0.00852353f, -0.0025512355f, 0.0010800491f, 0.002746425f, 0.003116214f, 0.0027869039f, 0.0022158136f,
     0.0016188689f, 0.0011159955f, 0.00073474675f, 0.000468126f, 0.0002884904f, 0.00017339713f,
     0.00010191447f, 5.8703845e-05f, 3.3222143e-05f, 1.851761e-05f, 1.0173312e-05f, 5.5166224e-06f,
     2.9570724e-06f, 1.5683596e-06f, 8.2240587e-07f, 4.2806215e-07f, 2.2049323e-07f, 1.3426597e-07f},
};

// erfc(x) for |x| < 4.5 (other x: finite garbage, read within the tables)
LUCID_VM float erfc_tab(float x) {
  const float a0 = abs_(x), a = a0 < 4.5f ? a0 : 0.0f;  // NaN: 0
  const int i = int(a * (a + 2.5f));  // 0..31
  const float u = a - kErfcTabC[i];
  const float c0 = kErfcTabP[0][i], c1 = kErfcTabP[1][i];
  const float p = c1 * u, pl = std::fma(c1, u, -p);  // c1 u = p + pl
  float q = kErfcTabP[7][i];
  for (int k = 6; k >= 3; --k) q = std::fma(q, u, kErfcTabP[k][i]);
  const float t = c0 + p, e = (c0 - t) + p;  // c0 + p = t + e (|p| < c0)
  const float y = t + (e + std::fma(u * u, q, std::fma(kErfcTabP[2][i], u, pl)));
  return x < 0.0f ? 2.0f - y : y;
}

// o[0, m) = erfc_tab(x) lane by lane (o may be x); false when a lane has |x| >= 4.5 or is NaN (its o is
// garbage then). The same operations as erfc_tab, in the same order: the same bits.
inline bool erfc_tab_block(const float* x, float* o, int64_t m) {
  const Tables32<9> tab(kErfcTabC, kErfcTabP);
  const __m512 k25 = _mm512_set1_ps(2.5f), two = _mm512_set1_ps(2.0f);
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff);
  __m512i mx = _mm512_setzero_si512();  // the largest |x| bits (NaN: above inf's)
  const int64_t mv = m - m % 16;
  for (int64_t j = 0; j < mv; j += 16) {
    const __m512 v = _mm512_loadu_ps(x + j);
    const __m512i ai = _mm512_and_si512(_mm512_castps_si512(v), abs_mask);
    mx = _mm512_max_epi32(mx, ai);
    const __m512 a = _mm512_castsi512_ps(ai);
    const __m512i i = _mm512_cvttps_epi32(_mm512_mul_ps(a, _mm512_add_ps(a, k25)));  // low 5 bits used
    const __m512 u = _mm512_sub_ps(a, tab(0, i));
    const __m512 c0 = tab(1, i), c1 = tab(2, i);
    const __m512 p = _mm512_mul_ps(c1, u), pl = _mm512_fmsub_ps(c1, u, p);
    __m512 q = tab(8, i);
    for (int k = 7; k >= 4; --k) q = _mm512_fmadd_ps(q, u, tab(k, i));
    const __m512 t = _mm512_add_ps(c0, p), e = _mm512_add_ps(_mm512_sub_ps(c0, t), p);
    const __m512 s = _mm512_fmadd_ps(_mm512_mul_ps(u, u), q, _mm512_fmadd_ps(tab(3, i), u, pl));
    const __m512 y = _mm512_add_ps(t, _mm512_add_ps(e, s));
    const __mmask16 neg = _mm512_movepi32_mask(_mm512_castps_si512(v));
    _mm512_storeu_ps(o + j, _mm512_mask_sub_ps(y, neg, two, y));
  }
  int32_t top = _mm512_reduce_max_epi32(mx);
  for (int64_t j = mv; j < m; ++j) {
    const int32_t ai = f2i(x[j]) & 0x7fffffff;
    top = ai > top ? ai : top;
    o[j] = erfc_tab(x[j]);
  }
  return top < f2i(4.5f);
}

}  // namespace lucid::cpu::vmath
