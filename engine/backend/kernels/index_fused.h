#pragma once
// Indexing kernels that fuse what indexing.h's kernels do in separate passes: selection by a mask
// (x[mask], masked_select) and a gather that checks its indices as it reads them.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// out (contiguous, 1-d) = in[p] for each p where mask[p] != 0, in row-major order of in's shape. mask
// (bool or uint8) has in's shape (broadcast views allowed); out holds exactly the number of set
// elements (never written past its end).
LUCID_DECLARE_KERNEL(masked_select_kernel, void (*)(const TensorImpl& out, const TensorImpl& in, const TensorImpl& mask))
// index_read_kernel (out[p] = *(src[p] + idx[p] * mult)) for indices not yet checked: returns false,
// with out unspecified, when some idx[p] lies outside [0, size); nothing is read out of bounds.
LUCID_DECLARE_KERNEL(index_read_checked_kernel, bool (*)(const TensorImpl& out, const TensorImpl& src,
                                                         const TensorImpl& idx, int64_t mult, int64_t size))

// out = self, then out[idx[i]] += src[i] over the rows along dim 0 (out, self: contiguous [n, ...];
// src: contiguous [k, ...] with self's row size; idx: k in-range int64 values, strides()[0] apart):
// each thread copies and updates its own block of rows (no races; duplicates add in index order).
LUCID_DECLARE_KERNEL(index_add_rows_kernel, void (*)(const TensorImpl& out, const TensorImpl& self,
                                                     const TensorImpl& idx, const TensorImpl& src))

}  // namespace lucid
