// The convolution GEMM (backend/cpu/conv_gemm.h): 8 x 32 AVX-512 register tiles (the GEMM's micro-
// kernel, backend/cpu/sgemm_kernel.h) that broadcast A and stream rows of B straight from the caller's
// arrays. Blocks of KC rows of B (KC x 32 floats, 32 KB) are reused from L1 by every 8-row block of A;
// no operand is repacked.
#include "backend/cpu/conv_gemm.h"

#include <immintrin.h>

#include <algorithm>

#include "backend/cpu/isa.h"
#include "backend/cpu/sgemm_kernel.h"

namespace lucid::cpu {

namespace {

constexpr int64_t MR = 8, NR = 32, KC = 256;

// The register tiles (backend/cpu/sgemm_kernel.h, shared with the GEMM): MR rows of the weight read in
// place, k-major (AT) or row-major, against rows of B in place (or the rows of an implicit im2col).
template <bool AT, bool IND = false>
using Tiles = sgemm_kernel::Tiles<MR, NR / 16, !AT, IND>;

template <bool AT>
LUCID_AVX512 void sgemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                        float* C, int64_t ldc, bool accumulate, const float* bias) {
  for (int64_t j = 0; j < N; j += NR) {
    const int64_t nj = std::min(NR, N - j);
    const __mmask16 ml = sgemm_kernel::last_lanes(nj);
    for (int64_t k0 = 0; k0 < K || k0 == 0; k0 += KC) {
      const int64_t kc = std::min(KC, K - k0);
      const bool acc = accumulate || k0 > 0, last = k0 + KC >= K;
      const float* b = B + k0 * ldb + j;
      for (int64_t i = 0; i < M; i += MR) {
        const float* a = AT ? A + k0 * lda + i : A + i * lda + k0;
        Tiles<AT>::get(std::min(MR, M - i), nj)(kc, a, lda, b, ldb, nullptr, C + i * ldc + j, ldc, ml, acc,
                                                last && bias ? bias + i : nullptr);
      }
      if (K == 0) break;
    }
  }
}

// C (MR_ x up to 32) += sum over lines and ow of A(r, line, ow) Bt[(line*OW + ow), :], with
// A(r, line, ow) = xp[offr[r] + base[line] + ow * sw]: the weight gradient without im2col.
template <int MR_>
LUCID_AVX512 void micro_w(const float* xp, const int64_t* offr, const int64_t* base, int64_t lines, int64_t OW,
                          int64_t sw, const float* Bt, int64_t ldb, float* C, int64_t ldc, __mmask16 m0,
                          __mmask16 m1) {
  __m512 c0[MR_], c1[MR_];
#pragma GCC unroll 8
  for (int r = 0; r < MR_; ++r) c0[r] = c1[r] = _mm512_setzero_ps();
  const float* b = Bt;
  for (int64_t line = 0; line < lines; ++line) {
    const float* a[MR_];
#pragma GCC unroll 8
    for (int r = 0; r < MR_; ++r) a[r] = xp + offr[r] + base[line];
    for (int64_t ow = 0; ow < OW; ++ow, b += ldb) {
      const __m512 b0 = _mm512_maskz_loadu_ps(m0, b);
      const __m512 b1 = _mm512_maskz_loadu_ps(m1, b + 16);
      const int64_t at = ow * sw;
#pragma GCC unroll 8
      for (int r = 0; r < MR_; ++r) {
        const __m512 av = _mm512_set1_ps(a[r][at]);
        c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
        c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR_; ++r) {
    float* c = C + r * ldc;
    _mm512_mask_storeu_ps(c, m0, _mm512_add_ps(c0[r], _mm512_maskz_loadu_ps(m0, c)));
    _mm512_mask_storeu_ps(c + 16, m1, _mm512_add_ps(c1[r], _mm512_maskz_loadu_ps(m1, c + 16)));
  }
}

}  // namespace

LUCID_AVX512 void conv_wgrad_direct_f32(int64_t M, int64_t N, const float* xp, const int64_t* off,
                                        const int64_t* base, int64_t lines, int64_t OW, int64_t sw, const float* Bt,
                                        int64_t ldb, float* C, int64_t ldc) {
  for (int64_t j = 0; j < N; j += NR) {
    const int64_t nj = std::min(NR, N - j);
    const __mmask16 m0 = __mmask16((1u << std::min<int64_t>(16, nj)) - 1);
    const __mmask16 m1 = __mmask16(nj > 16 ? (1u << (nj - 16)) - 1 : 0);
    for (int64_t i = 0; i < M; i += MR) {
      const int64_t* o = off + i;
      const float* bt = Bt + j;
      float* c = C + i * ldc + j;
      switch (std::min(MR, M - i)) {
        case 8: micro_w<8>(xp, o, base, lines, OW, sw, bt, ldb, c, ldc, m0, m1); break;
        case 7: micro_w<7>(xp, o, base, lines, OW, sw, bt, ldb, c, ldc, m0, m1); break;
        case 6: micro_w<6>(xp, o, base, lines, OW, sw, bt, ldb, c, ldc, m0, m1); break;
        case 5: micro_w<5>(xp, o, base, lines, OW, sw, bt, ldb, c, ldc, m0, m1); break;
        case 4: micro_w<4>(xp, o, base, lines, OW, sw, bt, ldb, c, ldc, m0, m1); break;
        case 3: micro_w<3>(xp, o, base, lines, OW, sw, bt, ldb, c, ldc, m0, m1); break;
        case 2: micro_w<2>(xp, o, base, lines, OW, sw, bt, ldb, c, ldc, m0, m1); break;
        default: micro_w<1>(xp, o, base, lines, OW, sw, bt, ldb, c, ldc, m0, m1); break;
      }
    }
  }
}

LUCID_AVX512 void conv_direct_f32(int64_t M, int64_t K, const float* W, int64_t ldw, const float* xp,
                                  const int64_t* off, const int64_t* base, int64_t lines, int64_t OW, float* y,
                                  int64_t ldy, const float* bias) {
  for (int64_t line = 0; line < lines; ++line) {
    const float* xb = xp + base[line];
    float* yl = y + line * OW;
    for (int64_t j = 0; j < OW; j += NR) {
      const int64_t nj = std::min(NR, OW - j);
      const __mmask16 ml = sgemm_kernel::last_lanes(nj);
      for (int64_t k0 = 0; k0 < K; k0 += KC) {
        const int64_t kc = std::min(KC, K - k0);
        const bool last = k0 + KC >= K;
        for (int64_t i = 0; i < M; i += MR)
          Tiles<false, true>::get(std::min(MR, M - i), nj)(kc, W + i * ldw + k0, ldw, xb + j, 0, off + k0,
                                                           yl + i * ldy + j, ldy, ml, k0 > 0,
                                                           last && bias ? bias + i : nullptr);
      }
    }
  }
}

LUCID_AVX512 void conv_vol2col_f32(float* cols, const float* x, int64_t C, const ConvGeom& g, int64_t r0,
                                   int64_t r1) {
  const int64_t K = g.k_numel(), OH = g.out[1], OW = g.out[2], D = g.in[0], H = g.in[1], W = g.in[2];
  const int64_t IN = D * H * W, Lt = (r1 - r0) * OW;
  const int64_t od0 = r0 / OH, oh0 = r0 % OH;
  for (int64_t c = 0; c < C; ++c) {
    const float* plane = x + c * IN;
    for (int64_t kk = 0; kk < K; ++kk) {
      const int64_t kd = kk / (g.k[1] * g.k[2]), ki = (kk / g.k[2]) % g.k[1], kj = kk % g.k[2];
      const int64_t offw = kj * g.d[2] - g.p[2];
      float* out = cols + (c * K + kk) * Lt;
      int64_t od = od0, oh = oh0;
      for (int64_t r = r0; r < r1; ++r, out += OW) {
        const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0], ih = oh * g.s[1] - g.p[1] + ki * g.d[1];
        const bool inside = id >= 0 && id < D && ih >= 0 && ih < H;
        const float* src = plane + (id * H + ih) * W + offw;
        for (int64_t ow = 0; ow < OW; ow += 16) {
          const int64_t n = std::min<int64_t>(16, OW - ow);
          const __mmask16 store = __mmask16((1u << n) - 1);
          // lanes whose input column ow + lane + offw lies in [0, W); masked-off lanes are never read
          const int64_t a = std::max<int64_t>(0, -(ow + offw)), b = std::min<int64_t>(n, W - (ow + offw));
          const __mmask16 load = inside && b > a ? __mmask16(((1u << b) - 1) & ~((1u << a) - 1)) : __mmask16(0);
          _mm512_mask_storeu_ps(out + ow, store, _mm512_maskz_loadu_ps(load, src + ow));
        }
        if (++oh == OH) {
          oh = 0;
          ++od;
        }
      }
    }
  }
}

bool conv_gemm_available() { return isa() == Isa::AVX512; }

void conv_sgemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool a_trans, const float* B,
                int64_t ldb, float* C, int64_t ldc, bool accumulate, const float* bias) {
  if (a_trans) sgemm<true>(M, N, K, A, lda, B, ldb, C, ldc, accumulate, bias);
  else sgemm<false>(M, N, K, A, lda, B, ldb, C, ldc, accumulate, bias);
}

}  // namespace lucid::cpu
