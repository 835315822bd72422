#pragma once
// Helpers of the hand-written AVX-512 kernels: map16, and coefficient tables of 32 entries picked per
// lane (Tables32): the table kernels of
// vmath_erfc_table.h and vmath_tanh_table.h split their range into 32 intervals, one polynomial
// each, and keep every coefficient's table as two zmm halves (entries 0-15, 16-31), from which one
// vpermt2ps gives 16 lanes their own coefficient (GCC turns `table[i]` into gathers, 15x slower).
#include <immintrin.h>

#include <cstdint>

namespace lucid::cpu::vmath {

// o[j] = f(x[j]) for j < m, 16 lanes at a time, the last partial vector through masked loads and
// stores (the same code for every element: no scalar twin for the tail). o may be x.
template <typename F>
inline __attribute__((always_inline)) void map16(const float* x, float* o, int64_t m, F f) {
  const int64_t mv = m - m % 16;
  for (int64_t j = 0; j < mv; j += 16) _mm512_storeu_ps(o + j, f(_mm512_loadu_ps(x + j)));
  if (mv < m) {
    const __mmask16 k = __mmask16((1u << (m - mv)) - 1);
    _mm512_mask_storeu_ps(o + mv, k, f(_mm512_maskz_loadu_ps(k, x + mv)));
  }
}

template <int R>  // R tables: the centers, then one per coefficient
struct Tables32 {
  __m512 lo[R], hi[R];
  Tables32(const float* centers, const float (*coefs)[32]) {
    lo[0] = _mm512_load_ps(centers);
    hi[0] = _mm512_load_ps(centers + 16);
    for (int r = 1; r < R; ++r) {
      lo[r] = _mm512_load_ps(coefs[r - 1]);
      hi[r] = _mm512_load_ps(coefs[r - 1] + 16);
    }
  }
  // Table r at each lane's entry: the low 5 bits of i.
  __m512 operator()(int r, __m512i i) const { return _mm512_permutex2var_ps(lo[r], i, hi[r]); }
};

}  // namespace lucid::cpu::vmath
