#include "ops/complex.h"

#include "backend/kernels/elementwise.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"

namespace lucid {

Tensor view_as_real(const Tensor& t) {
  LUCID_CHECK(is_complex(t->dtype()), DtypeMismatch,
              "[view_as_real] expected a complex tensor, got " << dtype_name(t->dtype()));
  Shape s = t->shape();
  Strides st = t->strides();
  for (auto& v : st) v *= 2;
  s.push_back(2);
  st.push_back(1);
  return std::make_shared<TensorImpl>(t->storage(), to_real(t->dtype()), s, st, t->storage_offset() * 2);
}

Tensor conj(const Tensor& t) {
  if (!is_complex(t->dtype())) return t;
  Tensor out = TensorImpl::empty(t->shape(), t->dtype(), t->device());
  if (t->numel()) {
    copy_kernel(t->device())(*out, *t);
    // Negate the imaginary parts in place through the real view of the fresh copy.
    Tensor im = view_as_real(out);
    Shape s = im->shape();
    s.back() = 1;
    Tensor imag = im->as_view(s, im->strides(), im->storage_offset() + 1);
    Tensor minus = full({}, Scalar::from_int(-1), imag->dtype(), imag->device());
    Tensor m = minus->as_view(imag->shape(), Strides(imag->shape().size(), 0), 0);
    binary_kernel(t->device())(BinaryOp::Mul, *imag, *imag, *m, Scalar::from_int(1));
  }
  record("ConjBackward0", {&t}, {&out}, {}, [](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{conj(g[0])};
  });
  return out;
}

}  // namespace lucid
