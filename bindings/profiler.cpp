// The profiler's engine side (engine/core/profiler.h): start, and stop returning the events.
#include <sstream>

#include "bindings/common.h"
#include "core/profiler.h"

namespace lucid::py {

void init_profiler(nb::module_& m) {
  m.def("_profiler_start", &profiler::start);
  m.def("_profiler_enabled", &profiler::enabled);
  m.def("_profiler_now_ns", &profiler::now_ns);
  // (name, kind, device, shapes, bytes, start_ns, duration_ns, depth) per event
  m.def("_profiler_stop", [] {
    nb::list out;
    for (auto& e : profiler::stop()) {
      nb::list shapes;
      for (auto& s : e.shapes) shapes.append(nb::tuple(nb::cast(s)));
      std::ostringstream dev;
      dev << e.device;
      out.append(nb::make_tuple(e.name, e.kind == profiler::EventKind::Kernel ? "kernel" : "backward", dev.str(),
                                shapes, e.bytes, e.start_ns, e.duration_ns, e.depth));
    }
    return out;
  });
}

LUCID_BINDINGS(init_profiler)

}  // namespace lucid::py
