#pragma once
// Mask selection kernels (x[mask], masked_select): the values where a mask is set, in row-major order.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// out (contiguous, 1-d) = in[p] for each p where mask[p] != 0, in row-major order of in's shape. mask
// (bool or uint8) has in's shape (broadcast views allowed); out holds exactly the number of set
// elements (never written past its end).
LUCID_DECLARE_KERNEL(masked_select_kernel, void (*)(const TensorImpl& out, const TensorImpl& in, const TensorImpl& mask))

}  // namespace lucid
