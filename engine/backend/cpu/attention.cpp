// CPU kernels of scaled_dot_product_attention (backend/kernels/attention.h): flash-style tiling.
// Forward: per (head, query block), key blocks stream through an online softmax (running max m and
// sum l per row, the output rescaled when m grows); the scores of one block pair live in a small
// per-thread buffer. Backward: per key/value head (so dk/dv have one writer), the scores are
// recomputed block by block from the saved logsumexp: P = exp(S - lse), dS = P * (dP - rowsum(dO*O)).
// GEMMs go to OpenBLAS (single-threaded inside our parallel region); the row passes (mask, exp,
// sums) use AVX2 / AVX-512 code picked by the ISA in use (backend/cpu/isa.h).
#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backend/common/philox.h"
#include "backend/cpu/dispatch.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/attention.h"

namespace lucid::cpu {

namespace {

// Query rows x key columns per block pair (measured on B4 H8 T256 D64: 32..64 x 64..512 within noise of
// each other; larger query blocks waste more of the causal diagonal).
constexpr int64_t kBlockQ = 64, kBlockK = 128;

// C (M x N, ldc) = alpha * op(A) op(B) + beta * C, row-major.
template <typename T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
  const auto TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
  if (M == 0 || N == 0) return;
  lda = std::max<int64_t>(lda, 1);
  ldb = std::max<int64_t>(ldb, 1);
  ldc = std::max<int64_t>(ldc, 1);
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, TA, TB, int(M), int(N), int(K), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
  else
    cblas_dgemm(CblasRowMajor, TA, TB, int(M), int(N), int(K), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
}

// exp(x) for float (Cephes' polynomial, relative error ~2e-7; 0 below -87.3 as expf's underflow),
// scalar and in AVX2 / AVX-512 registers; the vector paths are picked by the ISA in use (isa.h).
inline float exp_approx(float x) {
  if (!(x >= -87.3f)) return x != x ? x : 0.0f;
  const float xc = std::min(x, 88.7f);
  const float fi = std::floor(xc * 1.44269504088896341f + 0.5f);
  const float r = xc - fi * 0.693359375f + fi * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.0f;
  return y * __builtin_bit_cast(float, (int32_t(fi) + 127) << 23);
}

#define LUCID_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")))
#define LUCID_AVX2 __attribute__((target("avx2,fma")))

LUCID_AVX512 inline __m512 exp512(__m512 x) {
  const __m512 xc = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.3f)), _mm512_set1_ps(88.7f));
  const __m512 fi = _mm512_roundscale_ps(_mm512_fmadd_ps(xc, _mm512_set1_ps(1.44269504088896341f), _mm512_set1_ps(0.5f)),
                                         _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(fi, _mm512_set1_ps(0.693359375f), xc);
  r = _mm512_fnmadd_ps(fi, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  const __m512 y = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
  const __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(fi), _mm512_set1_epi32(127)), 23);
  const __m512 v = _mm512_mul_ps(y, _mm512_castsi512_ps(e));
  const __mmask16 keep = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.3f), _CMP_GE_OQ);
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  return _mm512_mask_mov_ps(_mm512_maskz_mov_ps(keep, v), nan, x);
}

LUCID_AVX2 inline __m256 exp256(__m256 x) {
  const __m256 xc = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.3f)), _mm256_set1_ps(88.7f));
  const __m256 fi = _mm256_floor_ps(_mm256_fmadd_ps(xc, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f)));
  __m256 r = _mm256_fnmadd_ps(fi, _mm256_set1_ps(0.693359375f), xc);
  r = _mm256_fnmadd_ps(fi, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  const __m256 y = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fi), _mm256_set1_epi32(127)), 23);
  const __m256 v = _mm256_mul_ps(y, _mm256_castsi256_ps(e));
  const __m256 keep = _mm256_cmp_ps(x, _mm256_set1_ps(-87.3f), _CMP_GE_OQ);
  const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  return _mm256_blendv_ps(_mm256_and_ps(keep, v), x, nan);
}

// row[c] = exp(row[c] - m); returns the sum.
LUCID_AVX512 float exp_sub_sum_512(float* row, int64_t n, float m) {
  const __m512 vm = _mm512_set1_ps(m);
  __m512 acc = _mm512_setzero_ps();
  int64_t c = 0;
  for (; c + 16 <= n; c += 16) {
    const __m512 e = exp512(_mm512_sub_ps(_mm512_loadu_ps(row + c), vm));
    _mm512_storeu_ps(row + c, e);
    acc = _mm512_add_ps(acc, e);
  }
  if (c < n) {
    const __mmask16 k = __mmask16((1u << (n - c)) - 1);
    const __m512 e = _mm512_maskz_mov_ps(k, exp512(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, row + c), vm)));
    _mm512_mask_storeu_ps(row + c, k, e);
    acc = _mm512_add_ps(acc, e);
  }
  return _mm512_reduce_add_ps(acc);
}
LUCID_AVX2 float exp_sub_sum_256(float* row, int64_t n, float m) {
  const __m256 vm = _mm256_set1_ps(m);
  __m256 acc = _mm256_setzero_ps();
  int64_t c = 0;
  for (; c + 8 <= n; c += 8) {
    const __m256 e = exp256(_mm256_sub_ps(_mm256_loadu_ps(row + c), vm));
    _mm256_storeu_ps(row + c, e);
    acc = _mm256_add_ps(acc, e);
  }
  alignas(32) float t[8];
  _mm256_store_ps(t, acc);
  float s = t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7];
  for (; c < n; ++c) s += (row[c] = exp_approx(row[c] - m));
  return s;
}
float exp_sub_sum_f(float* row, int64_t n, float m) {
  switch (isa()) {
    case Isa::AVX512: return exp_sub_sum_512(row, n, m);
    case Isa::AVX2: return exp_sub_sum_256(row, n, m);
    default: {
      float s = 0.f;
      for (int64_t c = 0; c < n; ++c) s += (row[c] = exp_approx(row[c] - m));
      return s;
    }
  }
}
// dx = g - exp(y) * s (log-softmax) or y * (g - s) (softmax), over one row.
LUCID_AVX512 void softmax_bwd_row_512(float* dx, const float* g, const float* y, int64_t n, float s, bool log) {
  const __m512 vs = _mm512_set1_ps(s);
  for (int64_t c = 0; c < n; c += 16) {
    const __mmask16 k = n - c >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - c)) - 1);
    const __m512 vg = _mm512_maskz_loadu_ps(k, g + c), vy = _mm512_maskz_loadu_ps(k, y + c);
    const __m512 r = log ? _mm512_fnmadd_ps(exp512(vy), vs, vg) : _mm512_mul_ps(vy, _mm512_sub_ps(vg, vs));
    _mm512_mask_storeu_ps(dx + c, k, r);
  }
}
LUCID_AVX2 void softmax_bwd_row_256(float* dx, const float* g, const float* y, int64_t n, float s, bool log) {
  const __m256 vs = _mm256_set1_ps(s);
  int64_t c = 0;
  for (; c + 8 <= n; c += 8) {
    const __m256 vg = _mm256_loadu_ps(g + c), vy = _mm256_loadu_ps(y + c);
    _mm256_storeu_ps(dx + c, log ? _mm256_fnmadd_ps(exp256(vy), vs, vg) : _mm256_mul_ps(vy, _mm256_sub_ps(vg, vs)));
  }
  for (; c < n; ++c) dx[c] = log ? g[c] - exp_approx(y[c]) * s : y[c] * (g[c] - s);
}
void softmax_bwd_row(float* dx, const float* g, const float* y, int64_t n, float s, bool log) {
  switch (isa()) {
    case Isa::AVX512: return softmax_bwd_row_512(dx, g, y, n, s, log);
    case Isa::AVX2: return softmax_bwd_row_256(dx, g, y, n, s, log);
    default:
      for (int64_t c = 0; c < n; ++c) dx[c] = log ? g[c] - exp_approx(y[c]) * s : y[c] * (g[c] - s);
  }
}
void softmax_bwd_row(double* dx, const double* g, const double* y, int64_t n, double s, bool log) {
  for (int64_t c = 0; c < n; ++c) dx[c] = log ? g[c] - std::exp(y[c]) * s : y[c] * (g[c] - s);
}
float row_sum_f(const float* a, int64_t n) {
  float s = 0.f;
#pragma omp simd reduction(+ : s)
  for (int64_t c = 0; c < n; ++c) s += a[c];
  return s;
}
double row_sum_f(const double* a, int64_t n) {
  double s = 0;
  for (int64_t c = 0; c < n; ++c) s += a[c];
  return s;
}

float row_max_f(const float* row, int64_t n) {
  float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
  for (int64_t c = 0; c < n; ++c) m = row[c] > m ? row[c] : m;
  return m;
}
// ds[c] = p[c] * (ds[c] * f[c] - d), f optional (dropout factors).
void ds_row_f(float* ds, const float* p, const float* f, int64_t n, float d) {
  if (f)
    for (int64_t c = 0; c < n; ++c) ds[c] = p[c] * (ds[c] * f[c] - d);
  else
    for (int64_t c = 0; c < n; ++c) ds[c] = p[c] * (ds[c] - d);
}
void scale_row_f(float* row, int64_t n, float s) {
  for (int64_t c = 0; c < n; ++c) row[c] *= s;
}
float dot_f(const float* a, const float* b, int64_t n) {
  float s = 0.f;
#pragma omp simd reduction(+ : s)
  for (int64_t c = 0; c < n; ++c) s += a[c] * b[c];
  return s;
}

double exp_sub_sum(double* row, int64_t n, double m) {
  double s = 0;
  for (int64_t c = 0; c < n; ++c) s += (row[c] = std::exp(row[c] - m));
  return s;
}
float exp_sub_sum(float* row, int64_t n, float m) { return exp_sub_sum_f(row, n, m); }
double row_max(const double* row, int64_t n) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t c = 0; c < n; ++c) m = row[c] > m ? row[c] : m;
  return m;
}
float row_max(const float* row, int64_t n) { return row_max_f(row, n); }
void ds_row(double* ds, const double* p, const double* f, int64_t n, double d) {
  for (int64_t c = 0; c < n; ++c) ds[c] = p[c] * ((f ? ds[c] * f[c] : ds[c]) - d);
}
void ds_row(float* ds, const float* p, const float* f, int64_t n, float d) { ds_row_f(ds, p, f, n, d); }
void scale_row(double* row, int64_t n, double s) {
  for (int64_t c = 0; c < n; ++c) row[c] *= s;
}
void scale_row(float* row, int64_t n, float s) { scale_row_f(row, n, s); }
double dot(const double* a, const double* b, int64_t n) {
  double s = 0;
  for (int64_t c = 0; c < n; ++c) s += a[c] * b[c];
  return s;
}
float dot(const float* a, const float* b, int64_t n) { return dot_f(a, b, n); }

// Dropout factors of elements [idx, idx + n) of the (N, L, S) draw: 0 or 1/(1-p).
template <typename T>
void dropout_factors(T* f, int64_t n, uint64_t idx, const AttnParams& p) {
  const float pf = float(p.dropout_p);
  const T keep = p.dropout_p >= 1.0 ? T(0) : T(1.0 / (1.0 - p.dropout_p));
  int64_t c = 0;
  while (c < n) {
    const uint64_t i = idx + uint64_t(c);
    const Philox4 r = philox4x32(p.offset + i / 4, p.seed);
    for (uint64_t lane = i % 4; lane < 4 && c < n; ++lane, ++c) f[c] = philox_u01f(r.v[lane]) >= pf ? keep : T(0);
  }
}

// Mask and causality applied to a block of scores s (rows i0.., columns j0.., ld bk).
template <typename T>
void mask_block(T* s, int64_t n, int64_t i0, int64_t bq, int64_t j0, int64_t bk, const AttnParams& p) {
  constexpr T ninf = -std::numeric_limits<T>::infinity();
  if (p.mask_kind != AttnMask::None) {
    const int64_t off = p.mask_off[size_t(n)];
    for (int64_t r = 0; r < bq; ++r) {
      T* row = s + r * bk;
      const int64_t base = off + (i0 + r) * p.mask_sl + j0 * p.mask_ss;
      if (p.mask_kind == AttnMask::Bool) {
        const uint8_t* m = static_cast<const uint8_t*>(p.mask) + base;
        for (int64_t c = 0; c < bk; ++c) row[c] = m[c * p.mask_ss] ? row[c] : ninf;
      } else {
        const T* m = static_cast<const T*>(p.mask) + base;
        if (p.mask_ss == 1)
          for (int64_t c = 0; c < bk; ++c) row[c] += m[c];
        else
          for (int64_t c = 0; c < bk; ++c) row[c] += m[c * p.mask_ss];
      }
    }
  }
  if (p.causal)
    for (int64_t r = 0; r < bq; ++r) {
      const int64_t first = std::max<int64_t>(0, i0 + r + 1 - j0);
      for (int64_t c = first; c < bk; ++c) s[r * bk + c] = ninf;
    }
}

template <typename T>
void forward(const TensorImpl& out, const TensorImpl& lse, const TensorImpl& q, const TensorImpl& k,
             const TensorImpl& v, const AttnParams& p) {
  const int64_t N = p.N, L = p.L, S = p.S, E = p.E, Ev = p.Ev;
  const int64_t nqb = (L + kBlockQ - 1) / kBlockQ;
  const T* Q = q.data<T>();
  const T* K = k.data<T>();
  const T* V = v.data<T>();
  T* O = out.data<T>();
  T* LSE = lse.data<T>();
  const T scale = T(p.scale);
  const int64_t qs = p.lq.sl, ks = p.lk.sl, vs = p.lv.sl, os = p.lo.sl;
  parallel_for(0, N * nqb, 1, [&](int64_t lo, int64_t hi) {
    std::vector<T> sbuf(size_t(kBlockQ * kBlockK)), fbuf(p.dropout_p > 0 ? size_t(kBlockK) : 0), m(kBlockQ),
        l(kBlockQ);
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t n = t / nqb, i0 = (t % nqb) * kBlockQ, i1 = std::min(L, i0 + kBlockQ), bq = i1 - i0;
      const int64_t kv = p.kv_of(n);
      const T* Qb = Q + p.lq.off[size_t(n)] + i0 * qs;
      const T* Kh = K + p.lk.off[size_t(kv)];
      const T* Vh = V + p.lv.off[size_t(kv)];
      T* Ob = O + p.lo.off[size_t(n)] + i0 * os;
      for (int64_t r = 0; r < bq; ++r) std::fill(Ob + r * os, Ob + r * os + Ev, T(0));
      std::fill(m.begin(), m.end(), -std::numeric_limits<T>::infinity());
      std::fill(l.begin(), l.end(), T(0));
      const int64_t kend = p.causal ? std::min(S, i1) : S;
      for (int64_t j0 = 0; j0 < kend; j0 += kBlockK) {
        const int64_t bk = std::min(kend, j0 + kBlockK) - j0;
        T* s = sbuf.data();
        gemm<T>(false, true, bq, bk, E, scale, Qb, qs, Kh + j0 * ks, ks, T(0), s, bk);
        mask_block(s, n, i0, bq, j0, bk, p);
        for (int64_t r = 0; r < bq; ++r) {
          T* row = s + r * bk;
          const T mx = row_max(row, bk);
          const T mnew = std::max(m[r], mx);
          if (mnew == -std::numeric_limits<T>::infinity()) {  // nothing visible yet
            std::fill(row, row + bk, T(0));
            continue;
          }
          const T corr = m[r] == -std::numeric_limits<T>::infinity() ? T(0) : T(std::exp(m[r] - mnew));
          const T sum = exp_sub_sum(row, bk, mnew);
          if (corr != T(1)) scale_row(Ob + r * os, Ev, corr);
          l[r] = l[r] * corr + sum;
          m[r] = mnew;
          if (p.dropout_p > 0) {
            dropout_factors(fbuf.data(), bk, uint64_t((n * L + i0 + r) * S + j0), p);
            for (int64_t c = 0; c < bk; ++c) row[c] *= fbuf[size_t(c)];
          }
        }
        gemm<T>(false, false, bq, Ev, bk, T(1), s, bk, Vh + j0 * vs, vs, T(1), Ob, os);
      }
      for (int64_t r = 0; r < bq; ++r) {
        if (l[r] == T(0)) {
          std::fill(Ob + r * os, Ob + r * os + Ev, T(0));
          LSE[n * L + i0 + r] = std::numeric_limits<T>::infinity();
        } else {
          scale_row(Ob + r * os, Ev, T(1) / l[r]);
          LSE[n * L + i0 + r] = m[r] + std::log(l[r]);
        }
      }
    }
  });
}

template <typename T>
void backward(const TensorImpl& dq, const TensorImpl& dk, const TensorImpl& dv, const TensorImpl& g,
              const TensorImpl& q, const TensorImpl& k, const TensorImpl& v, const TensorImpl& out,
              const TensorImpl& lse, const AttnParams& p) {
  const int64_t N = p.N, L = p.L, S = p.S, E = p.E, Ev = p.Ev;
  const int64_t group = p.Hq / p.Hk, Nkv = N / group;
  const T* Q = q.data<T>();
  const T* K = k.data<T>();
  const T* V = v.data<T>();
  const T* G = g.data<T>();
  const T* O = out.data<T>();
  const T* LSE = lse.data<T>();
  T* DQ = dq.data<T>();
  T* DK = dk.data<T>();
  T* DV = dv.data<T>();
  const T scale = T(p.scale);
  const bool drop = p.dropout_p > 0;
  const int64_t qs = p.lq.sl, ks = p.lk.sl, vs = p.lv.sl, os = p.lo.sl, gs = p.lg.sl;
  const int64_t dqs = p.ldq.sl, dks = p.ldk.sl, dvs = p.ldv.sl;
  parallel_for(0, Nkv, 1, [&](int64_t lo, int64_t hi) {
    std::vector<T> pbuf(size_t(kBlockQ * kBlockK)), dsbuf(size_t(kBlockQ * kBlockK)),
        fbuf(drop ? size_t(kBlockQ * kBlockK) : 0), pdbuf(drop ? size_t(kBlockQ * kBlockK) : 0), D(kBlockQ);
    for (int64_t kv = lo; kv < hi; ++kv) {
      const int64_t b = kv / p.Hk, hk = kv % p.Hk;
      const T* Kh = K + p.lk.off[size_t(kv)];
      const T* Vh = V + p.lv.off[size_t(kv)];
      T* DKh = DK + p.ldk.off[size_t(kv)];
      T* DVh = DV + p.ldv.off[size_t(kv)];
      for (int64_t j = 0; j < S; ++j) {
        std::fill(DKh + j * dks, DKh + j * dks + E, T(0));
        std::fill(DVh + j * dvs, DVh + j * dvs + Ev, T(0));
      }
      for (int64_t gi = 0; gi < group; ++gi) {
        const int64_t n = b * p.Hq + hk * group + gi;
        T* DQh = DQ + p.ldq.off[size_t(n)];
        for (int64_t i = 0; i < L; ++i) std::fill(DQh + i * dqs, DQh + i * dqs + E, T(0));
        for (int64_t i0 = 0; i0 < L; i0 += kBlockQ) {
          const int64_t i1 = std::min(L, i0 + kBlockQ), bq = i1 - i0;
          const T* Qb = Q + p.lq.off[size_t(n)] + i0 * qs;
          const T* Gb = G + p.lg.off[size_t(n)] + i0 * gs;
          const T* Ob = O + p.lo.off[size_t(n)] + i0 * os;
          const T* Lb = LSE + n * L + i0;
          for (int64_t r = 0; r < bq; ++r) D[size_t(r)] = dot(Gb + r * gs, Ob + r * os, Ev);
          const int64_t kend = p.causal ? std::min(S, i1) : S;
          for (int64_t j0 = 0; j0 < kend; j0 += kBlockK) {
            const int64_t bk = std::min(kend, j0 + kBlockK) - j0;
            T* P = pbuf.data();
            T* dS = dsbuf.data();
            gemm<T>(false, true, bq, bk, E, scale, Qb, qs, Kh + j0 * ks, ks, T(0), P, bk);
            mask_block(P, n, i0, bq, j0, bk, p);
            for (int64_t r = 0; r < bq; ++r) {
              T* row = P + r * bk;
              if (Lb[r] == std::numeric_limits<T>::infinity()) std::fill(row, row + bk, T(0));
              else exp_sub_sum(row, bk, Lb[r]);
            }
            const T* Pd = P;
            if (drop) {
              for (int64_t r = 0; r < bq; ++r) {
                T* f = fbuf.data() + r * bk;
                dropout_factors(f, bk, uint64_t((n * L + i0 + r) * S + j0), p);
                for (int64_t c = 0; c < bk; ++c) pdbuf[size_t(r * bk + c)] = P[r * bk + c] * f[c];
              }
              Pd = pdbuf.data();
            }
            gemm<T>(true, false, bk, Ev, bq, T(1), Pd, bk, Gb, gs, T(1), DVh + j0 * dvs, dvs);
            gemm<T>(false, true, bq, bk, Ev, T(1), Gb, gs, Vh + j0 * vs, vs, T(0), dS, bk);
            for (int64_t r = 0; r < bq; ++r)
              ds_row(dS + r * bk, P + r * bk, drop ? fbuf.data() + r * bk : nullptr, bk, D[size_t(r)]);
            gemm<T>(false, false, bq, E, bk, scale, dS, bk, Kh + j0 * ks, ks, T(1), DQh + i0 * dqs, dqs);
            gemm<T>(true, false, bk, E, bq, scale, dS, bk, Qb, qs, T(1), DKh + j0 * dks, dks);
          }
        }
      }
    }
  });
}

void attention_forward(const TensorImpl& out, const TensorImpl& lse, const TensorImpl& q, const TensorImpl& k,
                       const TensorImpl& v, const AttnParams& p) {
  dispatch_float(q.dtype(), "scaled_dot_product_attention", [&]<typename T>() { forward<T>(out, lse, q, k, v, p); });
}

void attention_backward(const TensorImpl& dq, const TensorImpl& dk, const TensorImpl& dv, const TensorImpl& g,
                        const TensorImpl& q, const TensorImpl& k, const TensorImpl& v, const TensorImpl& out,
                        const TensorImpl& lse, const AttnParams& p) {
  dispatch_float(q.dtype(), "scaled_dot_product_attention_backward",
                 [&]<typename T>() { backward<T>(dq, dk, dv, g, q, k, v, out, lse, p); });
}

void attention_dropout_mask(const TensorImpl& keep, const AttnParams& p) {
  dispatch_float(keep.dtype(), "scaled_dot_product_attention", [&]<typename T>() {
    T* f = keep.data<T>();
    const int64_t rows = p.N * p.L;
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, p.S)), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) dropout_factors(f + r * p.S, p.S, uint64_t(r * p.S), p);
    });
  });
}

void softmax_backward(const TensorImpl& dx, const TensorImpl& g, const TensorImpl& y, int64_t rows, int64_t D,
                      bool log) {
  dispatch_float(y.dtype(), log ? "log_softmax_backward" : "softmax_backward", [&]<typename T>() {
    T* DX = dx.data<T>();
    const T* G = g.data<T>();
    const T* Y = y.data<T>();
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, D)), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const T* gr = G + r * D;
        const T* yr = Y + r * D;
        const T s = log ? row_sum_f(gr, D) : dot(gr, yr, D);
        softmax_bwd_row(DX + r * D, gr, yr, D, s, log);
      }
    });
  });
}

template <typename T>
void layer_norm_bwd(const TensorImpl* dx, const TensorImpl* dw, const TensorImpl* db, const TensorImpl& g,
                    const TensorImpl& x, const TensorImpl& mean, const TensorImpl& rstd, const TensorImpl* w) {
  const int64_t R = x.shape()[0], D = x.shape()[1];
  const T* G = g.data<T>();
  const T* X = x.data<T>();
  const T* M = mean.data<T>();
  const T* RS = rstd.data<T>();
  const T* W = w ? w->data<T>() : nullptr;
  T* DX = dx ? dx->data<T>() : nullptr;
  const bool want_w = dw || db;
  // Row chunks with their own partial sums for dw/db, added up at the end (no write races).
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(R, want_w ? get_num_threads() : R));
  std::vector<T> part(want_w ? size_t(chunks * 2 * D) : 0, T(0));
  parallel_for(0, chunks, 1, [&](int64_t clo, int64_t chi) {
    std::vector<T> xh(static_cast<size_t>(D)), gh(static_cast<size_t>(D));
    for (int64_t c = clo; c < chi; ++c) {
      const int64_t r0 = R * c / chunks, r1 = R * (c + 1) / chunks;
      T* pw = want_w ? part.data() + c * 2 * D : nullptr;
      T* pb = want_w ? pw + D : nullptr;
      for (int64_t r = r0; r < r1; ++r) {
        const T* gr = G + r * D;
        const T* xr = X + r * D;
        const T m = M[r], rs = RS[r];
        T sa = 0, sb = 0;
#pragma omp simd reduction(+ : sa, sb)
        for (int64_t j = 0; j < D; ++j) {
          const T xhat = (xr[j] - m) * rs;
          const T h = W ? gr[j] * W[j] : gr[j];
          xh[size_t(j)] = xhat;
          gh[size_t(j)] = h;
          sa += h;
          sb += h * xhat;
        }
        if (DX) {
          const T a = sa / T(D), b = sb / T(D);
          T* o = DX + r * D;
#pragma omp simd
          for (int64_t j = 0; j < D; ++j) o[j] = rs * (gh[size_t(j)] - a - xh[size_t(j)] * b);
        }
        if (want_w) {
#pragma omp simd
          for (int64_t j = 0; j < D; ++j) {
            pw[j] += gr[j] * xh[size_t(j)];
            pb[j] += gr[j];
          }
        }
      }
    }
  });
  if (!want_w) return;
  T* DW = dw ? dw->data<T>() : nullptr;
  T* DB = db ? db->data<T>() : nullptr;
  for (int64_t j = 0; j < D; ++j) {
    T sw = 0, sb = 0;
    for (int64_t c = 0; c < chunks; ++c) {
      sw += part[size_t(c * 2 * D + j)];
      sb += part[size_t(c * 2 * D + D + j)];
    }
    if (DW) DW[j] = sw;
    if (DB) DB[j] = sb;
  }
}

void layer_norm_backward(const TensorImpl* dx, const TensorImpl* dw, const TensorImpl* db, const TensorImpl& g,
                         const TensorImpl& x, const TensorImpl& mean, const TensorImpl& rstd, const TensorImpl* w) {
  dispatch_float(x.dtype(), "layer_norm_backward",
                 [&]<typename T>() { layer_norm_bwd<T>(dx, dw, db, g, x, mean, rstd, w); });
}

}  // namespace

LUCID_REGISTER_KERNEL(layer_norm_backward_kernel, CPU, &layer_norm_backward)
LUCID_REGISTER_KERNEL(softmax_backward_kernel, CPU, &softmax_backward)
LUCID_REGISTER_KERNEL(attention_forward_kernel, CPU, &attention_forward)
LUCID_REGISTER_KERNEL(attention_backward_kernel, CPU, &attention_backward)
LUCID_REGISTER_KERNEL(attention_dropout_mask_kernel, CPU, &attention_dropout_mask)

}  // namespace lucid::cpu
