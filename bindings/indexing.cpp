// The indexing family: Tensor.__getitem__/__setitem__ (PyTorch's indexing rules) and the gather /
// scatter / index_* / masked_* / take / put / nonzero / one_hot functions and methods.
#include <nanobind/stl/tuple.h>

#include "bindings/common.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/indexing.h"
#include "ops/view.h"

namespace lucid::py {

namespace {

bool is_tensor(nb::handle h) { return nb::isinstance<TensorImpl>(h); }

// An index object that is neither an int, slice, None, Ellipsis, bool nor tensor: a (nested)
// sequence or array, made a tensor on `dev`. Empty sequences index as int64 (as PyTorch).
Tensor sequence_to_tensor(nb::handle h, Device dev) {
  static PyObject* tensor_fn = nb::object(nb::module_::import_("lucid").attr("tensor")).release().ptr();  // kept for the process
  Tensor t = nb::cast<Tensor>(nb::handle(tensor_fn)(h, nb::arg("device") = nb::cast(dev)));
  if (t->numel() == 0 && !is_integral(t->dtype(), true)) t = to(t, Dtype::I64, std::nullopt);
  return t;
}

// PyTorch's legacy rule (treatSequenceAsTuple): a short list holding slices, None, Ellipsis,
// tensors or sequences indexes like a tuple (x[[0, 1], [1, 2]] is x[[0, 1], [1, 2]], not a 2-d index).
bool sequence_as_tuple(nb::handle h) {
  if (nb::isinstance<nb::tuple>(h)) return true;
  if (!nb::isinstance<nb::list>(h)) return false;
  nb::list l = nb::borrow<nb::list>(h);
  if (l.size() >= 32) return false;
  for (nb::handle x : l) {
    if (x.is_none() || x.ptr() == Py_Ellipsis || PySlice_Check(x.ptr()) || is_tensor(x)) return true;
    if (PySequence_Check(x.ptr()) && !PyUnicode_Check(x.ptr())) return true;
  }
  return false;
}

struct Parsed {
  Tensor view;                  // self after ints, slices, None, Ellipsis and bools (a view)
  std::vector<Tensor> indices;  // advanced indices for `view` (engine format: a mask consumes its dims)
  bool advanced = false;
};

Parsed parse_index(const Tensor& self, nb::handle index) {
  std::vector<nb::object> items;
  if (sequence_as_tuple(index)) {
    for (nb::handle h : index) items.push_back(nb::borrow(h));
  } else {
    items.push_back(nb::borrow(index));
  }
  // Tensors for the sequence items; count the dims the index specifies.
  std::vector<Tensor> tens(items.size());
  int64_t specified = 0, ellipses = 0;
  for (size_t k = 0; k < items.size(); ++k) {
    nb::handle h = items[k];
    if (h.is_none() || PyBool_Check(h.ptr())) continue;
    if (h.ptr() == Py_Ellipsis) { ++ellipses; continue; }
    if (PySlice_Check(h.ptr()) || PyLong_Check(h.ptr())) { ++specified; continue; }
    if (is_tensor(h)) {
      tens[k] = nb::cast<Tensor>(h);
    } else if (PyIndex_Check(h.ptr()) && !PySequence_Check(h.ptr())) {  // NumPy integers
      ++specified;
      continue;
    } else if (PySequence_Check(h.ptr()) || nb::hasattr(h, "__array__")) {
      tens[k] = sequence_to_tensor(h, self->device());
    } else {
      throw nb::type_error(("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                            "valid indices (got " + nb::cast<std::string>(nb::repr(h)) + ")").c_str());
    }
    const Tensor& t = tens[k];
    const bool mask = t->dtype() == Dtype::Bool || t->dtype() == Dtype::U8;
    specified += mask ? t->dim() : 1;
  }
  LUCID_CHECK(ellipses <= 1, Index, "an index can only have a single ellipsis ('...')");
  LUCID_CHECK(specified <= self->dim(), Index,
              "too many indices for tensor of dimension " << self->dim() << " (got " << specified << ")");
  Parsed p;
  Tensor t = self;
  int64_t dim = 0;
  // p.indices is kept aligned with t's dims up to `dim` (masks excepted: they stand for several).
  int64_t entry_dims = 0;  // dims of t covered by p.indices
  auto pad = [&] {
    while (entry_dims < dim) { p.indices.push_back(nullptr); ++entry_dims; }
  };
  auto push_mask_value = [&](bool v) {  // a scalar bool: a new dim of size 1 (True) or 0 (False)
    t = unsqueeze(t, dim);
    pad();
    p.indices.push_back(v ? zeros({1}, Dtype::I64, self->device()) : zeros({0}, Dtype::I64, self->device()));
    p.advanced = true;
    ++dim;
    ++entry_dims;
  };
  for (size_t k = 0; k < items.size(); ++k) {
    nb::handle h = items[k];
    if (h.is_none()) {
      t = unsqueeze(t, dim);
      ++dim;
      continue;
    }
    if (h.ptr() == Py_Ellipsis) {
      dim += self->dim() - specified;
      continue;
    }
    if (PyBool_Check(h.ptr())) {
      push_mask_value(h.ptr() == Py_True);
      continue;
    }
    if (PySlice_Check(h.ptr())) {
      Py_ssize_t start, stop, step;
      auto* sl = reinterpret_cast<PySliceObject*>(h.ptr());
      if (PySlice_Unpack(h.ptr(), &start, &stop, &step) < 0) throw nb::python_error();
      LUCID_CHECK(step > 0, Value, "step must be greater than zero");
      std::optional<int64_t> b, e;
      if (sl->start != Py_None) b = start;
      if (sl->stop != Py_None) e = stop;
      t = slice(t, dim, b, e, step);
      ++dim;
      continue;
    }
    if (!tens[k]) {  // an int
      t = select(t, dim, PyLong_AsLongLong(nb::int_(h).ptr()));
      continue;
    }
    const Tensor& x = tens[k];
    const bool mask = x->dtype() == Dtype::Bool || x->dtype() == Dtype::U8;
    if (x->dim() == 0 && mask) {
      push_mask_value(nb::cast<bool>(nb::cast(x).attr("item")()));
      continue;
    }
    if (x->dim() == 0 && is_integral(x->dtype(), false)) {  // a 0-d integer tensor acts as an int
      t = select(t, dim, nb::cast<int64_t>(nb::cast(x).attr("item")()));
      continue;
    }
    pad();
    p.indices.push_back(x);
    p.advanced = true;
    const int64_t k_dims = mask ? x->dim() : 1;
    dim += k_dims;
    entry_dims += k_dims;
  }
  p.view = t;
  return p;
}

// The value of a __setitem__ as a tensor of dst's dtype, with leading size-1 dims dropped (PyTorch
// lets x[0] = ones(1, 4) write a (4,) row).
Tensor setitem_value(const Tensor& dst, nb::handle value) {
  Tensor v;
  if (is_python_scalar(value)) return full({}, scalar_from_python(value), dst->dtype(), dst->device());
  if (is_tensor(value)) v = nb::cast<Tensor>(value);
  else v = sequence_to_tensor(value, dst->device());
  int64_t lead = 0;
  while (lead < v->dim() && v->shape()[size_t(lead)] == 1) ++lead;
  if (lead) v = reshape(v, Shape(v->shape().begin() + lead, v->shape().end()));
  if (v->dtype() != dst->dtype() || v->device() != dst->device()) v = to(v, dst->dtype(), dst->device());
  return v;
}

std::vector<Tensor> tensor_list(nb::handle h) {
  std::vector<Tensor> out;
  if (is_tensor(h)) {
    out.push_back(nb::cast<Tensor>(h));
    return out;
  }
  for (nb::handle x : h) out.push_back(x.is_none() ? nullptr : nb::cast<Tensor>(x));
  return out;
}

std::string reduce_arg(const std::optional<std::string>& r) { return r.value_or(""); }

}  // namespace

Tensor tensor_getitem(const Tensor& self, nb::handle index) {
  Parsed p = parse_index(self, index);
  if (p.advanced) return lucid::index(p.view, p.indices);
  return p.view == self ? view(self, self->shape()) : p.view;  // x[...] is a (differentiable) view
}

void tensor_setitem(const Tensor& self, nb::handle index, nb::handle value) {
  Parsed p = parse_index(self, index);
  if (!p.advanced) {
    Tensor dst = p.view;
    if (is_python_scalar(value)) fill_(dst, scalar_from_python(value));
    else copy_(dst, setitem_value(dst, value));
    return;
  }
  index_put_(p.view, p.indices, setitem_value(p.view, value), false);
}

void init_indexing(nb::module_& m) {
  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  using T = const Tensor&;

  // ---- gather / scatter
  m.def("gather", [](T x, int64_t dim, T index, bool) { return gather(x, dim, index); }, nb::arg("input"),
        nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false);
  cls.def("gather", [](T x, int64_t dim, T index, bool) { return gather(x, dim, index); }, nb::arg("dim"),
          nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false);
  auto bind_scatter = [&](auto&& def, const char* name, bool inplace) {
    def(name, [inplace](T x, int64_t dim, T index, T src, std::optional<std::string> reduce) {
      return inplace ? scatter_(x, dim, index, src, reduce_arg(reduce)) : scatter(x, dim, index, src, reduce_arg(reduce));
    }, nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::kw_only(), nb::arg("reduce") = nb::none());
    def(name, [inplace](T x, int64_t dim, T index, const Scalar& value, std::optional<std::string> reduce) {
      return inplace ? scatter_(x, dim, index, value, reduce_arg(reduce))
                     : scatter(x, dim, index, value, reduce_arg(reduce));
    }, nb::arg("dim"), nb::arg("index"), nb::arg("value"), nb::kw_only(), nb::arg("reduce") = nb::none());
  };
  auto mdef = [&](const char* name, auto f, auto... extra) { m.def(name, f, nb::arg("input"), extra...); };
  auto cdef = [&](const char* name, auto f, auto... extra) { cls.def(name, f, extra...); };
  bind_scatter(mdef, "scatter", false);
  bind_scatter(cdef, "scatter", false);
  bind_scatter(cdef, "scatter_", true);
  m.def("scatter_add", [](T x, int64_t dim, T index, T src) { return scatter_add(x, dim, index, src); },
        nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("src"));
  cls.def("scatter_add", [](T x, int64_t dim, T index, T src) { return scatter_add(x, dim, index, src); },
          nb::arg("dim"), nb::arg("index"), nb::arg("src"));
  cls.def("scatter_add_", [](T x, int64_t dim, T index, T src) { return scatter_add_(x, dim, index, src); },
          nb::arg("dim"), nb::arg("index"), nb::arg("src"));
  m.def("scatter_reduce", [](T x, int64_t dim, T index, T src, const std::string& reduce, bool include_self) {
    return scatter_reduce(x, dim, index, src, reduce, include_self);
  }, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::arg("reduce"), nb::kw_only(),
        nb::arg("include_self") = true);
  cls.def("scatter_reduce", [](T x, int64_t dim, T index, T src, const std::string& reduce, bool include_self) {
    return scatter_reduce(x, dim, index, src, reduce, include_self);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::arg("reduce"), nb::kw_only(), nb::arg("include_self") = true);
  cls.def("scatter_reduce_", [](T x, int64_t dim, T index, T src, const std::string& reduce, bool include_self) {
    return scatter_reduce_(x, dim, index, src, reduce, include_self);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::arg("reduce"), nb::kw_only(), nb::arg("include_self") = true);

  // ---- index_*
  m.def("index_select", [](T x, int64_t dim, T index) { return index_select(x, dim, index); }, nb::arg("input"),
        nb::arg("dim"), nb::arg("index"));
  cls.def("index_select", [](T x, int64_t dim, T index) { return index_select(x, dim, index); }, nb::arg("dim"),
          nb::arg("index"));
  m.def("index_add", [](T x, int64_t dim, T index, T source, const Scalar& alpha) {
    return index_add(x, dim, index, source, alpha);
  }, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(),
        nb::arg("alpha") = Scalar::from_int(1));
  cls.def("index_add", [](T x, int64_t dim, T index, T source, const Scalar& alpha) {
    return index_add(x, dim, index, source, alpha);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = Scalar::from_int(1));
  cls.def("index_add_", [](T x, int64_t dim, T index, T source, const Scalar& alpha) {
    return index_add_(x, dim, index, source, alpha);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = Scalar::from_int(1));
  m.def("index_copy", [](T x, int64_t dim, T index, T source) { return index_copy(x, dim, index, source); },
        nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("source"));
  cls.def("index_copy", [](T x, int64_t dim, T index, T source) { return index_copy(x, dim, index, source); },
          nb::arg("dim"), nb::arg("index"), nb::arg("source"));
  cls.def("index_copy_", [](T x, int64_t dim, T index, T source) { return index_copy_(x, dim, index, source); },
          nb::arg("dim"), nb::arg("index"), nb::arg("source"));
  m.def("index_fill", [](T x, int64_t dim, T index, const Operand& value) { return index_fill(x, dim, index, value); },
        nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("value"));
  cls.def("index_fill", [](T x, int64_t dim, T index, const Operand& value) { return index_fill(x, dim, index, value); },
          nb::arg("dim"), nb::arg("index"), nb::arg("value"));
  cls.def("index_fill_", [](T x, int64_t dim, T index, const Operand& value) { return index_fill_(x, dim, index, value); },
          nb::arg("dim"), nb::arg("index"), nb::arg("value"));
  m.def("index_put", [](T x, nb::handle indices, T values, bool acc) { return index_put(x, tensor_list(indices), values, acc); },
        nb::arg("input"), nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
  cls.def("index_put", [](T x, nb::handle indices, T values, bool acc) { return index_put(x, tensor_list(indices), values, acc); },
          nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
  m.def("index_put_", [](T x, nb::handle indices, T values, bool acc) { return index_put_(x, tensor_list(indices), values, acc); },
        nb::arg("input"), nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
  cls.def("index_put_", [](T x, nb::handle indices, T values, bool acc) { return index_put_(x, tensor_list(indices), values, acc); },
          nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);

  // ---- masks
  m.def("masked_fill", [](T x, T mask, const Operand& value) { return masked_fill(x, mask, value); }, nb::arg("input"),
        nb::arg("mask"), nb::arg("value"));
  cls.def("masked_fill", [](T x, T mask, const Operand& value) { return masked_fill(x, mask, value); }, nb::arg("mask"),
          nb::arg("value"));
  cls.def("masked_fill_", [](T x, T mask, const Operand& value) { return masked_fill_(x, mask, value); },
          nb::arg("mask"), nb::arg("value"));
  m.def("masked_select", [](T x, T mask) { return masked_select(x, mask); }, nb::arg("input"), nb::arg("mask"));
  cls.def("masked_select", [](T x, T mask) { return masked_select(x, mask); }, nb::arg("mask"));
  m.def("masked_scatter", [](T x, T mask, T source) { return masked_scatter(x, mask, source); }, nb::arg("input"),
        nb::arg("mask"), nb::arg("source"));
  cls.def("masked_scatter", [](T x, T mask, T source) { return masked_scatter(x, mask, source); }, nb::arg("mask"),
          nb::arg("source"));
  cls.def("masked_scatter_", [](T x, T mask, T source) { return masked_scatter_(x, mask, source); }, nb::arg("mask"),
          nb::arg("source"));

  // ---- take / put
  m.def("take", [](T x, T index) { return take(x, index); }, nb::arg("input"), nb::arg("index"));
  cls.def("take", [](T x, T index) { return take(x, index); }, nb::arg("index"));
  m.def("take_along_dim", [](T x, T indices, std::optional<int64_t> dim) { return take_along_dim(x, indices, dim); },
        nb::arg("input"), nb::arg("indices"), nb::arg("dim") = nb::none());
  cls.def("take_along_dim", [](T x, T indices, std::optional<int64_t> dim) { return take_along_dim(x, indices, dim); },
          nb::arg("indices"), nb::arg("dim") = nb::none());
  m.def("put", [](T x, T index, T source, bool acc) { return put(x, index, source, acc); }, nb::arg("input"),
        nb::arg("index"), nb::arg("source"), nb::arg("accumulate") = false);
  cls.def("put", [](T x, T index, T source, bool acc) { return put(x, index, source, acc); }, nb::arg("index"),
          nb::arg("source"), nb::arg("accumulate") = false);
  cls.def("put_", [](T x, T index, T source, bool acc) { return put_(x, index, source, acc); }, nb::arg("index"),
          nb::arg("source"), nb::arg("accumulate") = false);

  // ---- nonzero / argwhere / one_hot
  auto nz = [](T x, bool as_tuple) -> nb::object {
    if (!as_tuple) return nb::cast(nonzero(x));
    nb::list l;
    for (auto& t : nonzero_tuple(x)) l.append(nb::cast(t));
    return nb::tuple(l);
  };
  m.def("nonzero", nz, nb::arg("input"), nb::kw_only(), nb::arg("as_tuple") = false);
  cls.def("nonzero", nz, nb::kw_only(), nb::arg("as_tuple") = false);
  m.def("argwhere", [](T x) { return argwhere(x); }, nb::arg("input"));
  // torch.where(condition) is nonzero(condition, as_tuple=True); chains onto the binary family's where.
  m.def("where", [nz](T cond) { return nz(cond, true); }, nb::arg("condition"));
  cls.def("argwhere", [](T x) { return argwhere(x); });
  m.def("one_hot", [](T x, int64_t n) { return one_hot(x, n); }, nb::arg("tensor"), nb::arg("num_classes") = -1);
}

}  // namespace lucid::py

namespace lucid::py {
LUCID_BINDINGS(init_indexing)
}
