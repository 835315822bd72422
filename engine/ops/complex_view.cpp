// torch.view_as_real / view_as_complex with their vjps (each the other's view of the gradient).
#include "ops/complex_view.h"

#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/graph.h"
#include "ops/view_track.h"

namespace lucid {

Tensor view_as_real_grad(const Tensor& t) {
  LUCID_CHECK(is_complex(t->dtype()), Generic, "[view_as_real] view_as_real is only supported for complex tensors");
  Tensor out = view_as_real(t);
  record("ViewAsRealBackward0", {&t}, {&out}, {}, [](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{view_as_complex(contiguous(g[0]))};
  });
  return track_part_view(t, out);
}

Tensor view_as_complex(const Tensor& t) {
  const Dtype dt = t->dtype();
  LUCID_CHECK(dt == Dtype::F32 || dt == Dtype::F64, Generic,
              "[view_as_complex] view_as_complex is only supported for float and double tensors, but got a tensor of "
              "scalar type: " << dtype_name(dt));
  LUCID_CHECK(t->dim() > 0 && t->shape().back() == 2, Generic,
              "[view_as_complex] Tensor must have a last dimension of size 2");
  LUCID_CHECK(t->strides().back() == 1, Generic, "[view_as_complex] Tensor must have a last dimension with stride 1");
  Shape s(t->shape().begin(), t->shape().end() - 1);
  Strides st(t->strides().begin(), t->strides().end() - 1);
  for (auto& v : st) {
    LUCID_CHECK(v % 2 == 0, Generic, "[view_as_complex] Tensor must have a stride divisible by 2 for all but last dimension");
    v /= 2;
  }
  LUCID_CHECK(t->storage_offset() % 2 == 0, Generic, "[view_as_complex] Tensor must have a storage_offset divisible by 2");
  Tensor out = std::make_shared<TensorImpl>(t->storage(), dt == Dtype::F32 ? Dtype::C64 : Dtype::C128, s, st,
                                            t->storage_offset() / 2);
  record("ViewAsComplexBackward0", {&t}, {&out}, {}, [](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{view_as_real_grad(g[0])};
  });
  return track_part_view(t, out);
}

}  // namespace lucid
