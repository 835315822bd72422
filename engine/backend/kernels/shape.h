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

// Index maps per dim for reflect/replicate/circular padding: maps[d][o] is the input index read by
// output index o along dim d; an empty map is the identity (that dim is not padded).
using PadMaps = std::vector<std::vector<int64_t>>;
// out (contiguous) [o...] = in[maps[0][o0], maps[1][o1], ...]; same dtype.
LUCID_DECLARE_KERNEL(pad_gather_kernel, void (*)(const TensorImpl& out, const TensorImpl& in, const PadMaps& maps))
// The adjoint: grad_in (contiguous, zero-filled) [maps(o)] += g[o], g contiguous of the output's shape.
LUCID_DECLARE_KERNEL(pad_scatter_add_kernel, void (*)(const TensorImpl& grad_in, const TensorImpl& g, const PadMaps& maps))

}  // namespace lucid
