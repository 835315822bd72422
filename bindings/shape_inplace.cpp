// In-place view ops (t_, transpose_, squeeze_, unsqueeze_, swapaxes_, as_strided_, ...): self takes the
// geometry of v (a view of self computed by the out-of-place op) and, under autograd, v's history.
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "bindings/common.h"

namespace lucid::py {

namespace {

Tensor inplace_view(const Tensor& self, const Tensor& v, const std::string& name) {
  LUCID_CHECK(v->storage() == self->storage(), Generic, "[" << name << "] expected a view of self");
  const bool rec = autograd::check_inplace(self, {}, name.c_str());
  self->set_data(*v);
  self->bump_version();
  if (rec) {
    const AutogradMeta* vm = v->autograd_meta();
    AutogradMeta& m = self->ensure_autograd_meta();
    if (vm && vm->grad_fn) {
      m.grad_fn = vm->grad_fn;
      m.output_nr = vm->output_nr;
    }
    if (m.view) m.view->version = self->version();
  }
  return self;
}

}  // namespace

void init_shape_inplace(nb::module_& m) {
  m.def("_inplace_view", &inplace_view, nb::arg("self"), nb::arg("view"), nb::arg("name"));
}

LUCID_BINDINGS(init_shape_inplace)

}  // namespace lucid::py
