#pragma once
// Factory functions. Values that need computing (arange, linspace, eye) are computed on the host
// and moved, so every device yields the same numbers.
#include <optional>

#include "core/scalar.h"
#include "tensor/tensor_impl.h"

namespace lucid {

Tensor empty(const Shape& shape, Dtype dtype, Device device, bool pinned = false);
Tensor full(const Shape& shape, const Scalar& value, Dtype dtype, Device device);
Tensor zeros(const Shape& shape, Dtype dtype, Device device);
Tensor ones(const Shape& shape, Dtype dtype, Device device);
// A tensor from a host buffer of `shape` in row-major order (copied).
Tensor from_host(const void* data, const Shape& shape, Dtype dtype, Device device);
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, Dtype dtype, Device device);
Tensor linspace(double start, double end, int64_t steps, Dtype dtype, Device device);
Tensor logspace(double start, double end, int64_t steps, double base, Dtype dtype, Device device);
Tensor eye(int64_t n, int64_t m, Dtype dtype, Device device);

}  // namespace lucid
