#pragma once
// View ops: results share the input's storage (and version counter) and allocate no data.
// reshape/flatten copy only when the strides forbid a view.
#include <optional>
#include <vector>

#include "tensor/tensor_impl.h"

namespace lucid {

Tensor as_strided(const Tensor& t, const Shape& size, const Strides& stride, std::optional<int64_t> offset);
Tensor view(const Tensor& t, const Shape& shape);            // ShapeMismatch when no view exists
Tensor view_dtype(const Tensor& t, Dtype dtype);              // reinterpret bytes (same itemsize)
Tensor reshape(const Tensor& t, const Shape& shape);
Tensor flatten(const Tensor& t, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor permute(const Tensor& t, const std::vector<int64_t>& dims);
Tensor transpose(const Tensor& t, int64_t d0, int64_t d1);
Tensor t_(const Tensor& t);                                   // .T of rank <= 2 (reversed dims)
Tensor matrix_transpose(const Tensor& t);                     // .mT
Tensor squeeze(const Tensor& t, std::optional<std::vector<int64_t>> dims);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor expand(const Tensor& t, const Shape& shape, const char* op = "expand");
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step);
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step);
Tensor diagonal(const Tensor& t, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor alias(const Tensor& t);                                // same view, new TensorImpl (detach)
// Autograd bookkeeping of views (docs/notes/autograd.md): a view's grad_fn made afresh from its
// base's current history, and an in-place write through a view recorded on the base.
void regenerate_view_history(const Tensor& view);
void copy_slices(const Tensor& view, const Tensor& result);
// Sums a gradient of a broadcast result back to `shape` (the backward of expand).
Tensor sum_to(const Tensor& g, const Shape& shape);

}  // namespace lucid
