// The Tensor class: metadata, views, basic indexing and host readers.
#include <nanobind/stl/tuple.h>

#include "bindings/common.h"
#include "bindings/shape_args.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/host.h"
#include "ops/view.h"

namespace lucid::py {

namespace {

nb::tuple to_tuple(const std::vector<int64_t>& v) {
  nb::list l;
  for (auto x : v) l.append(x);
  return nb::tuple(l);
}

nb::object tolist_rec(const char* p, Dtype dt, const Shape& shape, const Strides& st, size_t d) {
  if (d == shape.size()) {
    return dispatch_dtype(dt, [&]<typename T>() -> nb::object {
      const T v = *reinterpret_cast<const T*>(p);
      if constexpr (std::is_same_v<T, bool>) return nb::bool_(v);
      else if constexpr (std::is_same_v<T, c64> || std::is_same_v<T, c128>)
        return nb::steal(PyComplex_FromDoubles(double(v.re), double(v.im)));
      else if constexpr (std::is_integral_v<T>) return nb::int_(int64_t(v));
      else return nb::float_(double(v));
    });
  }
  nb::list l;
  const int64_t step = st[d] * itemsize(dt);
  for (int64_t i = 0; i < shape[d]; ++i) l.append(tolist_rec(p + i * step, dt, shape, st, d + 1));
  return l;
}

}  // namespace

// Indexing with PyTorch's rules (basic and advanced): bindings/indexing.cpp.
Tensor tensor_getitem(const Tensor& self, nb::handle index);
void tensor_setitem(const Tensor& self, nb::handle index, nb::handle value);

void init_tensor(nb::module_& m) {
  nb::class_<TensorImpl> cls(m, "Tensor", nb::dynamic_attr());
  // lucid.Tensor(data) / lucid.Tensor(*size): argument parsing lives in lucid/_tensor.py.
  cls.def(nb::new_([](nb::args args, nb::kwargs kwargs) {
    nb::object factory = nb::module_::import_("lucid._tensor").attr("_tensor_new");
    return nb::cast<Tensor>(factory(*args, **kwargs));
  }));
  cls.def_prop_ro("shape", [](const TensorImpl& t) { return to_tuple(t.shape()); })
      .def("size", [](const TensorImpl& t, std::optional<int64_t> d) -> nb::object {
        if (d) return nb::int_(t.size(*d));
        return to_tuple(t.shape());
      }, nb::arg("dim") = nb::none())
      .def_prop_ro("dtype", [](const TensorImpl& t) { return t.dtype(); })
      .def_prop_ro("device", [](const TensorImpl& t) { return t.device(); })
      .def_prop_ro("is_cuda", [](const TensorImpl& t) { return t.device().is_cuda(); })
      .def_prop_ro("is_cpu", [](const TensorImpl& t) { return t.device().is_cpu(); })
      .def_prop_ro("ndim", &TensorImpl::dim)
      .def("dim", &TensorImpl::dim)
      .def("ndimension", &TensorImpl::dim)
      .def("numel", &TensorImpl::numel)
      .def("nelement", &TensorImpl::numel)
      .def_prop_ro("nbytes", &TensorImpl::nbytes)
      .def_prop_ro("itemsize", &TensorImpl::element_size)
      .def("element_size", &TensorImpl::element_size)
      .def("stride", [](const TensorImpl& t, std::optional<int64_t> d) -> nb::object {
        if (d) return nb::int_(t.stride(*d));
        return to_tuple(t.strides());
      }, nb::arg("dim") = nb::none())
      .def("storage_offset", &TensorImpl::storage_offset)
      .def("is_contiguous", [](const TensorImpl& t) { return t.is_contiguous(); })
      .def("data_ptr", [](const TensorImpl& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def("_storage_ptr", [](const TensorImpl& t) { return reinterpret_cast<uintptr_t>(t.storage()->data()); })
      .def("_storage_nbytes", [](const TensorImpl& t) { return t.storage()->nbytes(); })
      .def_prop_ro("_version", &TensorImpl::version)
      .def("_bump_version", &TensorImpl::bump_version)
      .def("_has_internal_overlap", &TensorImpl::has_internal_overlap)
      .def("_is_view_of", [](const TensorImpl& a, const TensorImpl& b) { return a.storage() == b.storage(); })
      .def("_has_autograd_meta", [](const TensorImpl& t) { return t.autograd_meta() != nullptr; })
      // autograd fields (the engine arrives with the autograd issue)
      .def_prop_rw("requires_grad", &TensorImpl::requires_grad, [](TensorImpl& t, bool v) {
        LUCID_CHECK(!v || is_floating(t.dtype()) || is_complex(t.dtype()), Generic,
                    "only Tensors of floating point and complex dtype can require gradients (got " << dtype_name(t.dtype()) << ")");
        LUCID_CHECK(!(t.autograd_meta() && t.autograd_meta()->grad_fn) || v, Generic,
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
        if (v || t.autograd_meta()) t.ensure_autograd_meta().requires_grad = v;
      })
      .def_prop_ro("is_leaf", [](const TensorImpl& t) { return !t.autograd_meta() || !t.autograd_meta()->grad_fn; })
      .def_prop_ro("retains_grad", [](const TensorImpl& t) { return t.autograd_meta() && t.autograd_meta()->retains_grad; })
      .def_prop_rw("grad", [](const TensorImpl& t) -> Tensor { return t.autograd_meta() ? t.autograd_meta()->grad : nullptr; },
                   [](TensorImpl& t, std::optional<Tensor> g) {
                     if (g && *g) {
                       LUCID_CHECK((*g)->shape() == t.shape(), ShapeMismatch,
                                   "assigned grad has shape " << shape_str((*g)->shape()) << " but the tensor has shape " << shape_str(t.shape()));
                       LUCID_CHECK((*g)->device() == t.device(), DeviceMismatch,
                                   "assigned grad is on " << (*g)->device() << " but the tensor is on " << t.device());
                       LUCID_CHECK((*g)->dtype() == t.dtype(), DtypeMismatch,
                                   "assigned grad has dtype " << dtype_name((*g)->dtype()) << " but the tensor has " << dtype_name(t.dtype()));
                       t.ensure_autograd_meta().grad = *g;
                     } else if (t.autograd_meta()) {
                       t.autograd_meta()->grad = nullptr;
                     }
                   }, nb::arg("value").none())
      // host readers
      .def("item", [](const Tensor& t) { return item(t); })
      .def("tolist", [](const Tensor& t) {
        Tensor h = to_host_contiguous(t);
        return tolist_rec(static_cast<const char*>(h->data_ptr()), h->dtype(), h->shape(), h->strides(), 0);
      })
      .def("to_bytes", [](const Tensor& t) {
        const std::string s = to_bytes(t);
        return nb::bytes(s.data(), s.size());
      })
      .def("_repr_data", [](const Tensor& t, int indent) { return format_data(t, indent); }, nb::arg("indent") = 7)
      // views
      .def("view", [](const Tensor& t, nb::args a) {
        if (a.size() == 1 && nb::isinstance<DtypeObj>(a[0])) return view_dtype(t, nb::cast<Dtype>(a[0]));
        return view(t, shape_from_args(a, "view"));
      })
      .def("reshape", [](const Tensor& t, nb::args a) { return reshape(t, shape_from_args(a, "reshape")); })
      .def("view_as", [](const Tensor& t, const Tensor& o) { return view(t, o->shape()); })
      .def("reshape_as", [](const Tensor& t, const Tensor& o) { return reshape(t, o->shape()); })
      .def("flatten", [](const Tensor& t, int64_t s, int64_t e) { return flatten(t, s, e); },
           nb::arg("start_dim") = 0, nb::arg("end_dim") = -1)
      .def("permute", [](const Tensor& t, nb::args a) { return permute(t, shape_from_args(a, "permute")); })
      .def("transpose", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); }, nb::arg("dim0"), nb::arg("dim1"))
      .def("swapaxes", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); })
      .def("swapdims", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); })
      .def("t", [](const Tensor& t) {
        LUCID_CHECK(t->dim() <= 2, ShapeMismatch, "[t] expects a tensor with <= 2 dimensions, but self is " << t->dim() << "D");
        return t_(t);
      })
      .def_prop_ro("T", [](const Tensor& t) { return t_(t); })
      .def_prop_ro("mT", [](const Tensor& t) { return matrix_transpose(t); })
      .def("squeeze", [](const Tensor& t, nb::object dim) {
        if (dim.is_none()) return squeeze(t, std::nullopt);
        if (PyLong_Check(dim.ptr())) return squeeze(t, std::vector<int64_t>{nb::cast<int64_t>(dim)});
        return squeeze(t, nb::cast<std::vector<int64_t>>(dim));
      }, nb::arg("dim") = nb::none())
      .def("unsqueeze", [](const Tensor& t, int64_t d) { return unsqueeze(t, d); }, nb::arg("dim"))
      .def("expand", [](const Tensor& t, nb::args a) { return expand(t, shape_from_args(a, "expand")); })
      .def("expand_as", [](const Tensor& t, const Tensor& o) { return expand(t, o->shape()); })
      .def("broadcast_to", [](const Tensor& t, std::vector<int64_t> s) { return expand(t, s, "broadcast_to"); }, nb::arg("size"))
      .def("narrow", [](const Tensor& t, int64_t d, int64_t s, int64_t l) { return narrow(t, d, s, l); },
           nb::arg("dim"), nb::arg("start"), nb::arg("length"))
      .def("select", [](const Tensor& t, int64_t d, int64_t i) { return select(t, d, i); }, nb::arg("dim"), nb::arg("index"))
      .def("unfold", [](const Tensor& t, int64_t d, int64_t s, int64_t st) { return unfold(t, d, s, st); },
           nb::arg("dimension"), nb::arg("size"), nb::arg("step"))
      .def("as_strided", [](const Tensor& t, std::vector<int64_t> s, std::vector<int64_t> st, std::optional<int64_t> o) {
        return as_strided(t, s, st, o);
      }, nb::arg("size"), nb::arg("stride"), nb::arg("storage_offset") = nb::none())
      .def("diagonal", [](const Tensor& t, int64_t o, int64_t a, int64_t b) { return diagonal(t, o, a, b); },
           nb::arg("offset") = 0, nb::arg("dim1") = 0, nb::arg("dim2") = 1)
      .def("contiguous", [](const Tensor& t) { return contiguous(t); })
      .def("clone", [](const Tensor& t) { return clone(t); })
      .def("detach", [](const Tensor& t) { return alias(t); })
      // .data: the values without autograd (as detach(); the version counter is shared, since it
      // lives in the storage). Assigning swaps in another tensor's data, keeping this tensor's identity.
      .def_prop_rw("data", [](const Tensor& t) { return alias(t); }, [](TensorImpl& t, const Tensor& other) {
        LUCID_CHECK(!t.requires_grad() || is_floating(other->dtype()) || is_complex(other->dtype()), DtypeMismatch,
                    "data set to a tensor of dtype " << dtype_name(other->dtype())
                                                     << ", which cannot require gradients, on a tensor that requires grad");
        t.set_data(*other);
      })
      .def("__getitem__", [](const Tensor& t, nb::handle idx) { return tensor_getitem(t, idx); }, nb::arg("index").none())
      .def("__setitem__", [](const Tensor& t, nb::handle idx, nb::handle value) { tensor_setitem(t, idx, value); },
           nb::arg("index").none(), nb::arg("value").none())
      .def("__len__", [](const TensorImpl& t) {
        LUCID_CHECK(t.dim() > 0, Type, "len() of a 0-d tensor");
        return t.shape()[0];
      });
}

}  // namespace lucid::py
