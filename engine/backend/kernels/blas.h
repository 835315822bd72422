#pragma once
// Batched GEMM: out[b] = a[b] @ b[b] for rank-3 operands (batch, rows, cols) of one dtype.
// a and b may be any strided views (batch stride 0 for broadcast); out is contiguous.
// Kernels pass transposed layouts as BLAS trans flags and copy only when neither layout fits.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

LUCID_DECLARE_KERNEL(gemm_kernel, void (*)(const TensorImpl& out, const TensorImpl& a, const TensorImpl& b))

}  // namespace lucid
