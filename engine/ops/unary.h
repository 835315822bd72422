#pragma once
// The unary math family (exp, log, sin, tanh, sigmoid, abs, floor, ...), real dtypes.
#include "backend/kernels/elementwise.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// Floating-valued ops promote bool/integer inputs to the default float dtype (as PyTorch);
// abs, sign, square, relu, floor, ceil, trunc and frac keep integer dtypes.
Tensor unary(UnaryOp op, const Tensor& x);
const char* unary_name(UnaryOp op);

}  // namespace lucid
