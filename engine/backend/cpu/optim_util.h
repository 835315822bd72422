#pragma once
// Shared pieces of the CPU optimizer kernels (cpu/optim*.cpp): the dtype switch and operand access.
#include <cmath>

#include "backend/cpu/dispatch.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/optim.h"

namespace lucid::cpu::optim {

// The floating dtypes of a parameter (dispatch.h).
template <typename F>
void dispatch_param(Dtype d, const char* op, F&& f) {
  dispatch_floating(d, op, std::forward<F>(f));
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
