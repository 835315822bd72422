#pragma once
// Indexing kernels (gather/scatter through int64 indices, masks, nonzero). Indices arrive validated
// (in range, non-negative) and views arrive arranged: the op layer restrides its operands so that a
// kernel only adds idx[p] * mult bytes to a strided position p.
#include "backend/kernels/stub.h"
#include "core/scalar.h"
#include "tensor/tensor_impl.h"

namespace lucid {

enum class ScatterOp : uint8_t { Assign, Add, Mul, Max, Min };

// out[p] = *(src[p] + idx[p] * mult): out, src and idx (int64) share one shape; mult in bytes.
LUCID_DECLARE_KERNEL(index_read_kernel, void (*)(const TensorImpl& out, const TensorImpl& src, const TensorImpl& idx,
                                                 int64_t mult))
// *(dst[p] + idx[p] * mult) op= src[p]. dst (a restrided view of the target), src and idx share one
// shape; positions that differ in coordinate `split` never reach one element, so the work is split
// along it across threads and duplicates accumulate without races (split -1: one thread).
LUCID_DECLARE_KERNEL(index_write_kernel, void (*)(ScatterOp op, const TensorImpl& dst, const TensorImpl& src,
                                                  const TensorImpl& idx, int64_t mult, int64_t split))
// out[p] = mask[p] ? value : out[p]; mask (bool) expanded to out's shape.
LUCID_DECLARE_KERNEL(masked_fill_kernel, void (*)(const TensorImpl& out, const TensorImpl& mask, const Scalar& value))
// Number of nonzero elements of `in`.
LUCID_DECLARE_KERNEL(count_nonzero_kernel, int64_t (*)(const TensorImpl& in))
// out (int64, [count, in.dim()]): the coordinates of in's nonzero elements in row-major order.
LUCID_DECLARE_KERNEL(nonzero_kernel, void (*)(const TensorImpl& out, const TensorImpl& in))
// out[p] /= max(count[p], 1) (count int64, out's shape); integers divide with floor, as PyTorch.
LUCID_DECLARE_KERNEL(divide_by_count_kernel, void (*)(const TensorImpl& out, const TensorImpl& count))
// True when some idx[p] (int64, any layout) lies outside [lo, hi); *bad gets the first such value.
LUCID_DECLARE_KERNEL(find_out_of_range_kernel, bool (*)(const TensorImpl& idx, int64_t lo, int64_t hi, int64_t* bad))
// off[p] += (idx[p] < 0 ? idx[p] + size : idx[p]) * stride; off int64 contiguous, idx expanded to its shape.
LUCID_DECLARE_KERNEL(index_offsets_kernel, void (*)(const TensorImpl& off, const TensorImpl& idx, int64_t size,
                                                    int64_t stride))

}  // namespace lucid
