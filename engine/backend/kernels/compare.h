#pragma once
// Kernels of the binary family with a bool result (comparisons, logical ops, isclose), where, and
// the fused three-input ops (lerp, addcmul, addcdiv).
// Inputs arrive validated: same device and dtype, expanded to the output's shape.
#include "backend/kernels/stub.h"
#include "core/scalar.h"
#include "tensor/tensor_impl.h"

namespace lucid {

enum class CompareOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor };

// out (bool) = a op b; a and b share one dtype (Lt..Ge: not complex).
LUCID_DECLARE_KERNEL(compare_kernel, void (*)(CompareOp op, const TensorImpl& out, const TensorImpl& a,
                                              const TensorImpl& b))
// out (bool) = |a - b| <= atol + rtol * |b| (or a == b, or both NaN when equal_nan).
LUCID_DECLARE_KERNEL(isclose_kernel, void (*)(const TensorImpl& out, const TensorImpl& a, const TensorImpl& b,
                                              double rtol, double atol, bool equal_nan))
// out = cond ? a : b; out, a and b share one dtype, cond is bool.
LUCID_DECLARE_KERNEL(where_kernel, void (*)(const TensorImpl& out, const TensorImpl& cond, const TensorImpl& a,
                                            const TensorImpl& b))

enum class TernaryOp : uint8_t { Lerp, Addcmul, Addcdiv };

// out = lerp(a, b, weight c) | a + value * b * c | a + value * b / c; one dtype (not bool).
LUCID_DECLARE_KERNEL(ternary_kernel, void (*)(TernaryOp op, const TensorImpl& out, const TensorImpl& a,
                                              const TensorImpl& b, const TensorImpl& c, const Scalar& value))

}  // namespace lucid
