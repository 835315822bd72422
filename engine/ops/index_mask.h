#pragma once
// self[mask] in one selection (no coordinates of the set elements, no gather through them).
#include <vector>

#include "tensor/tensor_impl.h"

namespace lucid {

// self[mask] for `indices` made of one bool/uint8 mask over self's leading dims (sizes equal) and
// nulls: the set elements (or rows) in row-major order, as index() gives; null for any other form.
Tensor index_by_mask(const Tensor& self, const std::vector<Tensor>& indices);

}  // namespace lucid
