#pragma once
// A float32 GEMM for the convolution kernels (backend/cpu/conv.cpp) that reads its operands in place:
// B is the vol2col tile (or an input sample) row-major, A is the weight either way round, so neither
// is copied into a packed layout (OpenBLAS packs both on every call, which costs as much as the
// im2col itself at convolution shapes). AVX-512 only; conv_gemm_available() says whether it runs.
#include <cstdint>

#include "backend/kernels/conv.h"

namespace lucid::cpu {

bool conv_gemm_available();

// C[m, n] = sum_k A(m, k) B[k, n] (+ C[m, n] when accumulate) (+ bias[m] when bias), for m < M,
// n < N; A(m, k) = A[m * lda + k], or A[k * lda + m] when a_trans. B[k * ldb + n], C[m * ldc + n].
void conv_sgemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool a_trans, const float* B,
                int64_t ldb, float* C, int64_t ldc, bool accumulate, const float* bias);

// A convolution without im2col (one sample, one group): y (M x lines*OW, ldy) = W (M x K, ldw) B
// (+ bias per row), with B(k, line*OW + ow) = xp[off[k] + base[line] + ow]: xp is the sample padded
// so that every such read is inside it (stride 1 along the width).
void conv_direct_f32(int64_t M, int64_t K, const float* W, int64_t ldw, const float* xp, const int64_t* off,
                     const int64_t* base, int64_t lines, int64_t OW, float* y, int64_t ldy, const float* bias);

// The weight gradient without im2col: C (M x N, ldc) += sum over lines, ow of
// xp[off[m] + base[line] + ow * sw] Bt[(line * OW + ow) * ldb + n] (Bt: the output gradient transposed).
void conv_wgrad_direct_f32(int64_t M, int64_t N, const float* xp, const int64_t* off, const int64_t* base,
                           int64_t lines, int64_t OW, int64_t sw, const float* Bt, int64_t ldb, float* C, int64_t ldc);

// vol2col of a contiguous float32 sample (C, *in) for the output lines [r0, r1) into cols
// (C*K, (r1 - r0) * OW), for windows of width stride 1 (masked 16-wide copies, no branches per
// element).
void conv_vol2col_f32(float* cols, const float* x, int64_t C, const ConvGeom& g, int64_t r0, int64_t r1);

}  // namespace lucid::cpu
