#pragma once
// View tracking for views made outside view.cpp: .real / .imag of a complex tensor (unary_ext.cpp)
// are views of its base, so an in-place write through them rewrites the base's autograd history.
#include "tensor/tensor_impl.h"

namespace lucid {

// Under grad mode: records `out` (a view of `in`) as a view of in's base; returns out.
Tensor track_part_view(const Tensor& in, const Tensor& out);

}  // namespace lucid
