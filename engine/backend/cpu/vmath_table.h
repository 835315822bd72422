#pragma once
// Coefficient tables of 32 entries picked per lane (AVX-512 builds): the table kernels of
// vmath_erfc_table.h and vmath_tanh_table.h split their range into 32 intervals, one polynomial
// each, and keep every coefficient's table as two zmm halves (entries 0-15, 16-31), from which one
// vpermt2ps gives 16 lanes their own coefficient (GCC turns `table[i]` into gathers, 15x slower).
#include <immintrin.h>

namespace lucid::cpu::vmath {

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
