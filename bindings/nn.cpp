// Support for lucid.nn: Python subclasses of Tensor (nn.Parameter) that own their TensorImpl.
#include <nanobind/stl/shared_ptr.h>

#include "bindings/common.h"
#include "ops/view.h"

namespace lucid::py {

void init_nn(nb::module_& m) {
  // _make_subclass(cls, data, requires_grad): a new TensorImpl aliasing `data` (as detach()), wrapped
  // in an instance of the Tensor subclass `cls`. That instance is the only Python object of the new
  // TensorImpl, so ops that return it (in-place ops, to() without a change) give back the subclass
  // object itself, as in PyTorch (torch._C._make_subclass).
  m.def("_make_subclass", [](nb::handle cls, const Tensor& data, bool requires_grad) {
    LUCID_CHECK(PyType_Check(cls.ptr()) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()),
                                                            reinterpret_cast<PyTypeObject*>(
                                                                nb::type<TensorImpl>().ptr())),
                Type, "_make_subclass expects a subclass of Tensor");
    Tensor t = alias(data);
    if (requires_grad) {
      LUCID_CHECK(is_floating(t->dtype()) || is_complex(t->dtype()), Generic,
                  "only Tensors of floating point and complex dtype can require gradients (got "
                      << dtype_name(t->dtype()) << ")");
      t->ensure_autograd_meta().requires_grad = true;
    }
    nb::object o = nb::inst_reference(cls, t.get());
    nb::detail::shared_from_cpp(std::static_pointer_cast<void>(t), o.ptr());
    return o;
  }, nb::arg("cls"), nb::arg("data"), nb::arg("requires_grad"));
}

LUCID_BINDINGS(init_nn)

}  // namespace lucid::py
