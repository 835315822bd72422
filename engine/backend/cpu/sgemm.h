#pragma once
// lucid's own float32 GEMM (BLIS-style): both operands packed into aligned panels (from either
// layout, transposed views read in place), an AVX-512 register-tile micro-kernel, cache blocking for
// L1/L2 and its own threading (one packed B block shared by the threads, rows of C split among
// them). Faster than OpenBLAS at small and mid sizes (the per-call packing and threading overheads
// are what dominate there). AVX-512 only: sgemm_available() says whether it runs.
#include <cstdint>

namespace lucid::cpu {

bool sgemm_available();  // AVX-512 and not switched off
int64_t sgemm_block_rows();  // products with at most this many rows pack B a panel at a time (any size)

// Where callers use it: 0 never (OpenBLAS), 1 where it is faster (the default), 2 for every size
// (tests of its edge tiles). The environment variable LUCID_SGEMM=0|1|2 sets the start value.
int sgemm_mode();
void set_sgemm_mode(int mode);

// C[m, n] = sum_k A(m, k) B(k, n) (beta = 0: C is only written), for m < M, n < N.
// A(m, k) = A[m * lda + k], or A[k * lda + m] when a_trans; B(k, n) = B[k * ldb + n], or B[n * ldb + k]
// when b_trans; C[m * ldc + n]. `threads` threads work on it (1: the calling thread alone; callers
// inside a parallel region pass 1). Every product is summed (NaN and Inf propagate as in BLAS).
void sgemm_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool a_trans, const float* B,
               int64_t ldb, bool b_trans, float* C, int64_t ldc, int threads);

}  // namespace lucid::cpu
