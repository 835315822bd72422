#pragma once
// torch.view_as_real / torch.view_as_complex: views with gradients (the engine's own view_as_real in
// complex.h has none and serves kernels).
#include "tensor/tensor_impl.h"

namespace lucid {

Tensor view_as_real_grad(const Tensor& t);   // complex (...) -> real (..., 2), a view
Tensor view_as_complex(const Tensor& t);     // real (..., 2), last stride 1 -> complex (...), a view

}  // namespace lucid
