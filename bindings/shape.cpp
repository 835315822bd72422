// The shape family: joining, splitting, reordering, repeating, padding, triangles and diagonals.
// Argument spellings that need Python (varargs, aliases) are in lucid/_shape.py.
#include "bindings/common.h"
#include "bindings/shape_args.h"
#include "ops/shape.h"
#include "ops/view.h"

namespace lucid::py {

namespace {

nb::tuple to_tuple(const std::vector<Tensor>& ts) {
  nb::list l;
  for (const Tensor& t : ts) l.append(nb::cast(t));
  return nb::tuple(l);
}

bool is_int(nb::handle h) { return PyLong_Check(h.ptr()) || (PyIndex_Check(h.ptr()) && !nb::isinstance<TensorImpl>(h)); }

std::vector<int64_t> ints(nb::handle h) {
  if (is_int(h)) return {nb::cast<int64_t>(nb::int_(h))};
  return nb::cast<std::vector<int64_t>>(h);
}

std::vector<int64_t> ints_or_args(nb::args a, const char* op) {
  if (a.size() == 1 && !is_int(a[0])) return nb::cast<std::vector<int64_t>>(a[0]);
  return shape_from_args(a, op);
}

nb::tuple split_any(const Tensor& t, nb::handle sizes, int64_t dim) {
  if (is_int(sizes)) return to_tuple(split(t, nb::cast<int64_t>(nb::int_(sizes)), dim));
  return to_tuple(split_with_sizes(t, nb::cast<std::vector<int64_t>>(sizes), dim));
}

nb::tuple tensor_split_any(const Tensor& t, nb::handle ios, int64_t dim) {
  if (nb::isinstance<TensorImpl>(ios)) {
    Tensor it = nb::cast<Tensor>(ios);
    LUCID_CHECK(!is_floating(it->dtype()) && !is_complex(it->dtype()) && it->dtype() != Dtype::Bool, DtypeMismatch,
                "[tensor_split] expected tensor_indices_or_sections to have an integer dtype, got " << dtype_name(it->dtype()));
    LUCID_CHECK(it->dim() <= 1, ShapeMismatch,
                "[tensor_split] expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, "
                "but got a tensor with " << it->dim() << " dims");
    nb::object lst = nb::cast(it).attr("tolist")();
    if (it->dim() == 0) return to_tuple(tensor_split(t, nb::cast<int64_t>(lst), dim));
    return to_tuple(tensor_split_indices(t, nb::cast<std::vector<int64_t>>(lst), dim));
  }
  if (is_int(ios)) return to_tuple(tensor_split(t, nb::cast<int64_t>(nb::int_(ios)), dim));
  return to_tuple(tensor_split_indices(t, nb::cast<std::vector<int64_t>>(ios), dim));
}

Tensor roll_any(const Tensor& t, nb::handle shifts, nb::handle dims) {
  return roll(t, ints(shifts), dims.is_none() ? std::vector<int64_t>{} : ints(dims));
}

Tensor repeat_interleave_any(const Tensor& t, nb::handle repeats, std::optional<int64_t> dim,
                             std::optional<int64_t> output_size) {
  if (repeats.is_none()) return repeat_interleave(t, output_size);
  if (nb::isinstance<TensorImpl>(repeats)) return repeat_interleave(t, nb::cast<Tensor>(repeats), dim, output_size);
  return repeat_interleave(t, nb::cast<int64_t>(nb::int_(repeats)), dim, output_size);
}

}  // namespace

void init_shape(nb::module_& m) {
  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  using VT = const std::vector<Tensor>&;

  // ---- joining
  // PyTorch also takes NumPy's `axis` for these
  auto join = [](Tensor (*f)(const std::vector<Tensor>&, int64_t)) {
    return [f](VT ts, int64_t dim, std::optional<int64_t> axis) { return f(ts, axis.value_or(dim)); };
  };
  m.def("cat", join(&cat), nb::arg("tensors"), nb::arg("dim") = 0, nb::kw_only(), nb::arg("axis").none() = nb::none());
  m.def("concat", join(&cat), nb::arg("tensors"), nb::arg("dim") = 0, nb::kw_only(), nb::arg("axis").none() = nb::none());
  m.def("concatenate", [](VT ts, int64_t axis) { return cat(ts, axis); }, nb::arg("tensors"), nb::arg("axis") = 0);
  m.def("stack", join(&stack), nb::arg("tensors"), nb::arg("dim") = 0, nb::kw_only(), nb::arg("axis").none() = nb::none());
  m.def("hstack", [](VT ts) { return hstack(ts); }, nb::arg("tensors"));
  m.def("vstack", [](VT ts) { return vstack(ts); }, nb::arg("tensors"));
  m.def("row_stack", [](VT ts) { return vstack(ts); }, nb::arg("tensors"));
  m.def("dstack", [](VT ts) { return dstack(ts); }, nb::arg("tensors"));
  m.def("column_stack", [](VT ts) { return column_stack(ts); }, nb::arg("tensors"));

  // ---- splitting (views)
  m.def("split", &split_any, nb::arg("tensor"), nb::arg("split_size_or_sections"), nb::arg("dim") = 0);
  cls.def("split", &split_any, nb::arg("split_size"), nb::arg("dim") = 0);
  m.def("chunk", [](const Tensor& t, int64_t c, int64_t d) { return to_tuple(chunk(t, c, d)); },
        nb::arg("input"), nb::arg("chunks"), nb::arg("dim") = 0);
  cls.def("chunk", [](const Tensor& t, int64_t c, int64_t d) { return to_tuple(chunk(t, c, d)); },
          nb::arg("chunks"), nb::arg("dim") = 0);
  m.def("tensor_split", &tensor_split_any, nb::arg("input"), nb::arg("indices_or_sections"), nb::arg("dim") = 0);
  cls.def("tensor_split", &tensor_split_any, nb::arg("indices_or_sections"), nb::arg("dim") = 0);
  for (const char* nm : {"hsplit", "vsplit", "dsplit"}) {
    const char which = nm[0];
    auto f = [which](const Tensor& t, nb::handle ios) {
      if (is_int(ios)) return to_tuple(directional_split(t, which, nb::cast<int64_t>(nb::int_(ios)), {}));
      return to_tuple(directional_split(t, which, std::nullopt, nb::cast<std::vector<int64_t>>(ios)));
    };
    m.def(nm, f, nb::arg("input"), nb::arg("indices_or_sections"));
    cls.def(nm, f, nb::arg("indices_or_sections"));
  }
  m.def("unbind", [](const Tensor& t, int64_t d) { return to_tuple(unbind(t, d)); }, nb::arg("input"), nb::arg("dim") = 0);
  cls.def("unbind", [](const Tensor& t, int64_t d) { return to_tuple(unbind(t, d)); }, nb::arg("dim") = 0);

  // ---- reshaping and reordering
  m.def("unflatten", [](const Tensor& t, int64_t d, std::vector<int64_t> s) { return unflatten(t, d, s); },
        nb::arg("input"), nb::arg("dim"), nb::arg("sizes"));
  cls.def("unflatten", [](const Tensor& t, int64_t d, std::vector<int64_t> s) { return unflatten(t, d, s); },
          nb::arg("dim"), nb::arg("sizes"));
  m.def("ravel", [](const Tensor& t) { return ravel(t); }, nb::arg("input"));
  cls.def("ravel", [](const Tensor& t) { return ravel(t); });
  auto mv = [](const Tensor& t, nb::handle s, nb::handle d) { return movedim(t, ints(s), ints(d)); };
  m.def("movedim", mv, nb::arg("input"), nb::arg("source"), nb::arg("destination"));
  m.def("moveaxis", mv, nb::arg("input"), nb::arg("source"), nb::arg("destination"));
  cls.def("movedim", mv, nb::arg("source"), nb::arg("destination"));
  cls.def("moveaxis", mv, nb::arg("source"), nb::arg("destination"));
  m.def("swapaxes", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); },
        nb::arg("input"), nb::arg("axis0"), nb::arg("axis1"));
  m.def("swapdims", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); },
        nb::arg("input"), nb::arg("dim0"), nb::arg("dim1"));
  m.def("flip", [](const Tensor& t, nb::handle dims) { return flip(t, ints(dims)); }, nb::arg("input"), nb::arg("dims"));
  cls.def("flip", [](const Tensor& t, nb::args dims) { return flip(t, ints_or_args(dims, "flip")); });
  m.def("fliplr", [](const Tensor& t) { return fliplr(t); }, nb::arg("input"));
  cls.def("fliplr", [](const Tensor& t) { return fliplr(t); });
  m.def("flipud", [](const Tensor& t) { return flipud(t); }, nb::arg("input"));
  cls.def("flipud", [](const Tensor& t) { return flipud(t); });
  m.def("roll", &roll_any, nb::arg("input"), nb::arg("shifts"), nb::arg("dims").none() = nb::none());
  cls.def("roll", &roll_any, nb::arg("shifts"), nb::arg("dims").none() = nb::none());
  m.def("rot90", [](const Tensor& t, int64_t k, std::vector<int64_t> d) { return rot90(t, k, d); },
        nb::arg("input"), nb::arg("k") = 1, nb::arg("dims") = std::vector<int64_t>{0, 1});
  cls.def("rot90", [](const Tensor& t, int64_t k, std::vector<int64_t> d) { return rot90(t, k, d); },
          nb::arg("k") = 1, nb::arg("dims") = std::vector<int64_t>{0, 1});

  // ---- repeating
  cls.def("repeat", [](const Tensor& t, nb::args a) { return repeat(t, ints_or_args(a, "repeat")); });
  m.def("tile", [](const Tensor& t, std::vector<int64_t> d) { return tile(t, d); }, nb::arg("input"), nb::arg("dims"));
  cls.def("tile", [](const Tensor& t, nb::args a) { return tile(t, ints_or_args(a, "tile")); });
  m.def("repeat_interleave", &repeat_interleave_any, nb::arg("input"), nb::arg("repeats").none() = nb::none(),
        nb::arg("dim").none() = nb::none(), nb::kw_only(), nb::arg("output_size").none() = nb::none());
  cls.def("repeat_interleave", &repeat_interleave_any, nb::arg("repeats").none() = nb::none(),
          nb::arg("dim").none() = nb::none(), nb::kw_only(), nb::arg("output_size").none() = nb::none());

  // ---- padding
  m.def("pad", [](const Tensor& t, std::vector<int64_t> p, const std::string& mode, std::optional<Scalar> v) {
    return pad(t, p, mode, v);
  }, nb::arg("input"), nb::arg("pad"), nb::arg("mode") = "constant", nb::arg("value").none() = nb::none());

  // ---- triangles and diagonals
  m.def("tril", [](const Tensor& t, int64_t k) { return tril(t, k); }, nb::arg("input"), nb::arg("diagonal") = 0);
  m.def("triu", [](const Tensor& t, int64_t k) { return triu(t, k); }, nb::arg("input"), nb::arg("diagonal") = 0);
  cls.def("tril", [](const Tensor& t, int64_t k) { return tril(t, k); }, nb::arg("diagonal") = 0);
  cls.def("triu", [](const Tensor& t, int64_t k) { return triu(t, k); }, nb::arg("diagonal") = 0);
  cls.def("tril_", [](const Tensor& t, int64_t k) { return tril_(t, k); }, nb::arg("diagonal") = 0);
  cls.def("triu_", [](const Tensor& t, int64_t k) { return triu_(t, k); }, nb::arg("diagonal") = 0);
  m.def("_tril_indices", &tril_indices);
  m.def("_triu_indices", &triu_indices);
  m.def("diag", [](const Tensor& t, int64_t k) { return diag(t, k); }, nb::arg("input"), nb::arg("diagonal") = 0);
  cls.def("diag", [](const Tensor& t, int64_t k) { return diag(t, k); }, nb::arg("diagonal") = 0);
  m.def("diag_embed", [](const Tensor& t, int64_t o, int64_t a, int64_t b) { return diag_embed(t, o, a, b); },
        nb::arg("input"), nb::arg("offset") = 0, nb::arg("dim1") = -2, nb::arg("dim2") = -1);
  cls.def("diag_embed", [](const Tensor& t, int64_t o, int64_t a, int64_t b) { return diag_embed(t, o, a, b); },
          nb::arg("offset") = 0, nb::arg("dim1") = -2, nb::arg("dim2") = -1);
  m.def("diagflat", [](const Tensor& t, int64_t o) { return diagflat(t, o); }, nb::arg("input"), nb::arg("offset") = 0);
  cls.def("diagflat", [](const Tensor& t, int64_t o) { return diagflat(t, o); }, nb::arg("offset") = 0);
  m.def("_block_diag", [](VT ts) { return block_diag(ts); });

  // ---- broadcasting and combinatorics
  m.def("_meshgrid", [](VT ts, const std::string& ix) { return to_tuple(meshgrid(ts, ix)); });
  m.def("_broadcast_tensors", [](VT ts) { return to_tuple(broadcast_tensors(ts)); });
  m.def("_broadcast_shapes", [](const std::vector<std::vector<int64_t>>& s) { return broadcast_shapes(s); });
  m.def("_atleast_1d", [](const Tensor& t) { return atleast_1d(t); });
  m.def("_atleast_2d", [](const Tensor& t) { return atleast_2d(t); });
  m.def("_atleast_3d", [](const Tensor& t) { return atleast_3d(t); });
  m.def("_cartesian_prod", [](VT ts) { return cartesian_prod(ts); });
  m.def("combinations", [](const Tensor& t, int64_t r, bool w) { return combinations(t, r, w); }, nb::arg("input"),
        nb::arg("r") = 2, nb::arg("with_replacement") = false);
}

LUCID_BINDINGS(init_shape)

}  // namespace lucid::py
