// CPU batched GEMM (mirrors cuda/blas.cu): OpenBLAS for float32/64 and complex, plain loops
// (float accumulation) for float16/bfloat16 and integers.
#include <cblas.h>

#include <cstring>

#include "backend/cpu/loops.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/blas.h"
#include "backend/kernels/elementwise.h"

namespace lucid::cpu {

namespace {

// How a (rows x cols) strided matrix reaches BLAS: as row-major (NoTrans) or as the transpose of
// a row-major matrix (Trans), with its leading dimension. False: neither fits, copy it.
bool blas_layout(int64_t rows, int64_t cols, int64_t sr, int64_t sc, CBLAS_TRANSPOSE* t, int64_t* ld) {
  if (cols == 1 || sc == 1) {
    const int64_t l = rows == 1 ? std::max<int64_t>(cols, 1) : sr;
    if (l >= std::max<int64_t>(1, cols)) return *t = CblasNoTrans, *ld = l, true;
  }
  if (rows == 1 || sr == 1) {
    const int64_t l = cols == 1 ? std::max<int64_t>(rows, 1) : sc;
    if (l >= std::max<int64_t>(1, rows)) return *t = CblasTrans, *ld = l, true;
  }
  return false;
}

template <typename T>
void gemm_blas(int64_t M, int64_t N, int64_t K, CBLAS_TRANSPOSE ta, const T* a, int64_t lda, CBLAS_TRANSPOSE tb,
               const T* b, int64_t ldb, T* c) {
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, int(M), int(N), int(K), 1.0f, a, int(lda), b, int(ldb), 0.0f, c, int(N));
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, ta, tb, int(M), int(N), int(K), 1.0, a, int(lda), b, int(ldb), 0.0, c, int(N));
  } else if constexpr (std::is_same_v<T, c64>) {
    const c64 one(1.f, 0.f), zero(0.f, 0.f);
    cblas_cgemm(CblasRowMajor, ta, tb, int(M), int(N), int(K), &one, a, int(lda), b, int(ldb), &zero, c, int(N));
  } else {
    const c128 one(1., 0.), zero(0., 0.);
    cblas_zgemm(CblasRowMajor, ta, tb, int(M), int(N), int(K), &one, a, int(lda), b, int(ldb), &zero, c, int(N));
  }
}

template <typename T>
void gemm_loops(const TensorImpl& out, const TensorImpl& a, const TensorImpl& b) {
  using M = std::conditional_t<std::is_integral_v<T>, int64_t, typename OpMath<T>::type>;
  const int64_t B = out.shape()[0], R = out.shape()[1], C = out.shape()[2], K = a.shape()[2];
  const auto& sa = a.strides();
  const auto& sb = b.strides();
  const T* A = a.data<T>();
  const T* Bp = b.data<T>();
  T* O = out.data<T>();
  parallel_for(0, B * R, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, C * K)), [&](int64_t lo, int64_t hi) {
    for (int64_t br = lo; br < hi; ++br) {
      const int64_t bi = br / R, r = br % R;
      for (int64_t c = 0; c < C; ++c) {
        M acc = M(0);
        for (int64_t k = 0; k < K; ++k) {
          const M x = M(A[bi * sa[0] + r * sa[1] + k * sa[2]]);
          const M y = M(Bp[bi * sb[0] + k * sb[1] + c * sb[2]]);
          if constexpr (std::is_same_v<T, bool>) acc = acc || (x && y);
          else acc += x * y;
        }
        O[(bi * R + r) * C + c] = T(acc);
      }
    }
  });
}

Tensor contiguous_copy(const TensorImpl& t) {
  auto c = TensorImpl::empty(t.shape(), t.dtype(), t.device());
  copy_kernel(t.device())(*c, t);
  return c;
}

void gemm(const TensorImpl& out, const TensorImpl& a_in, const TensorImpl& b_in) {
  const int64_t B = out.shape()[0], M = out.shape()[1], N = out.shape()[2], K = a_in.shape()[2];
  if (out.numel() == 0) return;
  const Dtype dt = out.dtype();
  if (K == 0) {
    std::memset(out.data_ptr(), 0, size_t(out.nbytes()));
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
  CBLAS_TRANSPOSE ta = CblasNoTrans, tb = CblasNoTrans;
  int64_t lda = 0, ldb = 0;
  Tensor a_keep, b_keep;
  const TensorImpl* a = &a_in;
  const TensorImpl* b = &b_in;
  if (!blas_layout(M, K, a->strides()[1], a->strides()[2], &ta, &lda)) {
    a_keep = contiguous_copy(*a);
    a = a_keep.get();
    blas_layout(M, K, a->strides()[1], a->strides()[2], &ta, &lda);
  }
  if (!blas_layout(K, N, b->strides()[1], b->strides()[2], &tb, &ldb)) {
    b_keep = contiguous_copy(*b);
    b = b_keep.get();
    blas_layout(K, N, b->strides()[1], b->strides()[2], &tb, &ldb);
  }
  const int64_t isz = out.element_size();
  dispatch_dtype(dt, [&]<typename T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, c64> ||
                  std::is_same_v<T, c128>) {
      const char* A = static_cast<const char*>(a->data_ptr());
      const char* Bm = static_cast<const char*>(b->data_ptr());
      char* O = static_cast<char*>(out.data_ptr());
      for (int64_t i = 0; i < B; ++i)
        gemm_blas<T>(M, N, K, ta, reinterpret_cast<const T*>(A + i * a->strides()[0] * isz), lda, tb,
                     reinterpret_cast<const T*>(Bm + i * b->strides()[0] * isz), ldb,
                     reinterpret_cast<T*>(O + i * M * N * isz));
    }
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(gemm_kernel, CPU, &gemm)

}  // namespace lucid::cpu
