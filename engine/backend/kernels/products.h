#pragma once
// Kernels of the products family that are not a GEMM (those compose matmul): the 3-vector cross
// product and pairwise p-norm distances.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// out = a x b along `dim` (size 3); out, a, b share one shape (inputs expanded) and dtype.
LUCID_DECLARE_KERNEL(cross_kernel, void (*)(const TensorImpl& out, const TensorImpl& a, const TensorImpl& b,
                                            int64_t dim))
// out[b, i, j] = ||x1[b, i, :] - x2[b, j, :]||_p for contiguous x1 (B, P, M), x2 (B, R, M), out (B, P, R);
// p = 0 counts the differing coordinates, p = inf takes the largest difference.
LUCID_DECLARE_KERNEL(cdist_kernel, void (*)(const TensorImpl& out, const TensorImpl& x1, const TensorImpl& x2,
                                            double p))

}  // namespace lucid
