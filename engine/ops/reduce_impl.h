#pragma once
// Internals shared by the reduce family's op files (reduce*.cpp): layouts and the kernel call.
#include <optional>
#include <utility>
#include <vector>

#include "backend/kernels/reduce.h"
#include "tensor/tensor_impl.h"

namespace lucid::detail {

struct ReduceLayout {
  std::vector<int64_t> perm;  // kept dims, then reduced dims
  Shape out_shape;            // kept dims
  Shape keep_shape;           // reduced dims as 1
  int64_t count = 1;          // elements per output
};
ReduceLayout reduce_layout(const Tensor& t, const std::vector<int64_t>& rd);

// Runs the generic reduction kernel over sorted dims `rd`: (out, int64 indices or null).
std::pair<Tensor, Tensor> run_reduce(ReduceOp op, const Tensor& in, const std::vector<int64_t>& rd, bool keepdim,
                                     Dtype out_dt, bool with_indices);
Tensor keep_view(const Tensor& out, const Shape& keep_shape);
// A reduced gradient (or result) broadcast back over the input's shape.
Tensor sum_grad_to(const Tensor& g, const Shape& keep_shape, const Shape& in_shape);

// vjps recorded by the forwards in reduce.cpp (defined in reduce_grad.cpp).
void record_nansum(const Tensor& in, const Tensor& out, const std::vector<int64_t>& rd);
void record_prod(const Tensor& in, const Tensor& out, std::optional<int64_t> dim, bool keepdim);
void record_amax(const Tensor& in, const Tensor& out, const std::vector<int64_t>& rd, bool keepdim);
void record_max_dim(const Tensor& in, const Tensor& values, const Tensor& indices, int64_t dim, bool keepdim);
void record_cumprod(const Tensor& in, const Tensor& out, int64_t dim);
void record_cummax(const Tensor& in, const Tensor& values, const Tensor& indices, int64_t dim);

}  // namespace lucid::detail
