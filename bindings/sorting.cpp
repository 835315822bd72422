// The sorting family: lucid.sort(x) and x.sort(), bound straight to the engine ops. Results with
// several tensors are named tuples (.values / .indices, as torch.return_types).
#include <nanobind/stl/tuple.h>

#include "bindings/common.h"
#include "ops/sorting.h"

namespace lucid::py {

namespace {

// Named tuple types, made once (leaked: they must outlive interpreter shutdown ordering).
nb::object& rtype(const char* name, const char* fields) {
  static std::vector<std::pair<std::string, nb::object*>> types;
  for (auto& [n, t] : types)
    if (n == name) return *t;
  nb::object nt = nb::module_::import_("collections").attr("namedtuple")(name, fields);
  nt.attr("__module__") = "lucid.return_types";
  types.emplace_back(name, new nb::object(nt));
  return *types.back().second;
}

nb::object pair_result(const char* name, const std::pair<Tensor, Tensor>& r) {
  return rtype(name, "values indices")(r.first, r.second);
}

// dim/keepdim with Lucid's axis/keepdims spellings.
std::optional<int64_t> pick_dim(std::optional<int64_t> dim, std::optional<int64_t> axis) {
  if (axis) {
    if (dim) throw nb::type_error("got both dim and axis");
    return axis;
  }
  return dim;
}
bool pick_keep(bool keepdim, std::optional<bool> keepdims) { return keepdims ? *keepdims : keepdim; }

nb::object unique_result(const std::tuple<Tensor, Tensor, Tensor>& r, bool inv, bool cnt) {
  if (!inv && !cnt) return nb::cast(std::get<0>(r));
  if (inv && cnt) return nb::make_tuple(std::get<0>(r), std::get<1>(r), std::get<2>(r));
  return nb::make_tuple(std::get<0>(r), inv ? std::get<1>(r) : std::get<2>(r));
}

// Defines lucid.<name>(input, ...) and Tensor.<name>(...) from one callable.
template <typename F, typename... Extra>
void both(nb::module_& m, nb::class_<TensorImpl>& cls, const char* name, F&& f, const Extra&... extra) {
  m.def(name, f, nb::arg("input"), extra...);
  cls.def(name, f, extra...);
}

}  // namespace

void init_sorting(nb::module_& m) {
  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  using OI = std::optional<int64_t>;
  using OB = std::optional<bool>;

  both(m, cls, "sort", [](const Tensor& t, int64_t dim, bool descending, bool stable) {
    return pair_result("sort", sort(t, dim, descending, stable));
  }, nb::arg("dim") = -1, nb::arg("descending") = false, nb::kw_only(), nb::arg("stable") = false);
  both(m, cls, "argsort", [](const Tensor& t, int64_t dim, bool descending, bool stable) {
    return argsort(t, dim, descending, stable);
  }, nb::arg("dim") = -1, nb::arg("descending") = false, nb::kw_only(), nb::arg("stable") = false);
  both(m, cls, "msort", [](const Tensor& t) { return msort(t); });
  both(m, cls, "topk", [](const Tensor& t, int64_t k, int64_t dim, bool largest, bool sorted) {
    return pair_result("topk", topk(t, k, dim, largest, sorted));
  }, nb::arg("k"), nb::arg("dim") = -1, nb::arg("largest") = true, nb::arg("sorted") = true);
  both(m, cls, "kthvalue", [](const Tensor& t, int64_t k, OI dim, bool keepdim, OI axis, OB keepdims) {
    return pair_result("kthvalue", kthvalue(t, k, pick_dim(dim, axis).value_or(-1), pick_keep(keepdim, keepdims)));
  }, nb::arg("k"), nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
     nb::arg("axis").none() = nb::none(), nb::arg("keepdims").none() = nb::none());
  both(m, cls, "median", [](const Tensor& t, OI dim, bool keepdim, OI axis, OB keepdims) -> nb::object {
    const OI d = pick_dim(dim, axis);
    if (!d) return nb::cast(median(t));
    return pair_result("median", median(t, *d, pick_keep(keepdim, keepdims)));
  }, nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
     nb::arg("axis").none() = nb::none(), nb::arg("keepdims").none() = nb::none());
  both(m, cls, "nanmedian", [](const Tensor& t, OI dim, bool keepdim, OI axis, OB keepdims) -> nb::object {
    const OI d = pick_dim(dim, axis);
    if (!d) return nb::cast(nanmedian(t));
    return pair_result("nanmedian", nanmedian(t, *d, pick_keep(keepdim, keepdims)));
  }, nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
     nb::arg("axis").none() = nb::none(), nb::arg("keepdims").none() = nb::none());
  both(m, cls, "mode", [](const Tensor& t, OI dim, bool keepdim, OI axis, OB keepdims) {
    return pair_result("mode", mode(t, pick_dim(dim, axis).value_or(-1), pick_keep(keepdim, keepdims)));
  }, nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
     nb::arg("axis").none() = nb::none(), nb::arg("keepdims").none() = nb::none());
  both(m, cls, "quantile", [](const Tensor& t, const QuantileQ& q, OI dim, bool keepdim, const std::string& interp,
                              OI axis, OB keepdims) {
    return quantile(t, q, pick_dim(dim, axis), pick_keep(keepdim, keepdims), interp);
  }, nb::arg("q"), nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
     nb::arg("interpolation") = "linear", nb::arg("axis").none() = nb::none(), nb::arg("keepdims").none() = nb::none());
  both(m, cls, "nanquantile", [](const Tensor& t, const QuantileQ& q, OI dim, bool keepdim, const std::string& interp,
                                 OI axis, OB keepdims) {
    return nanquantile(t, q, pick_dim(dim, axis), pick_keep(keepdim, keepdims), interp);
  }, nb::arg("q"), nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
     nb::arg("interpolation") = "linear", nb::arg("axis").none() = nb::none(), nb::arg("keepdims").none() = nb::none());
  both(m, cls, "unique", [](const Tensor& t, bool sorted, bool inv, bool cnt, OI dim) {
    return unique_result(unique(t, sorted, inv, cnt, dim), inv, cnt);
  }, nb::arg("sorted") = true, nb::arg("return_inverse") = false, nb::arg("return_counts") = false,
     nb::arg("dim").none() = nb::none());
  both(m, cls, "unique_consecutive", [](const Tensor& t, bool inv, bool cnt, OI dim) {
    return unique_result(unique_consecutive(t, inv, cnt, dim), inv, cnt);
  }, nb::arg("return_inverse") = false, nb::arg("return_counts") = false, nb::arg("dim").none() = nb::none());
  m.def("searchsorted", [](const Tensor& seq, const SearchValues& v, bool out_int32, bool right,
                           std::optional<std::string> side, std::optional<Tensor> sorter) {
    return searchsorted(seq, v, out_int32, right, side, sorter);
  }, nb::arg("sorted_sequence"), nb::arg("input"), nb::kw_only(), nb::arg("out_int32") = false,
     nb::arg("right") = false, nb::arg("side").none() = nb::none(), nb::arg("sorter").none() = nb::none());
  m.def("bucketize", [](const SearchValues& v, const Tensor& b, bool out_int32, bool right) {
    return bucketize(v, b, out_int32, right);
  }, nb::arg("input"), nb::arg("boundaries"), nb::kw_only(), nb::arg("out_int32") = false, nb::arg("right") = false);
  both(m, cls, "histc", [](const Tensor& t, int64_t bins, double min, double max) { return histc(t, bins, min, max); },
       nb::arg("bins") = 100, nb::arg("min") = 0.0, nb::arg("max") = 0.0);
  both(m, cls, "histogram", [](const Tensor& t, const HistBins& bins, std::optional<std::pair<double, double>> range,
                               std::optional<Tensor> weight, bool density) {
    auto r = histogram(t, bins, range, weight, density);
    return rtype("histogram", "hist bin_edges")(r.first, r.second);
  }, nb::arg("bins"), nb::kw_only(), nb::arg("range").none() = nb::none(), nb::arg("weight").none() = nb::none(),
     nb::arg("density") = false);
  both(m, cls, "bincount", [](const Tensor& t, std::optional<Tensor> weights, int64_t minlength) {
    return bincount(t, weights, minlength);
  }, nb::arg("weights").none() = nb::none(), nb::arg("minlength") = 0);
  m.def("isin", [](const IsinArg& e, const IsinArg& te, bool assume_unique, bool invert) {
    return isin(e, te, assume_unique, invert);
  }, nb::arg("elements"), nb::arg("test_elements"), nb::kw_only(), nb::arg("assume_unique") = false,
     nb::arg("invert") = false);
}

LUCID_BINDINGS(init_sorting)

}  // namespace lucid::py
