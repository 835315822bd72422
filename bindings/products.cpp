// The products family (mm, bmm, mv, dot, vdot, inner, outer/ger, tensordot, einsum, kron, cross,
// addmm/addmv/addr/addbmm/baddbmm and their in-place forms, multi_dot, chain_matmul, cdist, vecdot).
#include <cmath>

#include "bindings/common.h"
#include "ops/copy.h"
#include "ops/products.h"

namespace lucid::py {

namespace {

Scalar one() { return Scalar::from_int(1); }

// x.addmm_(...): the out-of-place result written back into x (same shape, no dtype change).
Tensor write_back(const char* op, const Tensor& self, const Tensor& r) {
  LUCID_CHECK(r->shape() == self->shape(), ShapeMismatch,
              "[" << op << "] the result of shape " << shape_str(r->shape()) << " does not fit self of shape "
                  << shape_str(self->shape()));
  LUCID_CHECK(r->dtype() == self->dtype(), DtypeMismatch,
              "[" << op << "] result type " << dtype_name(r->dtype()) << " can't be cast to the desired output type "
                  << dtype_name(self->dtype()));
  copy_(self, r);
  return self;
}

std::vector<int64_t> int_list(nb::handle h) {
  if (PyLong_Check(h.ptr()) || PyIndex_Check(h.ptr())) return {nb::cast<int64_t>(nb::int_(h))};
  return nb::cast<std::vector<int64_t>>(h);
}

Tensor tensordot_py(const Tensor& a, const Tensor& b, nb::handle dims) {
  if (nb::isinstance<Tensor>(dims)) dims = nb::handle(dims.attr("tolist")().release());
  if (PyLong_Check(dims.ptr()) || PyIndex_Check(dims.ptr())) return tensordot(a, b, nb::cast<int64_t>(nb::int_(dims)));
  nb::sequence seq = nb::borrow<nb::sequence>(dims);
  LUCID_CHECK(nb::len(seq) == 2, Type,
              "[tensordot] dims must be an int or a pair of dimension lists, got a sequence of " << nb::len(seq));
  return tensordot(a, b, int_list(seq[0]), int_list(seq[1]));
}

int compute_mode_arg(const std::optional<std::string>& mode) {
  if (!mode || *mode == "use_mm_for_euclid_dist_if_necessary") return 0;
  if (*mode == "use_mm_for_euclid_dist") return 1;
  if (*mode == "donot_use_mm_for_euclid_dist") return 2;
  LUCID_FAIL(Value, "[cdist] " << *mode << " is not a valid value for compute_mode");
}

}  // namespace

void init_products(nb::module_& m) {
  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  using T = const Tensor&;
  // ---- module functions
  m.def("mm", [](T a, T b) { return mm(a, b); }, nb::arg("input"), nb::arg("mat2"));
  m.def("bmm", [](T a, T b) { return bmm(a, b); }, nb::arg("input"), nb::arg("mat2"));
  m.def("mv", [](T a, T b) { return mv(a, b); }, nb::arg("input"), nb::arg("vec"));
  m.def("dot", [](T a, T b) { return dot(a, b); }, nb::arg("input"), nb::arg("tensor"));
  m.def("vdot", [](T a, T b) { return vdot(a, b); }, nb::arg("input"), nb::arg("other"));
  m.def("inner", [](T a, T b) { return inner(a, b); }, nb::arg("input"), nb::arg("other"));
  m.def("outer", [](T a, T b) { return outer(a, b); }, nb::arg("input"), nb::arg("vec2"));
  m.def("ger", [](T a, T b) { return outer(a, b); }, nb::arg("input"), nb::arg("vec2"));
  m.def("kron", [](T a, T b) { return kron(a, b); }, nb::arg("input"), nb::arg("other"));
  m.def("tensordot", &tensordot_py, nb::arg("a"), nb::arg("b"), nb::arg("dims") = 2);
  m.def("_einsum", [](const std::string& eq, const std::vector<Tensor>& ops) { return einsum(eq, ops); },
        nb::arg("equation"), nb::arg("operands"));
  m.def("cross", [](T a, T b, std::optional<int64_t> dim) { return cross(a, b, dim, "cross"); }, nb::arg("input"),
        nb::arg("other"), nb::arg("dim").none() = nb::none());
  m.def("_linalg_cross", [](T a, T b, int64_t dim) { return cross(a, b, dim, "linalg.cross"); }, nb::arg("input"),
        nb::arg("other"), nb::kw_only(), nb::arg("dim") = -1);
  m.def("addmm", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) { return addmm(i, a, b, beta, alpha); },
        nb::arg("input"), nb::arg("mat1"), nb::arg("mat2"), nb::kw_only(), nb::arg("beta") = one(),
        nb::arg("alpha") = one());
  m.def("addmv", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) { return addmv(i, a, b, beta, alpha); },
        nb::arg("input"), nb::arg("mat"), nb::arg("vec"), nb::kw_only(), nb::arg("beta") = one(),
        nb::arg("alpha") = one());
  m.def("addr", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) { return addr(i, a, b, beta, alpha); },
        nb::arg("input"), nb::arg("vec1"), nb::arg("vec2"), nb::kw_only(), nb::arg("beta") = one(),
        nb::arg("alpha") = one());
  m.def("addbmm", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) { return addbmm(i, a, b, beta, alpha); },
        nb::arg("input"), nb::arg("batch1"), nb::arg("batch2"), nb::kw_only(), nb::arg("beta") = one(),
        nb::arg("alpha") = one());
  m.def("baddbmm", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) { return baddbmm(i, a, b, beta, alpha); },
        nb::arg("input"), nb::arg("batch1"), nb::arg("batch2"), nb::kw_only(), nb::arg("beta") = one(),
        nb::arg("alpha") = one());
  m.def("_multi_dot", [](const std::vector<Tensor>& ts) { return multi_dot(ts); }, nb::arg("tensors"));
  m.def("_chain_matmul", [](const std::vector<Tensor>& ts) { return chain_matmul(ts); }, nb::arg("matrices"));
  m.def("_vecdot", [](T x, T y, int64_t dim) { return vecdot(x, y, dim); }, nb::arg("x"), nb::arg("y"), nb::kw_only(),
        nb::arg("dim") = -1);
  m.def("cdist", [](T a, T b, double p, const std::optional<std::string>& mode) {
    return cdist(a, b, p, compute_mode_arg(mode));
  }, nb::arg("x1"), nb::arg("x2"), nb::arg("p") = 2.0,
        nb::arg("compute_mode").none() = "use_mm_for_euclid_dist_if_necessary");

  m.def("_vector_norm", [](T x, double ord, std::optional<std::vector<int64_t>> dim, bool keepdim,
                          std::optional<Dtype> dtype) { return vector_norm(x, ord, dim, keepdim, dtype); },
        nb::arg("x"), nb::arg("ord"), nb::arg("dim").none(), nb::arg("keepdim"), nb::arg("dtype").none());
  m.def("_matrix_norm", [](T a, const std::string& ord, const std::vector<int64_t>& dim, bool keepdim,
                           std::optional<Dtype> dtype) { return matrix_norm(a, ord, dim, keepdim, dtype); },
        nb::arg("A"), nb::arg("ord"), nb::arg("dim"), nb::arg("keepdim"), nb::arg("dtype").none());

  // ---- Tensor methods
  cls.def("mm", [](T a, T b) { return mm(a, b); }, nb::arg("mat2"))
      .def("bmm", [](T a, T b) { return bmm(a, b); }, nb::arg("mat2"))
      .def("mv", [](T a, T b) { return mv(a, b); }, nb::arg("vec"))
      .def("dot", [](T a, T b) { return dot(a, b); }, nb::arg("tensor"))
      .def("vdot", [](T a, T b) { return vdot(a, b); }, nb::arg("other"))
      .def("inner", [](T a, T b) { return inner(a, b); }, nb::arg("other"))
      .def("outer", [](T a, T b) { return outer(a, b); }, nb::arg("vec2"))
      .def("ger", [](T a, T b) { return outer(a, b); }, nb::arg("vec2"))
      .def("kron", [](T a, T b) { return kron(a, b); }, nb::arg("other"))
      .def("cross", [](T a, T b, std::optional<int64_t> dim) { return cross(a, b, dim, "cross"); }, nb::arg("other"),
           nb::arg("dim").none() = nb::none())
      .def("addmm", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) { return addmm(i, a, b, beta, alpha); },
           nb::arg("mat1"), nb::arg("mat2"), nb::kw_only(), nb::arg("beta") = one(), nb::arg("alpha") = one())
      .def("addmv", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) { return addmv(i, a, b, beta, alpha); },
           nb::arg("mat"), nb::arg("vec"), nb::kw_only(), nb::arg("beta") = one(), nb::arg("alpha") = one())
      .def("addr", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) { return addr(i, a, b, beta, alpha); },
           nb::arg("vec1"), nb::arg("vec2"), nb::kw_only(), nb::arg("beta") = one(), nb::arg("alpha") = one())
      .def("addbmm", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) { return addbmm(i, a, b, beta, alpha); },
           nb::arg("batch1"), nb::arg("batch2"), nb::kw_only(), nb::arg("beta") = one(), nb::arg("alpha") = one())
      .def("baddbmm",
           [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) { return baddbmm(i, a, b, beta, alpha); },
           nb::arg("batch1"), nb::arg("batch2"), nb::kw_only(), nb::arg("beta") = one(), nb::arg("alpha") = one())
      .def("addmm_", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) {
        return write_back("addmm_", i, addmm(i, a, b, beta, alpha));
      }, nb::arg("mat1"), nb::arg("mat2"), nb::kw_only(), nb::arg("beta") = one(), nb::arg("alpha") = one())
      .def("addmv_", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) {
        return write_back("addmv_", i, addmv(i, a, b, beta, alpha));
      }, nb::arg("mat"), nb::arg("vec"), nb::kw_only(), nb::arg("beta") = one(), nb::arg("alpha") = one())
      .def("addr_", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) {
        return write_back("addr_", i, addr(i, a, b, beta, alpha));
      }, nb::arg("vec1"), nb::arg("vec2"), nb::kw_only(), nb::arg("beta") = one(), nb::arg("alpha") = one())
      .def("addbmm_", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) {
        return write_back("addbmm_", i, addbmm(i, a, b, beta, alpha));
      }, nb::arg("batch1"), nb::arg("batch2"), nb::kw_only(), nb::arg("beta") = one(), nb::arg("alpha") = one())
      .def("baddbmm_", [](T i, T a, T b, const Scalar& beta, const Scalar& alpha) {
        return write_back("baddbmm_", i, baddbmm(i, a, b, beta, alpha));
      }, nb::arg("batch1"), nb::arg("batch2"), nb::kw_only(), nb::arg("beta") = one(), nb::arg("alpha") = one());
}

LUCID_BINDINGS(init_products)

}  // namespace lucid::py
