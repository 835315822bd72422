// CUDA batched GEMM (mirrors cpu/blas.cpp): cuBLAS for the floating and complex dtypes (float16
// and bfloat16 accumulate in float32), a tiled kernel accumulating in int64 for integers and bool.
//
// Operands are rank-3 (batch, rows, cols) strided views; a batch stride of 0 broadcasts. cuBLAS is
// column-major, so the row-major product C = A B is computed as C^T = B^T A^T: a row-major matrix
// read column-major is its own transpose, so a row-major operand needs no trans flag and a
// transposed view needs one. An operand is copied to contiguous only when neither layout fits.
#include <cublas_v2.h>

#include <climits>
#include <mutex>

#include "backend/cuda/loops.cuh"
#include "backend/common/gemm_layout.h"
#include "backend/kernels/blas.h"
#include "backend/kernels/elementwise.h"

#define LUCID_CUBLAS_CHECK(expr)                                                                     \
  do {                                                                                               \
    const cublasStatus_t lucid_cublas_st_ = (expr);                                                  \
    LUCID_CHECK(lucid_cublas_st_ == CUBLAS_STATUS_SUCCESS, Generic,                                  \
                "cuBLAS error " << cublasGetStatusName(lucid_cublas_st_) << ": "                     \
                                << cublasGetStatusString(lucid_cublas_st_) << " (" #expr ")");       \
  } while (0)

namespace lucid::cuda {

namespace {

std::mutex g_handle_mu;
cublasHandle_t g_handles[kMaxDevices] = {};

// One handle per device, bound to the device's stream; created on first use and kept for the
// process's lifetime (destroying it at exit races the CUDA runtime's own teardown).
cublasHandle_t cublas_handle(int dev) {
  std::lock_guard<std::mutex> g(g_handle_mu);
  if (!g_handles[dev]) {
    DeviceGuard guard(dev);
    cublasHandle_t h = nullptr;
    LUCID_CUBLAS_CHECK(cublasCreate(&h));
    LUCID_CUBLAS_CHECK(cublasSetStream(h, stream(dev)));
    // float16/bfloat16 GEMMs accumulate in float32 to the end: no split-K reduction in half precision
    // (which can be off by many units in the last place; the CPU rounds once).
    LUCID_CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
    g_handles[dev] = h;
  }
  return g_handles[dev];
}


struct CublasTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

CublasTypes cublas_types(Dtype dt) {
  switch (dt) {
    case Dtype::F16: return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case Dtype::BF16: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case Dtype::F32: return {CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case Dtype::F64: return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case Dtype::C64: return {CUDA_C_32F, CUBLAS_COMPUTE_32F};
    default: return {CUDA_C_64F, CUBLAS_COMPUTE_64F};
  }
}

void gemm_cublas(const TensorImpl& out, const TensorImpl& a_in, const TensorImpl& b_in, int dev) {
  const int64_t B = out.shape()[0], M = out.shape()[1], N = out.shape()[2], K = a_in.shape()[2];
  const GemmOperand ga = gemm_operand(a_in), gb = gemm_operand(b_in);
  const TensorImpl* a = ga.t;
  const TensorImpl* b = gb.t;
  const bool ta = ga.trans, tb = gb.trans;
  const int64_t lda = ga.ld, ldb = gb.ld;
  for (int64_t v : {B, M, N, K, lda, ldb})
    LUCID_CHECK(v <= INT_MAX, NotImplemented,
                "[matmul] sizes above 2^31-1 are not supported by cuBLAS (batch " << B << ", " << M << "x" << K
                                                                                << " @ " << K << "x" << N << ")");
  const Dtype dt = out.dtype();
  const CublasTypes ty = cublas_types(dt);
  // Scale factors in the compute type's scalar type (float, double, or their complex).
  const float f1 = 1.f, f0 = 0.f;
  const double d1 = 1., d0 = 0.;
  const c64 c1(1.f, 0.f), c0(0.f, 0.f);
  const c128 z1(1., 0.), z0(0., 0.);
  const void *alpha, *beta;
  switch (dt) {
    case Dtype::F64: alpha = &d1, beta = &d0; break;
    case Dtype::C64: alpha = &c1, beta = &c0; break;
    case Dtype::C128: alpha = &z1, beta = &z0; break;
    default: alpha = &f1, beta = &f0; break;
  }
  // C^T (N x M, ld N) = op(B^T) op(A^T): B is cuBLAS's first operand, A its second.
  const long long stride_a = B == 1 ? 0 : a->strides()[0], stride_b = B == 1 ? 0 : b->strides()[0];
  LUCID_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      cublas_handle(dev), tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, int(N), int(M), int(K),
      alpha, b->data_ptr(), ty.data, int(ldb), stride_b, a->data_ptr(), ty.data, int(lda), stride_a, beta,
      out.data_ptr(), ty.data, int(N), (long long)(M * N), int(B), ty.compute, CUBLAS_GEMM_DEFAULT));
}

constexpr int kTile = 16;

// Integer and bool GEMM: 16x16 output tiles, operands staged through shared memory as int64.
template <typename T>
__global__ void gemm_int_kernel(int64_t batch, int64_t M, int64_t N, int64_t K, const T* __restrict__ A, int64_t sa0,
                                int64_t sa1, int64_t sa2, const T* __restrict__ Bm, int64_t sb0, int64_t sb1,
                                int64_t sb2, T* __restrict__ C) {
  __shared__ int64_t As[kTile][kTile + 1], Bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t col = int64_t(blockIdx.x) * kTile + tx;
  const int64_t row_blocks = (M + kTile - 1) / kTile;
  for (int64_t bi = blockIdx.z; bi < batch; bi += gridDim.z) {
    for (int64_t rb = blockIdx.y; rb < row_blocks; rb += gridDim.y) {
      const int64_t row = rb * kTile + ty;
      int64_t acc = 0;
      for (int64_t k0 = 0; k0 < K; k0 += kTile) {
        As[ty][tx] = (row < M && k0 + tx < K) ? int64_t(A[bi * sa0 + row * sa1 + (k0 + tx) * sa2]) : 0;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? int64_t(Bm[bi * sb0 + (k0 + ty) * sb1 + col * sb2]) : 0;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kTile; ++kk) {
          if constexpr (std::is_same_v<T, bool>) acc |= As[ty][kk] & Bs[kk][tx];
          else acc += As[ty][kk] * Bs[kk][tx];
        }
        __syncthreads();
      }
      if (row < M && col < N) C[(bi * M + row) * N + col] = T(acc);
    }
  }
}

void gemm(const TensorImpl& out, const TensorImpl& a, const TensorImpl& b) {
  if (out.numel() == 0) return;
  const int64_t B = out.shape()[0], M = out.shape()[1], N = out.shape()[2], K = a.shape()[2];
  const int dev = out.device().index;
  DeviceGuard guard(dev);
  cudaStream_t s = stream(dev);
  if (K == 0) {
    LUCID_CUDA_CHECK(cudaMemsetAsync(out.data_ptr(), 0, size_t(out.nbytes()), s));
    return;
  }
  const Dtype dt = out.dtype();
  if (is_floating(dt) || is_complex(dt)) {
    gemm_cublas(out, a, b, dev);
    return;
  }
  dispatch_dtype(dt, [&]<typename T>() {
    if constexpr (std::is_integral_v<T>) {
      const dim3 block(kTile, kTile);
      const dim3 grid(unsigned((N + kTile - 1) / kTile), unsigned(std::min<int64_t>((M + kTile - 1) / kTile, 65535)),
                      unsigned(std::min<int64_t>(B, 65535)));
      const auto& sa = a.strides();
      const auto& sb = b.strides();
      gemm_int_kernel<T><<<grid, block, 0, s>>>(B, M, N, K, a.data<T>(), sa[0], sa[1], sa[2], b.data<T>(), sb[0], sb[1],
                                                sb[2], out.data<T>());
      LUCID_CUDA_LAUNCH_CHECK();
    }
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(gemm_kernel, CUDA, &gemm)

}  // namespace lucid::cuda
