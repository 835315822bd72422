#pragma once
// Reductions. `in` is permuted so the reduced dims are its last `nreduce` dims; `out` is
// contiguous with in's leading shape. Floating sums accumulate in double, integers in int64.
#include <cstdint>

#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// sum_kernel stores each floating sum divided by `div` (mean: the count, in the same pass; 1 for a sum).
LUCID_DECLARE_KERNEL(sum_kernel, void (*)(const TensorImpl& out, const TensorImpl& in, int nreduce, double div))

// The generic reduction (one kernel, many ops), same layout contract as sum_kernel.
//   Prod, NanSum, LogSumExp, Max, Min: out has in's dtype (the op casts beforehand).
//   Max/Min with `indices` (int64, out's shape): the position of the first extreme value (NaN
//   first) in the row-major order of the reduced sub-space.
//   ArgMax/ArgMin: out is int64.  Any/All: out is bool or uint8.  CountNonzero/CountNotNan: int64.
// SumSq: the sum of squares of a real floating tensor (out in its dtype; vector_norm's ord 2).
enum class ReduceOp : uint8_t { Prod, NanSum, LogSumExp, Max, Min, ArgMax, ArgMin, Any, All, CountNonzero, CountNotNan,
                                SumSq };
LUCID_DECLARE_KERNEL(reduce_kernel, void (*)(ReduceOp op, const TensorImpl& out, const TensorImpl* indices,
                                             const TensorImpl& in, int nreduce))

// Scans along the LAST dim of `in` into `out` (same shape, any strides; same dtype as in).
// CumMax/CumMin write int64 `indices` (the latest position of the running extreme, as PyTorch).
// reverse: scan from the end. exclusive: out[i] combines the elements strictly before i.
enum class ScanOp : uint8_t { Sum, Prod, Max, Min, LogSumExp };
LUCID_DECLARE_KERNEL(scan_kernel, void (*)(ScanOp op, const TensorImpl& out, const TensorImpl* indices,
                                           const TensorImpl& in, bool reverse, bool exclusive))

}  // namespace lucid
