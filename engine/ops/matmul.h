#pragma once
// matmul (spec 004): numpy.matmul semantics. 1-D operands are promoted (a leading or trailing 1)
// and the added dimension removed; rank >= 2 runs the batched GEMM with broadcast batch dims.
#include "tensor/tensor_impl.h"

namespace lucid {

Tensor matmul(const Tensor& a, const Tensor& b);

}  // namespace lucid
