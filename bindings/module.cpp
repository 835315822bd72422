// lucid._C: the engine's Python face. One init function per area.
#include "bindings/common.h"

#include <algorithm>
#include <cstring>

namespace lucid::py {
std::vector<std::pair<const char*, InitFn>>& family_bindings() {
  static std::vector<std::pair<const char*, InitFn>> v;
  return v;
}
}  // namespace lucid::py

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
  // op families, in a fixed (name) order whatever the link order
  auto fams = lucid::py::family_bindings();
  std::sort(fams.begin(), fams.end(), [](const auto& a, const auto& b) { return std::strcmp(a.first, b.first) < 0; });
  for (auto& [name, init] : fams) init(m);
}
