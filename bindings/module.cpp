// lucid._C: the engine's Python face. One init function per area.
#include "bindings/common.h"

NB_MODULE(_C, m) {
  m.doc() = "lucid engine bindings";
  // Storages may hold Python objects (a NumPy array or DLPack producer they wrap) and tensors may be
  // alive at interpreter exit; those are not leaks of the binding code, so no exit-time report.
  nb::set_leak_warnings(false);
  lucid::py::init_core(m);
  lucid::py::init_tensor(m);
  lucid::py::init_creation(m);
  lucid::py::init_ops(m);
  lucid::py::init_random(m);
  lucid::py::init_interop(m);
  lucid::py::init_autograd(m);
}
