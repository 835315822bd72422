// lucid._C's margin losses (engine/ops/loss_margin.h); lucid.nn.functional validates and spells
// their arguments (legacy reduction flags, unbatched forms).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "bindings/common.h"
#include "ops/loss_margin.h"

namespace lucid::py {

void init_loss_margin(nb::module_& m) {
  m.def("multi_margin_loss", &multi_margin_loss, nb::arg("input"), nb::arg("target"), nb::arg("p") = 1,
        nb::arg("margin") = 1.0, nb::arg("weight").none() = nb::none(), nb::arg("reduction") = "mean");
  m.def("multilabel_margin_loss", &multilabel_margin_loss, nb::arg("input"), nb::arg("target"),
        nb::arg("reduction") = "mean");
}

LUCID_BINDINGS(init_loss_margin)

}  // namespace lucid::py
