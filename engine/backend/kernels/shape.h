#pragma once
// Shape-family kernels: reversed reads (flip) and triangle masks (tril/triu).
// Inputs arrive validated; outputs are allocated by the op.
#include <vector>

#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// out = in with the dims where flip[d] is true read backwards; same shape and dtype.
LUCID_DECLARE_KERNEL(flip_kernel, void (*)(const TensorImpl& out, const TensorImpl& in, const std::vector<bool>& flip))
// In place on a contiguous (..., m, n) tensor: zeroes the elements above diagonal `k` (upper=false:
// keeps j - i <= k, tril) or below it (upper=true: keeps j - i >= k, triu).
LUCID_DECLARE_KERNEL(tri_mask_kernel, void (*)(const TensorImpl& t, int64_t k, bool upper))

}  // namespace lucid
