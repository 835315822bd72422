#pragma once
// Whole-tensor reductions with a single-pass kernel where the backend has one: the min and the max
// together (aminmax with no dim), the sum of squared deviations from a given value (var / std of a
// whole tensor). A backend returns false for an input it has no such kernel for (the op then takes
// its general path); outputs are 0-d tensors of the input's dtype.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

LUCID_DECLARE_KERNEL(minmax_all_kernel, bool (*)(const TensorImpl& in, const TensorImpl& mn, const TensorImpl& mx))
// *ss = sum over in of (x - c)^2 (c: in's dtype, rounded from the double given).
LUCID_DECLARE_KERNEL(sqdev_all_kernel, bool (*)(const TensorImpl& in, double c, double* ss))

}  // namespace lucid
