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

// The names users see (messages, the profiler).
inline const char* special_name(SpecialOp op) {
  switch (op) {
    case SpecialOp::I0: return "i0";
    case SpecialOp::I0e: return "special.i0e";
    case SpecialOp::I1: return "special.i1";
    case SpecialOp::I1e: return "special.i1e";
    case SpecialOp::Erfcx: return "special.erfcx";
    case SpecialOp::Ndtri: return "special.ndtri";
    case SpecialOp::LogNdtr: return "special.log_ndtr";
  }
  return "?";
}
inline const char* special_name(SpecialBinaryOp op) {
  switch (op) {
    case SpecialBinaryOp::Igamma: return "igamma";
    case SpecialBinaryOp::Igammac: return "igammac";
    case SpecialBinaryOp::Zeta: return "special.zeta";
  }
  return "?";
}

LUCID_DECLARE_KERNEL(special_kernel, void (*)(SpecialOp op, const TensorImpl& out, const TensorImpl& in))
LUCID_DECLARE_KERNEL(special_binary_kernel,
                     void (*)(SpecialBinaryOp op, const TensorImpl& out, const TensorImpl& a, const TensorImpl& b))

}  // namespace lucid
