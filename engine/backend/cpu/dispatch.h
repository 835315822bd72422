#pragma once
// Dtype dispatch for CPU kernels that support float32 and float64 only.
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

}  // namespace lucid::cpu
