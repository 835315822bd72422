// CPU batched GEMM (mirrors cuda/blas.cu): lucid's own float32 GEMM (sgemm.h) at the sizes where it
// beats OpenBLAS, OpenBLAS for the other float32/64 and complex products, plain loops (float
// accumulation) for float16/bfloat16 and integers.
#include <cblas.h>

#include <cstring>
#include <vector>

#include "backend/common/gemm_layout.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/sgemm.h"
#include "backend/kernels/blas.h"
#include "backend/kernels/elementwise.h"

namespace lucid::cpu {

namespace {

template <typename T>
void gemm_blas(int64_t M, int64_t N, int64_t K, CBLAS_TRANSPOSE ta, const T* a, int64_t lda, CBLAS_TRANSPOSE tb,
               const T* b, int64_t ldb, T* c, int64_t ldc = 0) {
  if (ldc == 0) ldc = N;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, int(M), int(N), int(K), 1.0f, a, int(lda), b, int(ldb), 0.0f, c, int(ldc));
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, ta, tb, int(M), int(N), int(K), 1.0, a, int(lda), b, int(ldb), 0.0, c, int(ldc));
  } else if constexpr (std::is_same_v<T, c64>) {
    const c64 one(1.f, 0.f), zero(0.f, 0.f);
    cblas_cgemm(CblasRowMajor, ta, tb, int(M), int(N), int(K), &one, a, int(lda), b, int(ldb), &zero, c, int(ldc));
  } else {
    const c128 one(1., 0.), zero(0., 0.);
    cblas_zgemm(CblasRowMajor, ta, tb, int(M), int(N), int(K), &one, a, int(lda), b, int(ldb), &zero, c, int(ldc));
  }
}

// Matrix-vector and dot products (one output column, one output row, or a single element): GEMV
// and DOT run these several times faster than a GEMM with a unit dimension. Operands are described
// as in gemm_blas; a vector's stride follows from its layout.
template <typename T>
void gemv_blas(int64_t M, int64_t N, int64_t K, CBLAS_TRANSPOSE ta, const T* a, int64_t lda, CBLAS_TRANSPOSE tb,
               const T* b, int64_t ldb, T* c) {
  const bool at = ta == CblasTrans, bt = tb == CblasTrans;
  auto gemv = [](CBLAS_TRANSPOSE t, int64_t rows, int64_t cols, const T* m, int64_t ld, const T* x, int64_t incx,
                 T* y) {
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemv(CblasRowMajor, t, int(rows), int(cols), 1.0f, m, int(ld), x, int(incx), 0.0f, y, 1);
    } else if constexpr (std::is_same_v<T, double>) {
      cblas_dgemv(CblasRowMajor, t, int(rows), int(cols), 1.0, m, int(ld), x, int(incx), 0.0, y, 1);
    } else {
      const T one(1), zero(0);
      if constexpr (std::is_same_v<T, c64>)
        cblas_cgemv(CblasRowMajor, t, int(rows), int(cols), &one, m, int(ld), x, int(incx), &zero, y, 1);
      else
        cblas_zgemv(CblasRowMajor, t, int(rows), int(cols), &one, m, int(ld), x, int(incx), &zero, y, 1);
    }
  };
  if (M == 1 && N == 1) {
    const int64_t ia = at ? lda : 1, ib = bt ? 1 : ldb;
    if constexpr (std::is_same_v<T, float>) *c = cblas_sdot(int(K), a, int(ia), b, int(ib));
    else if constexpr (std::is_same_v<T, double>) *c = cblas_ddot(int(K), a, int(ia), b, int(ib));
    else if constexpr (std::is_same_v<T, c64>) cblas_cdotu_sub(int(K), a, int(ia), b, int(ib), c);
    else cblas_zdotu_sub(int(K), a, int(ia), b, int(ib), c);
  } else if (N == 1) {  // c = A b: A is (M, K) row-major, or the transpose of a (K, M) one
    const int64_t ib = bt ? 1 : ldb;
    if (at) gemv(CblasTrans, K, M, a, lda, b, ib, c);
    else gemv(CblasNoTrans, M, K, a, lda, b, ib, c);
  } else {  // M == 1: c = B^T a
    const int64_t ia = at ? lda : 1;
    if (bt) gemv(CblasNoTrans, N, K, b, ldb, a, ia, c);
    else gemv(CblasTrans, K, N, b, ldb, a, ia, c);
  }
}

// Integers and bool: row-times-matrix order (i-k-j), so the inner loop runs along a row of b and
// vectorises; int64 accumulation (bool: any nonzero product).
template <typename T>
void gemm_loops(const TensorImpl& out, const TensorImpl& a, const TensorImpl& b) {
  using M = std::conditional_t<std::is_integral_v<T>, int64_t, typename OpMath<T>::type>;
  const int64_t B = out.shape()[0], R = out.shape()[1], C = out.shape()[2], K = a.shape()[2];
  const int64_t sa0 = a.strides()[0], sa1 = a.strides()[1], sa2 = a.strides()[2];
  const int64_t sb0 = b.strides()[0], sb1 = b.strides()[1], sb2 = b.strides()[2];
  const T* A = a.data<T>();
  const T* Bp = b.data<T>();
  T* O = out.data<T>();
  parallel_for(0, B * R, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, C * K)), [&](int64_t lo, int64_t hi) {
    std::vector<M> acc(static_cast<size_t>(C));
    for (int64_t br = lo; br < hi; ++br) {
      const int64_t bi = br / R, r = br % R;
      std::fill(acc.begin(), acc.end(), M(0));
      const T* arow = A + bi * sa0 + r * sa1;
      for (int64_t k = 0; k < K; ++k) {
        const M x = M(arow[k * sa2]);
        if (x == M(0)) continue;  // integers only: no NaN/inf to propagate
        const T* brow = Bp + bi * sb0 + k * sb1;
        M* __restrict__ ac = acc.data();
        if (sb2 == 1) {
          for (int64_t c = 0; c < C; ++c) ac[c] += x * M(brow[c]);
        } else {
          for (int64_t c = 0; c < C; ++c) ac[c] += x * M(brow[c * sb2]);
        }
      }
      T* orow = O + (bi * R + r) * C;
      for (int64_t c = 0; c < C; ++c) orow[c] = T(acc[size_t(c)]);
    }
  });
}

// float16/bfloat16 operand as float32 for SGEMM (a broadcast batch stays broadcast, copied once).
Tensor widen_f32(const TensorImpl& t) {
  const bool bcast = t.shape()[0] > 1 && t.strides()[0] == 0;
  Shape s = t.shape();
  if (bcast) s[0] = 1;
  Tensor src = t.as_view(s, t.strides(), t.storage_offset());
  Tensor w = TensorImpl::empty(s, Dtype::F32, t.device());
  copy_kernel(t.device())(*w, *src);
  if (!bcast) return w;
  return w->as_view(t.shape(), {0, w->strides()[1], w->strides()[2]}, 0);
}

// Where lucid's float32 GEMM runs instead of OpenBLAS's (measured, one thread): AVX-512, from 2^20
// multiply-adds (2^16 with B transposed, as in linear layers, a layout OpenBLAS handles slowly; below,
// OpenBLAS's small-matrix kernels win); with more rows than one block, up to 2^29 (OpenBLAS's blocking
// wins from ~1024^3) and with all of B packed at once (K * N at most 2^20 floats, 4 MiB: beyond, B
// streams from L3 and OpenBLAS's blocking wins). One product uses several threads from 2^20.
constexpr double kSgemmThreadMnk = double(int64_t(1) << 20);
bool use_sgemm(int64_t M, int64_t N, int64_t K, bool a_trans, bool b_trans) {
  if (!sgemm_available()) return false;
  if (sgemm_mode() == 2) return K * N <= (int64_t(1) << 20);
  const double mnk = double(M) * double(N) * double(K);
  const double lo = double(int64_t(1) << (b_trans && !a_trans ? 16 : 20)), hi = double(int64_t(1) << 29);
  // Few rows (at most one block of them): B packed a panel at a time into L1, whatever its size and
  // layout (2 threads against OpenBLAS, as ratios to PyTorch: 8x4096x4096 1.46 -> 0.88, 128x2048x2048
  // 1.12 -> 0.97, with B transposed 32x768x3072 1.28 -> 1.02).
  if (M <= sgemm_block_rows()) return mnk >= lo;
  return mnk >= lo && mnk <= hi && K * N <= (int64_t(1) << 20);
}

void gemm(const TensorImpl& out, const TensorImpl& a_in, const TensorImpl& b_in) {
  const int64_t B = out.shape()[0], M = out.shape()[1], N = out.shape()[2], K = a_in.shape()[2];
  if (out.numel() == 0) return;
  const Dtype dt = out.dtype();
  if (K == 0) {
    std::memset(out.data_ptr(), 0, size_t(out.nbytes()));
    return;
  }
  if (dt == Dtype::F16 || dt == Dtype::BF16) {
    // float accumulation through SGEMM, one rounding at the end (as the float loops did, far faster)
    Tensor a32 = widen_f32(a_in), b32 = widen_f32(b_in);
    Tensor o32 = TensorImpl::empty(out.shape(), Dtype::F32, out.device());
    gemm(*o32, *a32, *b32);
    copy_kernel(out.device())(out, *o32);
    return;
  }
  const bool blas = dt == Dtype::F32 || dt == Dtype::F64 || dt == Dtype::C64 || dt == Dtype::C128;
  if (!blas) {
    dispatch_dtype(dt, [&]<typename T>() {
      if constexpr (std::is_same_v<T, c64> || std::is_same_v<T, c128>) return;
      else gemm_loops<T>(out, a_in, b_in);
    });
    return;
  }
  const GemmOperand ga = gemm_operand(a_in), gb = gemm_operand(b_in);
  const TensorImpl* a = ga.t;
  const TensorImpl* b = gb.t;
  const CBLAS_TRANSPOSE ta = ga.trans ? CblasTrans : CblasNoTrans, tb = gb.trans ? CblasTrans : CblasNoTrans;
  const int64_t lda = ga.ld, ldb = gb.ld;
  const int64_t isz = out.element_size();
  dispatch_dtype(dt, [&]<typename T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, c64> ||
                  std::is_same_v<T, c128>) {
      const char* A = static_cast<const char*>(a->data_ptr());
      const char* Bm = static_cast<const char*>(b->data_ptr());
      char* O = static_cast<char*>(out.data_ptr());
      const bool vec = M == 1 || N == 1;
      // Small products on several threads: one single-threaded GEMM per block of rows or columns
      // (OpenBLAS runs single-threaded inside our parallel region) instead of OpenBLAS's own threading,
      // whose per-call start and panel synchronisation cost more than they save below ~2^27
      // multiply-adds, and stall whenever one of its threads is descheduled. Below 2^21 one thread.
      const double mnk = double(M) * double(N) * double(K);
      const bool split = get_num_threads() > 1 && !in_parallel_region() && std::max(M, N) >= 64 &&
                         mnk >= double(int64_t(1) << 21) && mnk <= double(int64_t(1) << 27);
      if constexpr (std::is_same_v<T, float>) {
        if (!vec && use_sgemm(M, N, K, ga.trans, gb.trans)) {
          // lucid's own GEMM (backend/cpu/sgemm.h): threads inside one product when it is large enough,
          // else across the batch
          const int nt = in_parallel_region() ? 1 : get_num_threads();
          // (a batch of several products per thread: the batch split instead, no synchronisation per product)
          const bool inner = nt > 1 && mnk >= kSgemmThreadMnk && (B < 2 * nt || mnk >= double(int64_t(1) << 24));
          auto one = [&](int64_t i, int threads) {
            sgemm_f32(M, N, K, reinterpret_cast<const T*>(A + i * a->strides()[0] * isz), lda, ga.trans,
                      reinterpret_cast<const T*>(Bm + i * b->strides()[0] * isz), ldb, gb.trans,
                      reinterpret_cast<T*>(O + i * M * N * isz), N, threads);
          };
          if (inner || nt == 1 || B == 1) {
            for (int64_t i = 0; i < B; ++i) one(i, inner ? nt : 1);
          } else {
            const int64_t grain = std::max<int64_t>(1, int64_t(kSgemmThreadMnk / std::max(mnk, 1.0)));
            parallel_for(0, B, grain, [&](int64_t lo, int64_t hi) {
              for (int64_t i = lo; i < hi; ++i) one(i, 1);
            });
          }
          return;
        }
      }
      auto small = [&](int64_t i) {
        const T* ai = reinterpret_cast<const T*>(A + i * a->strides()[0] * isz);
        const T* bi = reinterpret_cast<const T*>(Bm + i * b->strides()[0] * isz);
        T* oi = reinterpret_cast<T*>(O + i * M * N * isz);
        if (vec) gemv_blas<T>(M, N, K, ta, ai, lda, tb, bi, ldb, oi);
        else gemm_blas<T>(M, N, K, ta, ai, lda, tb, bi, ldb, oi);
      };
      // A batch of products too small for threads each: the batch split among the threads, one
      // single-threaded BLAS call per product (BLAS runs single-threaded inside our parallel region).
      if (B > 1 && !split && mnk < double(int64_t(1) << 21) && get_num_threads() > 1 && !in_parallel_region() &&
          mnk * double(B) >= double(int64_t(1) << 21)) {
        parallel_for(0, B, std::max<int64_t>(1, int64_t(double(int64_t(1) << 20) / std::max(mnk, 1.0))),
                     [&](int64_t lo, int64_t hi) {
                       for (int64_t i = lo; i < hi; ++i) small(i);
                     });
        return;
      }
      for (int64_t i = 0; i < B; ++i) {
        const T* ai = reinterpret_cast<const T*>(A + i * a->strides()[0] * isz);
        const T* bi = reinterpret_cast<const T*>(Bm + i * b->strides()[0] * isz);
        T* oi = reinterpret_cast<T*>(O + i * M * N * isz);
        if (vec) small(i);
        else if (split) {  // see `split` above; each block packs the other operand again: split the larger side
          const int64_t nt = get_num_threads();
          const bool by_rows = M >= N;
          const int64_t L = by_rows ? M : N;
          const int64_t step = ((L + nt - 1) / nt + 15) / 16 * 16;
          parallel_for(0, nt, 1, [&](int64_t lo, int64_t hi) {
            for (int64_t t = lo; t < hi; ++t) {
              const int64_t p0 = t * step, p1 = std::min(L, p0 + step);
              if (p0 >= p1) continue;
              if (by_rows) {
                const T* am = ga.trans ? ai + p0 : ai + p0 * lda;
                gemm_blas<T>(p1 - p0, N, K, ta, am, lda, tb, bi, ldb, oi + p0 * N, N);
              } else {
                const T* bn = gb.trans ? bi + p0 * ldb : bi + p0;
                gemm_blas<T>(M, p1 - p0, K, ta, ai, lda, tb, bn, ldb, oi + p0, N);
              }
            }
          });
        }
        else small(i);
      }
    }
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(gemm_kernel, CPU, &gemm)

}  // namespace lucid::cpu
