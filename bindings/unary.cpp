// The unary family beyond the 33 math ops of bindings/ops.cpp: neg, sgn, erfinv, lgamma, digamma,
// round, sinc, logit, polygamma, predicates, nan_to_num, clamp, bitwise/logical not, complex parts.
#include "bindings/common.h"
#include "ops/complex_view.h"
#include "ops/clamp_inplace.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/unary.h"

namespace lucid::py {

namespace {

using OptOperand = std::optional<Operand>;

Tensor self_of(const TensorImpl& t) { return std::const_pointer_cast<TensorImpl>(t.shared_from_this()); }

}  // namespace

void init_unary(nb::module_& m) {
  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  using U = UnaryOp;

  // Plain math ops added to UnaryOp after the first 33 (those are bound in ops.cpp).
  for (U op : {U::Neg, U::Erfinv, U::Lgamma, U::Digamma, U::Sinc, U::Deg2rad, U::Rad2deg}) {
    m.def(unary_name(op), [op](const Tensor& x) { return unary(op, x); }, nb::arg("input"));
    cls.def(unary_name(op), [op](const Tensor& x) { return unary(op, x); });
  }
  m.def("negative", [](const Tensor& x) { return neg(x); }, nb::arg("input"));
  cls.def("negative", [](const Tensor& x) { return neg(x); });
  m.def("bitwise_not", [](const Tensor& x) { return bitwise_not(x); }, nb::arg("input"));
  cls.def("bitwise_not", [](const Tensor& x) { return bitwise_not(x); });
  m.def("positive", [](const Tensor& x) { return positive(x); }, nb::arg("input"));
  cls.def("positive", [](const Tensor& x) { return positive(x); });
  m.def("sgn", [](const Tensor& x) { return sgn(x); }, nb::arg("input"));
  cls.def("sgn", [](const Tensor& x) { return sgn(x); });
  m.def("round", [](const Tensor& x, int64_t d) { return round(x, d); }, nb::arg("input"), nb::kw_only(),
        nb::arg("decimals") = 0);
  cls.def("round", [](const Tensor& x, int64_t d) { return round(x, d); }, nb::kw_only(), nb::arg("decimals") = 0);
  m.def("logit", [](const Tensor& x, std::optional<double> eps) { return logit(x, eps); }, nb::arg("input"),
        nb::arg("eps").none() = nb::none());
  cls.def("logit", [](const Tensor& x, std::optional<double> eps) { return logit(x, eps); },
          nb::arg("eps").none() = nb::none());
  m.def("polygamma", [](int64_t n, const Tensor& x) { return polygamma(n, x); }, nb::arg("n"), nb::arg("input"));
  cls.def("polygamma", [](const Tensor& x, int64_t n) { return polygamma(n, x); }, nb::arg("n"));

  // Predicates (bool results).
  const std::pair<const char*, PredOp> preds[] = {
      {"isnan", PredOp::IsNan},       {"isinf", PredOp::IsInf},       {"isfinite", PredOp::IsFinite},
      {"isneginf", PredOp::IsNegInf}, {"isposinf", PredOp::IsPosInf}, {"signbit", PredOp::SignBit},
      {"logical_not", PredOp::LogicalNot}, {"isreal", PredOp::IsReal}};
  for (auto [name, op] : preds) {
    m.def(name, [op](const Tensor& x) { return pred(op, x); }, nb::arg("input"));
    cls.def(name, [op](const Tensor& x) { return pred(op, x); });
  }

  m.def("nan_to_num", [](const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                         std::optional<double> neginf) { return nan_to_num(x, nan, posinf, neginf); },
        nb::arg("input"), nb::arg("nan").none() = 0.0, nb::arg("posinf").none() = nb::none(),
        nb::arg("neginf").none() = nb::none());
  cls.def("nan_to_num", [](const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                           std::optional<double> neginf) { return nan_to_num(x, nan, posinf, neginf); },
          nb::arg("nan").none() = 0.0, nb::arg("posinf").none() = nb::none(), nb::arg("neginf").none() = nb::none());

  // clamp / clip: scalar or tensor bounds, either optional.
  for (const char* name : {"clamp", "clip"}) {
    m.def(name, [](const Tensor& x, OptOperand lo, OptOperand hi) { return clamp(x, lo, hi); }, nb::arg("input"),
          nb::arg("min").none() = nb::none(), nb::arg("max").none() = nb::none());
    cls.def(name, [](const Tensor& x, OptOperand lo, OptOperand hi) { return clamp(x, lo, hi); },
            nb::arg("min").none() = nb::none(), nb::arg("max").none() = nb::none());
  }
  m.def("clamp_min", [](const Tensor& x, const Operand& lo) { return clamp(x, lo, std::nullopt); }, nb::arg("input"),
        nb::arg("min"));
  cls.def("clamp_min", [](const Tensor& x, const Operand& lo) { return clamp(x, lo, std::nullopt); }, nb::arg("min"));
  m.def("clamp_max", [](const Tensor& x, const Operand& hi) { return clamp(x, std::nullopt, hi); }, nb::arg("input"),
        nb::arg("max"));
  cls.def("clamp_max", [](const Tensor& x, const Operand& hi) { return clamp(x, std::nullopt, hi); }, nb::arg("max"));

  // x.clamp_ / clip_ / clamp_min_ / clamp_max_ straight into x when no autograd record is needed
  // (lucid/_unary_ext.py); False: the general path runs.
  m.def("_clamp_inplace", [](const Tensor& x, OptOperand lo, OptOperand hi) { return clamp_inplace_fast(x, lo, hi); },
        nb::arg("input"), nb::arg("min").none() = nb::none(), nb::arg("max").none() = nb::none());

  // Complex parts. x.real / x.imag are properties (as PyTorch); assigning copies into the view.
  m.def("real", [](const Tensor& x) { return real(x); }, nb::arg("input"));
  m.def("imag", [](const Tensor& x) { return imag(x); }, nb::arg("input"));
  m.def("view_as_real", [](const Tensor& x) { return view_as_real_grad(x); }, nb::arg("input"));
  m.def("view_as_complex", [](const Tensor& x) { return view_as_complex(x); }, nb::arg("input"));
  cls.def_prop_rw(
      "real", [](const TensorImpl& t) { return real(self_of(t)); },
      [](TensorImpl& t, const Operand& v) {
        Tensor dst = real(self_of(t));
        if (auto* s = std::get_if<Scalar>(&v)) fill_(dst, *s);
        else copy_(dst, std::get<Tensor>(v));
      });
  cls.def_prop_rw(
      "imag", [](const TensorImpl& t) { return imag(self_of(t)); },
      [](TensorImpl& t, const Operand& v) {
        Tensor dst = imag(self_of(t));
        if (auto* s = std::get_if<Scalar>(&v)) fill_(dst, *s);
        else copy_(dst, std::get<Tensor>(v));
      });
  m.def("angle", [](const Tensor& x) { return angle(x); }, nb::arg("input"));
  cls.def("angle", [](const Tensor& x) { return angle(x); });
  // conj is physical here (no lazy conjugate bit): is_conj is always False, resolve_conj is x.
  for (const char* name : {"conj", "conj_physical"}) {
    m.def(name, [](const Tensor& x) { return conj(x); }, nb::arg("input"));
    cls.def(name, [](const Tensor& x) { return conj(x); });
  }
  for (const char* name : {"resolve_conj", "resolve_neg"}) {
    m.def(name, [](const Tensor& x) { return x; }, nb::arg("input"));
    cls.def(name, [](const Tensor& x) { return x; });
  }
  for (const char* name : {"is_conj", "is_neg"}) {
    m.def(name, [](const Tensor&) { return false; }, nb::arg("input"));
    cls.def(name, [](const Tensor&) { return false; });
  }

  cls.def("__abs__", [](const Tensor& x) { return unary(U::Abs, x); });
  cls.def("__invert__", [](const Tensor& x) { return bitwise_not(x); });
}

LUCID_BINDINGS(init_unary)

}  // namespace lucid::py
