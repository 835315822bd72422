#pragma once
// Elementwise kernels: fill, copy/cast, binary arithmetic.
// Inputs arrive validated: same device, output allocated, inputs expanded to the output's shape.
#include "backend/kernels/stub.h"
#include "core/scalar.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// Add..Div are the arithmetic core; the rest are the binary family (ops/binary_math.cpp), with
// their scalar math in backend/common/binary_math.h. Every op maps (T, T) -> T.
enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div,
  FloorDiv, TruncDiv, Remainder, Fmod, Pow, Atan2, Hypot, Maximum, Minimum, Fmax, Fmin,
  LogAddExp, LogAddExp2, Copysign, Xlogy, Heaviside, BitAnd, BitOr, BitXor, Shl, Shr
};
constexpr int kNumBinaryOps = int(BinaryOp::Shr) + 1;

// The unary math family (real dtypes). backend/common/unary_math.h defines each function once for
// both backends.
enum class UnaryOp : uint8_t {
  Abs, Sign, Square, Relu, Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Sqrt, Rsqrt, Reciprocal,
  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Sigmoid, Erf, Erfc,
  Floor, Ceil, Trunc, Frac
};

// dst[...] = value (converted to dst's dtype).
LUCID_DECLARE_KERNEL(fill_kernel, void (*)(const TensorImpl& dst, const Scalar& value))
// dst[...] = cast(src[...]); same shape and device, dtypes may differ.
LUCID_DECLARE_KERNEL(copy_kernel, void (*)(const TensorImpl& dst, const TensorImpl& src))
// out = a op (alpha * b) for Add/Sub (alpha ignored otherwise); out, a, b share one dtype.
LUCID_DECLARE_KERNEL(binary_kernel, void (*)(BinaryOp op, const TensorImpl& out, const TensorImpl& a,
                                             const TensorImpl& b, const Scalar& alpha))

// out = op(in); same shape and dtype (a real dtype).
LUCID_DECLARE_KERNEL(unary_kernel, void (*)(UnaryOp op, const TensorImpl& out, const TensorImpl& in))

}  // namespace lucid
