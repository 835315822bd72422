#pragma once
// A float32 GEMM for the convolution kernels (backend/cpu/conv.cpp) that reads its operands in place:
// B is the vol2col tile (or an input sample) row-major, A is the weight either way round, so neither
// is copied into a packed layout (OpenBLAS packs both on every call, which costs as much as the
// im2col itself at convolution shapes). AVX-512 only; conv_gemm_available() says whether it runs.
#include <cstdint>

namespace lucid::cpu {

bool conv_gemm_available();

// C[m, n] = sum_k A(m, k) B[k, n] (+ C[m, n] when accumulate) (+ bias[m] when bias), for m < M,
// n < N; A(m, k) = A[m * lda + k], or A[k * lda + m] when a_trans. B[k * ldb + n], C[m * ldc + n].
void conv_sgemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool a_trans, const float* B,
                int64_t ldb, float* C, int64_t ldc, bool accumulate, const float* bias);

}  // namespace lucid::cpu
