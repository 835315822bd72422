// The special functions (ops/special.h): i0, igamma, igammac as module functions and Tensor methods
// (with in-place variants), and the rest as _C.special_<name> for lucid.special.
#include <string>

#include "bindings/common.h"
#include "ops/special.h"

namespace lucid::py {

void init_special(nb::module_& m) {
  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  using S = SpecialOp;
  using B = SpecialBinaryOp;

  m.def("i0", [](const Tensor& x) { return special(S::I0, x); }, nb::arg("input"));
  cls.def("i0", [](const Tensor& x) { return special(S::I0, x); });
  cls.def("i0_", [](const Tensor& x) { return special_(S::I0, x); });
  static const std::pair<S, const char*> unary_ops[] = {{S::I0e, "special_i0e"},     {S::I1, "special_i1"},
                                                        {S::I1e, "special_i1e"},     {S::Erfcx, "special_erfcx"},
                                                        {S::Ndtri, "special_ndtri"}, {S::LogNdtr, "special_log_ndtr"}};
  for (const auto& [op, name] : unary_ops) {
    const S o = op;
    m.def(name, [o](const Tensor& x) { return special(o, x); }, nb::arg("input"));
  }

  for (const auto& [op, name] : {std::pair{B::Igamma, "igamma"}, std::pair{B::Igammac, "igammac"}}) {
    const B o = op;
    m.def(name, [o](const Operand& a, const Operand& b) { return special_binary(o, a, b); }, nb::arg("input"),
          nb::arg("other"));
    cls.def(name, [o](const Tensor& a, const Operand& b) { return special_binary(o, a, b); }, nb::arg("other"));
    cls.def((std::string(name) + "_").c_str(), [o](const Tensor& a, const Operand& b) { return special_binary_(o, a, b); },
            nb::arg("other"));
  }
  m.def("special_zeta", [](const Operand& a, const Operand& b) { return special_binary(B::Zeta, a, b); },
        nb::arg("input"), nb::arg("other"));
}

LUCID_BINDINGS(init_special)

}  // namespace lucid::py
