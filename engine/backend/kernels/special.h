#pragma once
// Kernels of the special functions (ops/special.h): one-operand functions of a floating tensor and
// two-operand ones of same-dtype, same-shape operands (expanded by the op). Inputs arrive validated,
// outputs allocated; float16/bfloat16/float32 compute in double and round once.
#include <cstdint>

#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

enum class SpecialOp : uint8_t { I0, I0e, I1, I1e, Erfcx, Ndtri, LogNdtr };
enum class SpecialBinaryOp : uint8_t { Igamma, Igammac, Zeta };

LUCID_DECLARE_KERNEL(special_kernel, void (*)(SpecialOp op, const TensorImpl& out, const TensorImpl& in))
LUCID_DECLARE_KERNEL(special_binary_kernel,
                     void (*)(SpecialBinaryOp op, const TensorImpl& out, const TensorImpl& a, const TensorImpl& b))

}  // namespace lucid
