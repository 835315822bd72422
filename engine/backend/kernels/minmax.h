#pragma once
// The min and the max of a whole tensor in one pass (aminmax with no dim). A backend returns false
// for an input it has no single-pass kernel for (the op then reduces twice); mn and mx are 0-d
// tensors of the input's dtype.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

LUCID_DECLARE_KERNEL(minmax_all_kernel, bool (*)(const TensorImpl& in, const TensorImpl& mn, const TensorImpl& mx))

}  // namespace lucid
