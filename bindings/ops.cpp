// Arithmetic, reductions, matmul, copies and casts, bound on the Tensor class and the module.
#include "bindings/common.h"
#include "bindings/shape_args.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/matmul.h"
#include "ops/reduce.h"
#include "ops/unary.h"

namespace lucid::py {

namespace {

std::optional<std::vector<int64_t>> dims_arg(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  if (PyLong_Check(h.ptr()) || PyIndex_Check(h.ptr())) return std::vector<int64_t>{nb::cast<int64_t>(nb::int_(h))};
  return nb::cast<std::vector<int64_t>>(h);
}

}  // namespace

void init_ops(nb::module_& m) {
  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  using B = BinaryOp;
  // ---- dunders (NotImplemented on foreign operands, so Python tries the reflected op)
  cls.def("__add__", [](const Tensor& a, const Operand& b) { return add(a, b); }, nb::is_operator())
      .def("__radd__", [](const Tensor& a, const Scalar& b) { return add(b, a); }, nb::is_operator())
      .def("__sub__", [](const Tensor& a, const Operand& b) { return sub(a, b); }, nb::is_operator())
      .def("__rsub__", [](const Tensor& a, const Scalar& b) { return sub(b, a); }, nb::is_operator())
      .def("__mul__", [](const Tensor& a, const Operand& b) { return mul(a, b); }, nb::is_operator())
      .def("__rmul__", [](const Tensor& a, const Scalar& b) { return mul(b, a); }, nb::is_operator())
      .def("__truediv__", [](const Tensor& a, const Operand& b) { return div(a, b); }, nb::is_operator())
      .def("__rtruediv__", [](const Tensor& a, const Scalar& b) { return div(b, a); }, nb::is_operator())
      .def("__iadd__", [](const Tensor& a, const Operand& b) { return binary_(B::Add, a, b); }, nb::is_operator())
      .def("__isub__", [](const Tensor& a, const Operand& b) { return binary_(B::Sub, a, b); }, nb::is_operator())
      .def("__imul__", [](const Tensor& a, const Operand& b) { return binary_(B::Mul, a, b); }, nb::is_operator())
      .def("__itruediv__", [](const Tensor& a, const Operand& b) { return binary_(B::Div, a, b); }, nb::is_operator())
      .def("__matmul__", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, nb::is_operator())
      .def("__neg__", [](const Tensor& a) { return neg(a); })
      .def("__pos__", [](const Tensor& a) { return a; })
      // ---- named methods
      .def("add", [](const Tensor& a, const Operand& b, const Scalar& alpha) { return add(a, b, alpha); },
           nb::arg("other"), nb::kw_only(), nb::arg("alpha") = Scalar::from_int(1))
      .def("sub", [](const Tensor& a, const Operand& b, const Scalar& alpha) { return sub(a, b, alpha); },
           nb::arg("other"), nb::kw_only(), nb::arg("alpha") = Scalar::from_int(1))
      .def("mul", [](const Tensor& a, const Operand& b) { return mul(a, b); }, nb::arg("other"))
      .def("div", [](const Tensor& a, const Operand& b) { return div(a, b); }, nb::arg("other"))
      .def("add_", [](const Tensor& a, const Operand& b, const Scalar& alpha) { return binary_(B::Add, a, b, alpha); },
           nb::arg("other"), nb::kw_only(), nb::arg("alpha") = Scalar::from_int(1))
      .def("sub_", [](const Tensor& a, const Operand& b, const Scalar& alpha) { return binary_(B::Sub, a, b, alpha); },
           nb::arg("other"), nb::kw_only(), nb::arg("alpha") = Scalar::from_int(1))
      .def("mul_", [](const Tensor& a, const Operand& b) { return binary_(B::Mul, a, b); }, nb::arg("other"))
      .def("div_", [](const Tensor& a, const Operand& b) { return binary_(B::Div, a, b); }, nb::arg("other"))
      .def("fill_", [](const Tensor& a, const Operand& v) {
        if (auto* t = std::get_if<Tensor>(&v)) {
          LUCID_CHECK((*t)->dim() == 0, ShapeMismatch,
                      "[fill_] only supports 0-dimension value tensor but got tensor with " << (*t)->dim() << " dimensions");
          copy_(a, *t);
        } else {
          fill_(a, std::get<Scalar>(v));
        }
        return a;
      }, nb::arg("value"))
      .def("zero_", [](const Tensor& a) { fill_(a, Scalar::from_int(0)); return a; })
      .def("copy_", [](const Tensor& a, const Tensor& src, bool) { copy_(a, src); return a; },
           nb::arg("src"), nb::arg("non_blocking") = false)
      .def("matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, nb::arg("other"))
      .def("_sum", [](const Tensor& t, nb::handle dim, bool keepdim, std::optional<Dtype> dtype) {
        return sum(t, dims_arg(dim), keepdim, dtype);
      }, nb::arg("dim").none(), nb::arg("keepdim"), nb::arg("dtype").none())
      .def("_to", [](const Tensor& t, std::optional<Dtype> dtype, std::optional<Device> device, bool copy) {
        return to(t, dtype, device, copy);
      }, nb::arg("dtype").none(), nb::arg("device").none(), nb::arg("copy"))
      .def("pin_memory", [](const Tensor& t) { return pin_memory(t); })
      .def("is_pinned", [](const Tensor& t) { return is_pinned(t); });

  // The unary family: lucid.exp(x) and x.exp(), one binding each (no Python-side dispatch).
  for (int i = 0; i <= int(UnaryOp::Frac); ++i) {
    const UnaryOp op = UnaryOp(i);
    m.def(unary_name(op), [op](const Tensor& x) { return unary(op, x); }, nb::arg("input"));
    cls.def(unary_name(op), [op](const Tensor& x) { return unary(op, x); });
  }
  m.def("add", [](const Operand& a, const Operand& b, const Scalar& alpha) { return add(a, b, alpha); },
        nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("alpha") = Scalar::from_int(1));
  m.def("sub", [](const Operand& a, const Operand& b, const Scalar& alpha) { return sub(a, b, alpha); },
        nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("alpha") = Scalar::from_int(1));
  m.def("mul", [](const Operand& a, const Operand& b) { return mul(a, b); }, nb::arg("input"), nb::arg("other"));
  m.def("div", [](const Operand& a, const Operand& b) { return div(a, b); }, nb::arg("input"), nb::arg("other"));
  m.def("matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, nb::arg("input"), nb::arg("other"));
  m.def("_sum", [](const Tensor& t, nb::handle dim, bool keepdim, std::optional<Dtype> dtype) {
    return sum(t, dims_arg(dim), keepdim, dtype);
  }, nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"), nb::arg("dtype").none());
}

}  // namespace lucid::py
