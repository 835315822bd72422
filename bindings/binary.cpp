// The binary family beyond add/sub/mul/div: comparisons, logical and bitwise ops, where, pow,
// floor division and remainders, maximum/minimum, lerp/addcmul/addcdiv, complex/polar; module
// functions, Tensor methods, in-place variants and operators (reflected and in-place).
#include <nanobind/stl/string.h>

#include "bindings/common.h"
#include "ops/binary.h"
#include "ops/compare.h"
#include "ops/copy.h"
#include "ops/indexing.h"
#include "ops/out.h"

namespace lucid::py {

namespace {

// x.eq_(y): the comparison's bools written in x's dtype.
Tensor compare_(CompareOp op, const Tensor& self, const Operand& other) {
  Tensor r = compare(op, self, other);
  LUCID_CHECK(r->shape() == self->shape(), ShapeMismatch,
              "[" << compare_name(op) << "_] output with shape " << shape_str(self->shape())
                  << " doesn't match the broadcast shape " << shape_str(r->shape()));
  copy_(self, r);
  return self;
}

struct BinOpName {
  BinaryOp op;
  const char* name;   // module function and method; name_ is the in-place method
  const char* arg;    // PyTorch's name of the second argument
  bool inplace;
};

}  // namespace

void init_binary(nb::module_& m) {
  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  using B = BinaryOp;
  using C = CompareOp;

  // ---- elementwise ops on two operands (tensors or Python scalars), one binding each
  static const BinOpName ops[] = {
      {B::FloorDiv, "floor_divide", "other", true},   {B::Remainder, "remainder", "other", true},
      {B::Fmod, "fmod", "other", true},               {B::Pow, "pow", "exponent", true},
      {B::Atan2, "atan2", "other", true},             {B::Atan2, "arctan2", "other", true},
      {B::Hypot, "hypot", "other", true},             {B::Maximum, "maximum", "other", false},
      {B::Minimum, "minimum", "other", false},        {B::Fmax, "fmax", "other", false},
      {B::Fmin, "fmin", "other", false},              {B::LogAddExp, "logaddexp", "other", false},
      {B::LogAddExp2, "logaddexp2", "other", false},  {B::Copysign, "copysign", "other", true},
      {B::Xlogy, "xlogy", "other", true},             {B::Heaviside, "heaviside", "values", true},
      {B::BitAnd, "bitwise_and", "other", true},      {B::BitOr, "bitwise_or", "other", true},
      {B::BitXor, "bitwise_xor", "other", true},      {B::Shl, "bitwise_left_shift", "other", true},
      {B::Shr, "bitwise_right_shift", "other", true},
  };
  for (const BinOpName& o : ops) {
    const B op = o.op;
    m.def(o.name, [op](const Operand& a, const Operand& b) { return binary(op, a, b); }, nb::arg("input"),
          nb::arg(o.arg));
    cls.def(o.name, [op](const Tensor& a, const Operand& b) { return binary(op, a, b); }, nb::arg(o.arg));
    if (o.inplace)
      cls.def((std::string(o.name) + "_").c_str(), [op](const Tensor& a, const Operand& b) { return binary_(op, a, b); },
              nb::arg(o.arg));
  }

  // ---- comparisons and logical ops (bool results)
  static const std::pair<C, const char*> cmps[] = {
      {C::Eq, "eq"}, {C::Ne, "ne"}, {C::Lt, "lt"}, {C::Le, "le"}, {C::Gt, "gt"}, {C::Ge, "ge"},
      {C::Ne, "not_equal"}, {C::Lt, "less"}, {C::Le, "less_equal"}, {C::Gt, "greater"}, {C::Ge, "greater_equal"},
      {C::LogicalAnd, "logical_and"}, {C::LogicalOr, "logical_or"}, {C::LogicalXor, "logical_xor"},
  };
  for (const auto& [op, name] : cmps) {
    const C c = op;
    m.def(name, [c](const Operand& a, const Operand& b) { return compare(c, a, b); }, nb::arg("input"),
          nb::arg("other"));
    cls.def(name, [c](const Tensor& a, const Operand& b) { return compare(c, a, b); }, nb::arg("other"));
    cls.def((std::string(name) + "_").c_str(), [c](const Tensor& a, const Operand& b) { return compare_(c, a, b); },
            nb::arg("other"));
  }

  // ---- operators (NotImplemented on foreign operands, so Python tries the reflected op)
  cls.def("__eq__", [](const Tensor& a, const Operand& b) { return eq(a, b); }, nb::is_operator())
      .def("__ne__", [](const Tensor& a, const Operand& b) { return ne(a, b); }, nb::is_operator())
      .def("__lt__", [](const Tensor& a, const Operand& b) { return lt(a, b); }, nb::is_operator())
      .def("__le__", [](const Tensor& a, const Operand& b) { return le(a, b); }, nb::is_operator())
      .def("__gt__", [](const Tensor& a, const Operand& b) { return gt(a, b); }, nb::is_operator())
      .def("__ge__", [](const Tensor& a, const Operand& b) { return ge(a, b); }, nb::is_operator());
  static const std::tuple<B, const char*, const char*, const char*> dunders[] = {
      {B::Pow, "__pow__", "__rpow__", "__ipow__"},
      {B::FloorDiv, "__floordiv__", "__rfloordiv__", "__ifloordiv__"},
      {B::Remainder, "__mod__", "__rmod__", "__imod__"},
      {B::BitAnd, "__and__", "__rand__", "__iand__"},
      {B::BitOr, "__or__", "__ror__", "__ior__"},
      {B::BitXor, "__xor__", "__rxor__", "__ixor__"},
      {B::Shl, "__lshift__", "__rlshift__", "__ilshift__"},
      {B::Shr, "__rshift__", "__rrshift__", "__irshift__"},
  };
  for (const auto& [op, fwd, rev, inp] : dunders) {
    const B o = op;
    cls.def(fwd, [o](const Tensor& a, const Operand& b) { return binary(o, a, b); }, nb::is_operator());
    cls.def(rev, [o](const Tensor& a, const Scalar& b) { return binary(o, b, a); }, nb::is_operator());
    cls.def(inp, [o](const Tensor& a, const Operand& b) { return binary_(o, a, b); }, nb::is_operator());
  }

  // ---- div with a rounding mode (overrides the plain div bindings of ops.cpp)
  m.def("div", [](const Operand& a, const Operand& b, std::optional<std::string> mode) { return div(a, b, mode); },
        nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("rounding_mode").none() = nb::none());
  m.def("divide", [](const Operand& a, const Operand& b, std::optional<std::string> mode) { return div(a, b, mode); },
        nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("rounding_mode").none() = nb::none());
  m.def("true_divide", [](const Operand& a, const Operand& b) { return div(a, b); }, nb::arg("input"), nb::arg("other"));
  cls.def("div", [](const Tensor& a, const Operand& b, std::optional<std::string> mode) { return div(a, b, mode); },
          nb::arg("other"), nb::kw_only(), nb::arg("rounding_mode").none() = nb::none());
  cls.def("divide", [](const Tensor& a, const Operand& b, std::optional<std::string> mode) { return div(a, b, mode); },
          nb::arg("other"), nb::kw_only(), nb::arg("rounding_mode").none() = nb::none());
  cls.def("true_divide", [](const Tensor& a, const Operand& b) { return div(a, b); }, nb::arg("other"));
  auto div_ = [](const Tensor& a, const Operand& b, std::optional<std::string> mode) {
    if (!mode) return binary_(BinaryOp::Div, a, b);
    if (*mode == "trunc") return binary_(BinaryOp::TruncDiv, a, b);
    if (*mode == "floor") return binary_(BinaryOp::FloorDiv, a, b);
    return write_result_(a, div(a, b, mode), "div_");  // raises on the bad mode
  };
  cls.def("div_", div_, nb::arg("other"), nb::kw_only(), nb::arg("rounding_mode").none() = nb::none());
  cls.def("divide_", div_, nb::arg("other"), nb::kw_only(), nb::arg("rounding_mode").none() = nb::none());
  cls.def("true_divide_", [](const Tensor& a, const Operand& b) { return binary_(BinaryOp::Div, a, b); }, nb::arg("other"));

  // ---- float_power (float64 / complex128)
  m.def("float_power", [](const Operand& a, const Operand& b) { return float_power(a, b); }, nb::arg("input"),
        nb::arg("exponent"));
  cls.def("float_power", [](const Tensor& a, const Operand& b) { return float_power(a, b); }, nb::arg("exponent"));
  cls.def("float_power_", [](const Tensor& a, const Operand& b) {
    Tensor r = float_power(a, b);
    LUCID_CHECK(r->dtype() == a->dtype(), DtypeMismatch,
                "[float_power_] the base given to float_power_ has dtype " << dtype_name(a->dtype())
                    << " but the operation's result requires dtype " << dtype_name(r->dtype()));
    return write_result_(a, r, "float_power_");
  }, nb::arg("exponent"));

  // ---- where
  m.def("where", [](const Tensor& c, const Operand& a, const Operand& b) { return where(c, a, b); },
        nb::arg("condition"), nb::arg("input"), nb::arg("other"));
  // where(condition) alone: the coordinates of its non-zero elements (nonzero(as_tuple=True))
  m.def("where", [](const Tensor& c) {
    std::vector<Tensor> idx = nonzero_tuple(c);
    nb::list l;
    for (auto& t : idx) l.append(nb::cast(t));
    return nb::tuple(l);
  }, nb::arg("condition"));
  cls.def("where", [](const Tensor& self, const Tensor& c, const Operand& b) { return where(c, self, b); },
          nb::arg("condition"), nb::arg("other"));

  // ---- lerp, addcmul, addcdiv
  m.def("lerp", [](const Tensor& s, const Tensor& e, const Operand& w) { return lerp(s, e, w); }, nb::arg("input"),
        nb::arg("end"), nb::arg("weight"));
  cls.def("lerp", [](const Tensor& s, const Tensor& e, const Operand& w) { return lerp(s, e, w); }, nb::arg("end"),
          nb::arg("weight"));
  cls.def("lerp_", [](const Tensor& s, const Tensor& e, const Operand& w) { return write_result_(s, lerp(s, e, w), "lerp_"); },
          nb::arg("end"), nb::arg("weight"));
  const Scalar one = Scalar::from_int(1);
  m.def("addcmul", [](const Tensor& s, const Tensor& a, const Tensor& b, const Scalar& v) { return addcmul(s, a, b, v); },
        nb::arg("input"), nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = one);
  m.def("addcdiv", [](const Tensor& s, const Tensor& a, const Tensor& b, const Scalar& v) { return addcdiv(s, a, b, v); },
        nb::arg("input"), nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = one);
  cls.def("addcmul", [](const Tensor& s, const Tensor& a, const Tensor& b, const Scalar& v) { return addcmul(s, a, b, v); },
          nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = one);
  cls.def("addcdiv", [](const Tensor& s, const Tensor& a, const Tensor& b, const Scalar& v) { return addcdiv(s, a, b, v); },
          nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = one);
  cls.def("addcmul_", [](const Tensor& s, const Tensor& a, const Tensor& b, const Scalar& v) {
    return write_result_(s, addcmul(s, a, b, v), "addcmul_");
  }, nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = one);
  cls.def("addcdiv_", [](const Tensor& s, const Tensor& a, const Tensor& b, const Scalar& v) {
    return write_result_(s, addcdiv(s, a, b, v), "addcdiv_");
  }, nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = one);

  // ---- closeness and equality
  m.def("isclose", [](const Tensor& a, const Tensor& b, double rtol, double atol, bool nan) {
    return isclose(a, b, rtol, atol, nan);
  }, nb::arg("input"), nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8, nb::arg("equal_nan") = false);
  cls.def("isclose", [](const Tensor& a, const Tensor& b, double rtol, double atol, bool nan) {
    return isclose(a, b, rtol, atol, nan);
  }, nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8, nb::arg("equal_nan") = false);
  m.def("allclose", [](const Tensor& a, const Tensor& b, double rtol, double atol, bool nan) {
    return allclose(a, b, rtol, atol, nan);
  }, nb::arg("input"), nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8, nb::arg("equal_nan") = false);
  cls.def("allclose", [](const Tensor& a, const Tensor& b, double rtol, double atol, bool nan) {
    return allclose(a, b, rtol, atol, nan);
  }, nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8, nb::arg("equal_nan") = false);
  m.def("equal", [](const Tensor& a, const Tensor& b) { return equal(a, b); }, nb::arg("input"), nb::arg("other"));
  cls.def("equal", [](const Tensor& a, const Tensor& b) { return equal(a, b); }, nb::arg("other"));

  // ---- complex numbers from parts
  m.def("complex", [](const Tensor& r, const Tensor& i) { return complex(r, i); }, nb::arg("real"), nb::arg("imag"));
  m.def("polar", [](const Tensor& a, const Tensor& t) { return polar(a, t); }, nb::arg("abs"), nb::arg("angle"));
}

LUCID_BINDINGS(init_binary)

}  // namespace lucid::py
