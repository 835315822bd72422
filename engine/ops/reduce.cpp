#include "ops/reduce.h"

#include <algorithm>

#include "backend/kernels/reduce.h"
#include "ops/copy.h"
#include "ops/graph.h"
#include "ops/view.h"

namespace lucid {

std::vector<int64_t> reduction_dims(const Tensor& t, const std::optional<std::vector<int64_t>>& dims, const char* op) {
  std::vector<int64_t> out;
  if (!dims || dims->empty()) {
    for (int64_t i = 0; i < t->dim(); ++i) out.push_back(i);
    return out;
  }
  for (auto d : *dims) {
    const int64_t w = wrap_dim(d, t->dim(), op);
    LUCID_CHECK(std::find(out.begin(), out.end(), w) == out.end(), Value,
                "[" << op << "] dim " << w << " appears multiple times in the list of dims");
    out.push_back(w);
  }
  if (t->dim() == 0) out.clear();
  std::sort(out.begin(), out.end());
  return out;
}

Tensor sum(const Tensor& t, const std::optional<std::vector<int64_t>>& dims, bool keepdim, std::optional<Dtype> dtype) {
  const auto rd = reduction_dims(t, dims, "sum");
  const Dtype out_dt = dtype ? *dtype : (is_integral(t->dtype(), true) ? Dtype::I64 : t->dtype());
  Tensor in = t;
  if (dtype && *dtype != t->dtype()) in = cast(t, *dtype);
  // Move the reduced dims last.
  std::vector<int64_t> perm;
  Shape out_shape, keep_shape;
  for (int64_t i = 0; i < in->dim(); ++i) {
    const bool red = std::binary_search(rd.begin(), rd.end(), i);
    if (!red) { perm.push_back(i); out_shape.push_back(in->shape()[size_t(i)]); }
    keep_shape.push_back(red ? 1 : in->shape()[size_t(i)]);
  }
  for (auto d : rd) perm.push_back(d);
  Tensor p = permute(in, perm);
  Tensor out = TensorImpl::empty(out_shape, out_dt, in->device());
  sum_kernel(in->device())(*out, *p, int(rd.size()));
  Tensor result = keepdim ? out->as_view(keep_shape, contiguous_strides(keep_shape), 0) : out;
  const Shape in_shape = in->shape();
  record("SumBackward0", {&in}, {&result}, {}, [keep_shape, in_shape](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{expand(reshape(g[0], keep_shape), in_shape)};
  });
  return result;
}

}  // namespace lucid
