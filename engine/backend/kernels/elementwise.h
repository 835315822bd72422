#pragma once
// Elementwise kernels: fill, copy/cast, binary arithmetic.
// Inputs arrive validated: same device, output allocated, inputs expanded to the output's shape.
#include "backend/kernels/stub.h"
#include "core/scalar.h"
#include "tensor/tensor_impl.h"

namespace lucid {

enum class BinaryOp : uint8_t { Add, Sub, Mul, Div };

// dst[...] = value (converted to dst's dtype).
LUCID_DECLARE_KERNEL(fill_kernel, void (*)(const TensorImpl& dst, const Scalar& value))
// dst[...] = cast(src[...]); same shape and device, dtypes may differ.
LUCID_DECLARE_KERNEL(copy_kernel, void (*)(const TensorImpl& dst, const TensorImpl& src))
// out = a op (alpha * b) for Add/Sub (alpha ignored otherwise); out, a, b share one dtype.
LUCID_DECLARE_KERNEL(binary_kernel, void (*)(BinaryOp op, const TensorImpl& out, const TensorImpl& a,
                                             const TensorImpl& b, const Scalar& alpha))

}  // namespace lucid
