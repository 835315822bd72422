#pragma once
// Branch-free float32 exp, expm1 and tanh that the compiler vectorises (Cephes-style polynomials),
// shared by the CPU kernels that run them per element (activations, recurrent cells).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backend/cpu/vmath_exp.h"

namespace lucid::cpu::vmath {

inline float bits_to_float(int32_t i) {
  float f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}

// exp(x) for float: range reduction x = n ln2 + r, a degree-6 polynomial, 2^n in two halves (so
// denormal results and n = 128 are exact); inf above, 0 below, NaN through.
inline float vexp_scaled(float x, float& scale) {
  const float xc = x < -104.0f ? -104.0f : (x > 88.72283935546875f ? 88.72283935546875f : x);
  const float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float q = 1.9875691500e-4f;
  q = q * r + 1.3981999507e-3f;
  q = q * r + 8.3334519073e-3f;
  q = q * r + 4.1665795894e-2f;
  q = q * r + 1.6666665459e-1f;
  q = q * r + 5.0000001201e-1f;
  const int32_t ni = int32_t(n);
  const int32_t n1 = ni >> 1, n2 = ni - n1;
  scale = bits_to_float((n1 + 127) << 23) * bits_to_float((n2 + 127) << 23);
  return q * r * r + r;  // exp(r) - 1
}
// exp is the unary op's (vmath_exp.h: same range reduction and polynomial degree, minimax-fitted).
inline float vexp(float x) { return exp(x); }
inline float vexpm1(float x) {
  float scale;
  const float em = vexp_scaled(x, scale);
  float y = em * scale + (scale - 1.0f);
  y = x > 88.72283935546875f ? std::numeric_limits<float>::infinity() : y;
  y = x < -104.0f ? -1.0f : y;
  y = x == 0.0f ? x : y;  // keeps -0
  return x != x ? x : y;
}
#if defined(__FMA__)
// tanh is the unary op's (vmath_exp.h: at most 1 ulp).
inline float vtanh(float x) { return tanh(x); }
#else
// Without FMA (the generic build of activation.cpp/rnn.cpp) the unary op's tanh computes in double,
// which does not vectorise as well in these loops: a float polynomial below |x| = 0.625 (Cephes
// tanhf), 1 - 2 / (exp(2|x|) + 1) above (max error 1.33 ulp).
inline float vtanh(float x) {
  const float ax = std::abs(x);
  const float z = x * x;
  const float small = ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z +
                        1.33314422036e-1f) * z - 3.33332819422e-1f) * z * x + x;
  float big = 1.0f - 2.0f / (vexp(2.0f * ax) + 1.0f);
  big = x < 0.0f ? -big : big;
  return ax < 0.625f ? (x == 0.0f ? x : small) : big;
}
#endif

}  // namespace lucid::cpu::vmath
