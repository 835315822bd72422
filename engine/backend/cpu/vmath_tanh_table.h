#pragma once
// float tanh's large-argument half from a table of 32 polynomials (AVX-512 builds; included by
// vmath_exp.h, whose tanh and tanh_run add the small half): for 0.98 <= a = |x| < 9.1, lane i =
// int(fma(a, 3.93, -0.98 * 3.93)) picks an interval of width 0.254, on which g = 1 - tanh(a) =
// 2 / (e^{2a} + 1) = c0 + u P(u), u = a - c, degree 5, minimax for the absolute error (below 2^-28.4;
// scripts/fit_tables.py). g <= 1/4 there, so its rounding errors stay below 0.2 ulp of tanh = 1 - g.
// This replaces the exponential and its division (13% of tanh's time); vpermt2ps picks the
// coefficients (7 of tanh's 30 ops per 16 lanes). Clamped at 9.1, where 1 - g rounds to 1.
#include <cstdint>

#include "backend/cpu/vmath_base.h"
#include "backend/cpu/vmath_table.h"

namespace lucid::cpu::vmath {

alignas(64) constexpr float kTanhTabC[32] = {
    1.1072265f, 1.3616794f, 1.6161323f, 1.8705852f, 2.1250381f, 2.379491f, 2.633944f, 2.888397f, 3.14285f,
    3.3973029f, 3.6517558f, 3.9062088f, 4.1606617f, 4.4151144f, 4.6695676f, 4.9240203f, 5.1784735f, 5.432926f,
    5.6873794f, 5.941832f, 6.196285f, 6.450738f, 6.7051907f, 6.959644f, 7.2140965f, 7.4685497f, 7.7230024f,
    7.9774556f, 8.231909f, 8.4863615f, 8.740814f, 8.995267f};
alignas(64) constexpr float kTanhTabP[6][32] = {
    {  // c0
     0.19692019f, 0.123217985f, 0.07593889f, 0.046352852f, 0.028125139f, 0.017002877f, 0.010256105f,
     0.006178124f, 0.003718579f, 0.0022370936f, 0.0013454357f, 0.00080902973f, 0.00048642908f, 0.00029244678f,
     0.00017581541f, 0.00010569571f, 6.3540596e-05f, 3.819812e-05f, 2.2963077e-05f, 1.3804391e-05f,
     8.298577e-06f, 4.98872e-06f, 2.998988e-06f, 1.8028508e-06f, 1.0837899e-06f, 6.5152335e-07f,
     3.9166542e-07f, 2.3545073e-07f, 1.4154185e-07f, 8.508834e-08f, 5.115113e-08f, 3.0749668e-08f},
    {  // c1
     -0.3550628f, -0.2312533f, -0.14611106f, -0.09055712f, -0.055459253f, -0.033716653f, -0.020407023f,
     -0.012318078f, -0.00742333f, -0.004469183f, -0.0026890612f, -0.0016174049f, -0.00097262155f,
     -0.00058480806f, -0.0003515999f, -0.00021138025f, -0.00012707716f, -7.639478e-05f, -4.5925626e-05f,
     -2.760859e-05f, -1.6597085e-05f, -9.977415e-06f, -5.997967e-06f, -3.605698e-06f, -2.1675787e-06f,
     -1.3030462e-06f, -7.833307e-07f, -4.709014e-07f, -2.8308366e-07f, -1.7017666e-07f, -1.0230226e-07f,
     -6.1499335e-08f},
    {  // c2
     0.2851462f, 0.2027601f, 0.13501492f, 0.08635974f, 0.053899117f, 0.033142786f, 0.020197647f, 0.012241956f,
     0.007395694f, 0.0044591753f, 0.0026854076f, 0.0016160742f, 0.0009721394f, 0.00058463204f, 0.0003515373f,
     0.00021135651f, 0.0001270688f, 7.639161e-05f, 4.5923953e-05f, 2.7608086e-05f, 1.6596807e-05f,
     9.977318e-06f, 5.9979216e-06f, 3.6056686e-06f, 2.1675708e-06f, 1.3030386e-06f, 7.833255e-07f,
     4.708991e-07f, 2.83078e-07f, 1.70175e-07f, 1.0230173e-07f, 6.149887e-08f},
    {  // c3
     -0.11063966f, -0.10069208f, -0.07605942f, -0.052170254f, -0.033897124f, -0.021341221f, -0.013188143f,
     -0.008060343f, -0.0048937663f, -0.0029594642f, -0.0017854659f, -0.0010756558f, -0.00064746244f,
     -0.0003895214f, -0.00023427607f, -0.00014087524f, -8.470099e-05f, -5.092337e-05f, -3.0614592e-05f,
     -1.8404977e-05f, -1.1064425e-05f, -6.651438e-06f, -3.9986103e-06f, -2.4037938e-06f, -1.4450424e-06f,
     -8.68697e-07f, -5.222193e-07f, -3.1393324e-07f, -1.8872018e-07f, -1.1345182e-07f, -6.820085e-08f,
     -4.0998945e-08f},
    {  // c4
     -0.00663547f, 0.020436449f, 0.025246875f, 0.020942574f, 0.01500721f, 0.009978882f, 0.006334985f,
     0.003938241f, 0.0024168724f, 0.0014700162f, 0.00089197746f, 0.0005385851f, 0.00032434257f,
     0.00019525187f, 0.0001173539f, 7.0635826e-05f, 4.2447995e-05f, 2.552725e-05f, 1.5377225e-05f,
     9.228766e-06f, 5.552404e-06f, 3.3355132e-06f, 2.0051405e-06f, 1.2057382e-06f, 7.2441077e-07f,
     4.356624e-07f, 2.619408e-07f, 1.574293e-07f, 9.491093e-08f, 5.694894e-08f, 3.4203257e-08f, 2.0570555e-08f},
    {  // c5
     0.034035563f, 0.010425506f, -0.0011740921f, -0.0046211425f, -0.00448298f, -0.0033862137f, -0.0023185543f,
     -0.0014936646f, -0.0009371229f, -0.0005776577f, -0.0003523643f, -0.00021330277f, -0.00012923167f,
     -7.8208686e-05f, -4.68555e-05f, -2.8203061e-05f, -1.6996068e-05f, -1.0223785e-05f, -6.1490073e-06f,
     -3.6872502e-06f, -2.217056e-06f, -1.3355161e-06f, -8.01256e-07f, -4.81429e-07f, -2.8977237e-07f,
     -1.7403373e-07f, -1.0467324e-07f, -6.2941844e-08f, -3.790509e-08f, -2.268735e-08f, -1.3690694e-08f,
     -8.2460465e-09f},
};
constexpr float kTanhTabK = 3.93f, kTanhTabK0 = -0.98f * 3.93f;

// 1 - g(a) for 0.98 <= a (a NaN or below 0.98: finite garbage, read within the tables)
LUCID_VM float tanh_big_tab(float a) {
  const float ac = a < 9.1f ? a : 9.1f;
  const int i = int(std::fma(ac, kTanhTabK, kTanhTabK0)) & 31;  // the vector kernel's lanes use the low 5 bits too
  const float u = ac - kTanhTabC[i];
  float g = kTanhTabP[5][i];
  for (int k = 4; k >= 0; --k) g = std::fma(g, u, kTanhTabP[k][i]);
  return 1.0f - g;
}

// The same for 16 lanes, with the same operations in the same order (the same bits).
struct TanhBigTab {
  Tables32<7> tab{kTanhTabC, kTanhTabP};
  __m512 operator()(__m512 a) const {
    const __m512 ac = _mm512_min_ps(a, _mm512_set1_ps(9.1f));  // a < 9.1 ? a : 9.1
    const __m512i i = _mm512_cvttps_epi32(_mm512_fmadd_ps(ac, _mm512_set1_ps(kTanhTabK), _mm512_set1_ps(kTanhTabK0)));
    const __m512 u = _mm512_sub_ps(ac, tab(0, i));
    __m512 g = tab(6, i);
    for (int r = 5; r >= 1; --r) g = _mm512_fmadd_ps(g, u, tab(r, i));
    return _mm512_sub_ps(_mm512_set1_ps(1.0f), g);
  }
};

}  // namespace lucid::cpu::vmath
