#pragma once
// Dtype dispatch for CPU kernels that support the floating dtypes only.
#include "core/dtype.h"
#include "core/error.h"

namespace lucid::cpu {

// Calls f.template operator()<T>() with T = float or double; other dtypes raise NotImplementedError
// naming the op.
template <typename F>
void dispatch_float(Dtype d, const char* op, F&& f) {
  if (d == Dtype::F32) f.template operator()<float>();
  else if (d == Dtype::F64) f.template operator()<double>();
  else LUCID_FAIL(NotImplemented, "[" << op << "] supports float32 and float64 tensors, got " << dtype_name(d));
}

// Calls f.template operator()<T>() with T = Half, BFloat16, float or double; other dtypes raise
// NotImplementedError naming the op.
template <typename F>
void dispatch_floating(Dtype d, const char* op, F&& f) {
  switch (d) {
    case Dtype::F16: return f.template operator()<Half>();
    case Dtype::BF16: return f.template operator()<BFloat16>();
    case Dtype::F32: return f.template operator()<float>();
    case Dtype::F64: return f.template operator()<double>();
    default: LUCID_FAIL(NotImplemented, "[" << op << "] is not implemented for " << dtype_name(d) << " tensors");
  }
}

}  // namespace lucid::cpu
