#pragma once
// How a strided (batch, rows, cols) operand reaches a row-major BLAS call: as itself (NoTrans) or as
// the transpose of a row-major matrix (Trans), with its leading dimension. Transposed views become
// flags, not copies (DESIGN.md §3); only a layout that fits neither is copied to contiguous first.
// Shared by cpu/blas.cpp (OpenBLAS) and cuda/blas.cu (cuBLAS).
#include <algorithm>

#include "backend/kernels/elementwise.h"
#include "tensor/tensor_impl.h"

namespace lucid {

struct GemmOperand {
  const TensorImpl* t;  // the operand, or `keep` when it had to be copied
  Tensor keep;
  bool trans = false;
  int64_t ld = 1;
};

inline bool gemm_fits(int64_t rows, int64_t cols, int64_t sr, int64_t sc, bool* trans, int64_t* ld) {
  if (cols == 1 || sc == 1) {
    const int64_t l = rows == 1 ? std::max<int64_t>(cols, 1) : sr;
    if (l >= std::max<int64_t>(1, cols)) return *trans = false, *ld = l, true;
  }
  if (rows == 1 || sr == 1) {
    const int64_t l = cols == 1 ? std::max<int64_t>(rows, 1) : sc;
    if (l >= std::max<int64_t>(1, rows)) return *trans = true, *ld = l, true;
  }
  return false;
}

// `t` is rank 3: (batch, rows, cols).
inline GemmOperand gemm_operand(const TensorImpl& t) {
  GemmOperand op{&t, nullptr};
  const int64_t rows = t.shape()[1], cols = t.shape()[2];
  if (!gemm_fits(rows, cols, t.strides()[1], t.strides()[2], &op.trans, &op.ld)) {
    op.keep = TensorImpl::empty(t.shape(), t.dtype(), t.device());
    copy_kernel(t.device())(*op.keep, t);
    op.t = op.keep.get();
    gemm_fits(rows, cols, op.t->strides()[1], op.t->strides()[2], &op.trans, &op.ld);
  }
  return op;
}

}  // namespace lucid
