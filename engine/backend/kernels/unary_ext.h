#pragma once
// Kernels of the unary family beyond the plain math of UnaryOp (kernels/elementwise.h): complex
// math, predicates with bool results, and ops with parameters (clamp, nan_to_num, logit, round with
// decimals, polygamma). Inputs arrive validated, outputs allocated, operands expanded to the
// output's shape.
#include <cstdint>

#include "backend/kernels/elementwise.h"
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// Predicates: out is bool, in any dtype (IsNegInf, IsPosInf, SignBit: real dtypes).
enum class PredOp : uint8_t { IsNan, IsInf, IsFinite, IsNegInf, IsPosInf, SignBit, LogicalNot, IsReal };

// Ops outside UnaryOp: Sgn (complex -> complex), Abs (complex -> real), Angle (complex -> real, or
// a real floating dtype -> itself: 0 or pi, NaN kept).
enum class MiscOp : uint8_t { Sgn, Abs, Angle };

LUCID_DECLARE_KERNEL(unary_pred_kernel, void (*)(PredOp op, const TensorImpl& out, const TensorImpl& in))
// out = op(in) for a complex dtype (out and in share it).
LUCID_DECLARE_KERNEL(unary_complex_kernel, void (*)(UnaryOp op, const TensorImpl& out, const TensorImpl& in))
LUCID_DECLARE_KERNEL(unary_misc_kernel, void (*)(MiscOp op, const TensorImpl& out, const TensorImpl& in))
// out = min(max(in, lo), hi); lo/hi may be null (no bound); a NaN bound gives NaN. One dtype.
LUCID_DECLARE_KERNEL(clamp_kernel, void (*)(const TensorImpl& out, const TensorImpl& in, const TensorImpl* lo,
                                            const TensorImpl* hi))
// NaN -> nan, +inf -> posinf, -inf -> neginf (floating or complex, parts separately).
LUCID_DECLARE_KERNEL(nan_to_num_kernel, void (*)(const TensorImpl& out, const TensorImpl& in, double nan,
                                                 double posinf, double neginf))
// log(x / (1 - x)) of x clamped to [eps, 1 - eps] (eps < 0: not clamped).
LUCID_DECLARE_KERNEL(logit_kernel, void (*)(const TensorImpl& out, const TensorImpl& in, double eps))
// Round half to even at `decimals` decimal digits (negative: tens, hundreds, ...).
LUCID_DECLARE_KERNEL(round_decimals_kernel, void (*)(const TensorImpl& out, const TensorImpl& in, int64_t decimals))
// The n-th derivative of digamma (n >= 0).
LUCID_DECLARE_KERNEL(polygamma_kernel, void (*)(const TensorImpl& out, const TensorImpl& in, int64_t n))

}  // namespace lucid
