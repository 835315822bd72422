#pragma once
// Reductions. `in` is permuted so the reduced dims are its last `nreduce` dims; `out` is
// contiguous with in's leading shape. Floating sums accumulate in double, integers in int64.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

LUCID_DECLARE_KERNEL(sum_kernel, void (*)(const TensorImpl& out, const TensorImpl& in, int nreduce))

}  // namespace lucid
