#pragma once
// Shape and stride arithmetic (strides in elements).
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace lucid {

using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;

int64_t numel_of(const Shape& s);
// Bytes of a dense tensor of this shape. ValueError for a negative size; LucidError naming `op` when
// the element count or the byte size overflows int64.
int64_t checked_nbytes(const Shape& s, int64_t itemsize, const char* op);
Strides contiguous_strides(const Shape& s);
std::string shape_str(const Shape& s);  // "(2, 3)"
// Normalise a possibly negative dim against rank; IndexError naming op on failure.
int64_t wrap_dim(int64_t dim, int64_t rank, const char* op);
// Broadcast two shapes with NumPy rules; ShapeMismatch naming op on failure.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
// Strides of `view_shape` over memory laid out as (shape, strides), if a view exists (PyTorch's
// computeStride); returns false when a copy is needed.
bool compute_view_strides(const Shape& shape, const Strides& strides, const Shape& view_shape, Strides* out);
// Fill one -1 in a requested shape; ShapeMismatch when numel does not match.
Shape infer_size(const Shape& requested, int64_t numel, const char* op);

}  // namespace lucid
