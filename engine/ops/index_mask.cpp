// self[mask] (and masked_select, which reduces to it) as one count and one selection pass instead of
// nonzero() coordinates and a gather through them.
#include "ops/index_mask.h"

#include "backend/kernels/index_fused.h"
#include "backend/kernels/indexing.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/indexing.h"

namespace lucid {

Tensor index_by_mask(const Tensor& self, const std::vector<Tensor>& indices) {
  if (indices.empty() || !indices[0] || !self->device().is_cpu()) return nullptr;
  for (size_t i = 1; i < indices.size(); ++i)
    if (indices[i]) return nullptr;
  const Tensor& mask = indices[0];
  const int64_t k = mask->dim();
  if ((mask->dtype() != Dtype::Bool && mask->dtype() != Dtype::U8) || mask->device() != self->device() || k < 1 ||
      k > self->dim())
    return nullptr;
  for (int64_t d = 0; d < k; ++d)
    if (mask->shape()[size_t(d)] != self->shape()[size_t(d)]) return nullptr;  // the general path raises
  const int64_t n = count_nonzero_kernel(self->device())(*mask);
  Shape shape{n};
  shape.insert(shape.end(), self->shape().begin() + k, self->shape().end());
  Tensor out = TensorImpl::empty(shape, self->dtype(), self->device());
  if (out->numel()) {
    Strides st(size_t(self->dim()), 0);  // the mask spread over self's trailing dims
    for (int64_t d = 0; d < k; ++d) st[size_t(d)] = mask->strides()[size_t(d)];
    Tensor m = mask->as_view(self->shape(), st, mask->storage_offset());
    masked_select_kernel(self->device())(*out, *self, *m);
  }
  const Shape self_shape = self->shape();
  record("IndexBackward0", {&self}, {&out}, {}, [mask, self_shape](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{index_put(zeros(self_shape, g[0]->dtype(), g[0]->device()), {mask}, g[0], true)};
  });
  return out;
}

}  // namespace lucid
