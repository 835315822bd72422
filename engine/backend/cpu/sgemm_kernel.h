#pragma once
// The float32 AVX-512 micro-kernel shared by the GEMM (sgemm.cpp: packed A panels, B packed or in
// place) and the convolution GEMMs (conv_gemm.cpp: the weight in place either way round, B rows of an
// im2col tile or of an implicit one). R rows of A broadcast against V 16-wide vectors of a row of B,
// R * V zmm accumulators; the last vector's columns masked (never read or written past them). Include
// only from files whose callers check isa() == Isa::AVX512.
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <utility>

#define LUCID_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma")))

namespace lucid::cpu::sgemm_kernel {

// A(r, k) = a[k * lda + r] (k-major: packed panels with lda = their height, or a transposed operand),
// or a[r * lda + k] when A_ROWS. Row k of B: b + k * ldb, or b + off[k] when B_IND.
// C (R x up to 16 * V, ldc) = / += (acc) A B (+ bias[r] when bias).
template <int R, int V, bool A_ROWS, bool B_IND>
LUCID_AVX512 void tile(int64_t K, const float* __restrict a, int64_t lda, const float* __restrict b, int64_t ldb,
                       const int64_t* off, float* c, int64_t ldc, __mmask16 mlast, bool acc, const float* bias) {
  __m512 s[R][V];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) s[r][v] = _mm512_setzero_ps();
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    if (V > 1) _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + 16 * V - 1), _MM_HINT_T0);
  }
#pragma GCC unroll 4
  for (int64_t k = 0; k < K; ++k) {
    const float* bk = B_IND ? b + off[k] : b;
    __m512 bv[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      bv[v] = v < V - 1 ? _mm512_loadu_ps(bk + 16 * v) : _mm512_maskz_loadu_ps(mlast, bk + 16 * v);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(A_ROWS ? a[r * lda + k] : a[r]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) s[r][v] = _mm512_fmadd_ps(av, bv[v], s[r][v]);
    }
    if (!A_ROWS) a += lda;
    if (!B_IND) b += ldb;
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    float* cr = c + r * ldc;
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const __mmask16 m = v == V - 1 ? mlast : __mmask16(0xFFFF);
      __m512 x = s[r][v];
      if (acc) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, cr + 16 * v));
      if (bias) x = _mm512_add_ps(x, _mm512_set1_ps(bias[r]));
      _mm512_mask_storeu_ps(cr + 16 * v, m, x);
    }
  }
}

using TileFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, const int64_t*, float*, int64_t,
                        __mmask16, bool, const float*);

// Table of tiles: [V - 1][R - 1] for R <= MAXR, V <= MAXV.
template <int MAXR, int MAXV, bool A_ROWS, bool B_IND>
struct Tiles {
  template <int V, int... Rs>
  static constexpr std::array<TileFn, MAXR> row(std::integer_sequence<int, Rs...>) {
    return {&tile<Rs + 1, V, A_ROWS, B_IND>...};
  }
  template <int... Vs>
  static constexpr std::array<std::array<TileFn, MAXR>, MAXV> table(std::integer_sequence<int, Vs...>) {
    return {row<Vs + 1>(std::make_integer_sequence<int, MAXR>{})...};
  }
  static constexpr auto fns = table(std::make_integer_sequence<int, MAXV>{});
  // rows <= MAXR; cols in [1, 16 * MAXV]
  static TileFn get(int64_t rows, int64_t cols) { return fns[size_t((cols + 15) / 16 - 1)][size_t(rows - 1)]; }
};

inline __mmask16 last_lanes(int64_t cols) {  // the last vector's columns of a tile `cols` wide
  const int64_t n = cols - (cols - 1) / 16 * 16;
  return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
}

}  // namespace lucid::cpu::sgemm_kernel
