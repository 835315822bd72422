// lucid._C's fused layers of Lucid's own (engine/ops/nn_extra.h): rope and fused linear + activation;
// lucid.nn.functional spells their arguments.
#include "bindings/common.h"
#include "ops/nn_extra.h"

namespace lucid::py {

void init_extra(nb::module_& m) {
  m.def("rope", [](const Tensor& x, std::optional<Tensor> pos, double base, bool interleaved) {
          return rope(x, pos ? &*pos : nullptr, base, interleaved);
        }, nb::arg("input"), nb::arg("position_ids") = nb::none(), nb::arg("base") = 10000.0,
        nb::arg("interleaved") = false);
  m.def("fused_linear_act", [](const Tensor& x, const Tensor& w, std::optional<Tensor> b, const std::string& act) {
          return fused_linear_act(x, w, b ? &*b : nullptr, act);
        }, nb::arg("input"), nb::arg("weight"), nb::arg("bias") = nb::none(), nb::arg("activation") = "relu");
  m.def("linear", [](const Tensor& x, const Tensor& w, std::optional<Tensor> b) {
          return linear(x, w, b ? &*b : nullptr);
        }, nb::arg("input"), nb::arg("weight"), nb::arg("bias") = nb::none());
}

LUCID_BINDINGS(init_extra)

}  // namespace lucid::py
