#pragma once
// x.clamp_(min, max) written straight into x (no temporary, no copy) when nothing needs an autograd
// record; the general in-place path (clamp, then copy_) covers the rest and gives the errors.
#include <optional>

#include "ops/binary.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// Returns false, touching nothing, when the fast path does not apply: self or a bound requires grad,
// self is not a contiguous CPU tensor of a real dtype, a bound would change the result dtype, a
// tensor bound is not broadcastable to self's shape or shares self's memory.
bool clamp_inplace_fast(const Tensor& self, const std::optional<Operand>& lo, const std::optional<Operand>& hi);

}  // namespace lucid
