#pragma once
// Shared pieces of the CPU optimizer kernels (cpu/optim*.cpp): the dtype switch and operand access.
#include <cmath>

#include "backend/cpu/loops.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/optim.h"

namespace lucid::cpu::optim {

template <typename F>
void dispatch_param(Dtype d, const char* op, F&& f) {
  switch (d) {
    case Dtype::F32: return f.template operator()<float>();
    case Dtype::F64: return f.template operator()<double>();
    case Dtype::F16: return f.template operator()<Half>();
    case Dtype::BF16: return f.template operator()<BFloat16>();
    default: LUCID_FAIL(NotImplemented, "[" << op << "] expected a floating-point parameter, got " << dtype_name(d));
  }
}

// Operand i's data (null when the operand is absent).
template <typename T>
T* operand(const OptimOperands& o, int i) {
  return o.t[i] ? o.t[i]->data<T>() : nullptr;
}

// Rounds through the storage type, as the unfused op chain stores each intermediate.
template <typename T, typename M>
inline M rnd(M v) {
  return M(T(v));
}

// torch.lerp's formula (the one of the two that keeps the result exact at weight 0 or 1).
template <typename M>
inline M lerp(M a, M b, M w) {
  return std::abs(w) < M(0.5) ? a + w * (b - a) : b - (b - a) * (M(1) - w);
}

}  // namespace lucid::cpu::optim
