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
  struct Named {
    S op;
    const char* name;
    const char* doc;
  };
  static const Named unary_ops[] = {
      {S::I0e, "special_i0e", "Exponentially scaled modified Bessel function of the first kind, order 0: exp(-|x|) i0(x)."},
      {S::I1, "special_i1", "Modified Bessel function of the first kind, order 1."},
      {S::I1e, "special_i1e", "Exponentially scaled modified Bessel function of the first kind, order 1: exp(-|x|) i1(x)."},
      {S::Erfcx, "special_erfcx", "Scaled complementary error function exp(x^2) erfc(x)."},
      {S::Ndtri, "special_ndtri", "The inverse of the standard normal CDF (the x with ndtr(x) = input)."},
      {S::LogNdtr, "special_log_ndtr", "log of the standard normal CDF, accurate in the left tail."}};
  for (const Named& u : unary_ops) {
    const S o = u.op;
    m.def(u.name, [o](const Tensor& x) { return special(o, x); }, nb::arg("input"), u.doc);
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
        nb::arg("input"), nb::arg("other"), "Hurwitz zeta function sum_k (k + other)^-input.");
}

LUCID_BINDINGS(init_special)

}  // namespace lucid::py
