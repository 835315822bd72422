#pragma once
// Complex helpers: the real view of a complex tensor and the conjugate.
#include "tensor/tensor_impl.h"

namespace lucid {

// A complex tensor's memory as real numbers: shape + (2,), (real, imag) last. A view (no copy).
Tensor view_as_real(const Tensor& t);
// The complex conjugate (a copy); real tensors are returned as they are.
Tensor conj(const Tensor& t);

}  // namespace lucid
