// The reduce family's raw entry points (lucid/_reduce.py spells the arguments PyTorch's way).
#include "bindings/common.h"
#include "ops/reduce.h"

namespace lucid::py {

namespace {

Dims dims_of(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  if (PyLong_Check(h.ptr()) || PyIndex_Check(h.ptr())) return std::vector<int64_t>{nb::cast<int64_t>(nb::int_(h))};
  return nb::cast<std::vector<int64_t>>(h);
}

std::vector<int64_t> dims_vec(nb::handle h) {
  auto d = dims_of(h);
  return d ? *d : std::vector<int64_t>{};
}

std::optional<int64_t> one_dim(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return nb::cast<int64_t>(nb::int_(h));
}

}  // namespace

void init_reduce(nb::module_& m) {
  using OD = std::optional<Dtype>;
  m.def("_mean", [](const Tensor& t, nb::handle dim, bool keepdim, OD dt) { return mean(t, dims_of(dim), keepdim, dt); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"), nb::arg("dtype").none());
  m.def("_nansum", [](const Tensor& t, nb::handle dim, bool keepdim, OD dt) { return nansum(t, dims_of(dim), keepdim, dt); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"), nb::arg("dtype").none());
  m.def("_nanmean", [](const Tensor& t, nb::handle dim, bool keepdim, OD dt) { return nanmean(t, dims_of(dim), keepdim, dt); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"), nb::arg("dtype").none());
  m.def("_prod", [](const Tensor& t, nb::handle dim, bool keepdim, OD dt) { return prod(t, one_dim(dim), keepdim, dt); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"), nb::arg("dtype").none());
  m.def("_amax", [](const Tensor& t, nb::handle dim, bool keepdim) { return amax(t, dims_vec(dim), keepdim); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"));
  m.def("_amin", [](const Tensor& t, nb::handle dim, bool keepdim) { return amin(t, dims_vec(dim), keepdim); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"));
  m.def("_max_all", [](const Tensor& t) { return max(t); });
  m.def("_min_all", [](const Tensor& t) { return min(t); });
  m.def("_max_dim", [](const Tensor& t, int64_t dim, bool keepdim) { return max(t, dim, keepdim); });
  m.def("_min_dim", [](const Tensor& t, int64_t dim, bool keepdim) { return min(t, dim, keepdim); });
  m.def("_argmax", [](const Tensor& t, nb::handle dim, bool keepdim) { return argmax(t, one_dim(dim), keepdim); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"));
  m.def("_argmin", [](const Tensor& t, nb::handle dim, bool keepdim) { return argmin(t, one_dim(dim), keepdim); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"));
  m.def("_aminmax", [](const Tensor& t, nb::handle dim, bool keepdim) { return aminmax(t, one_dim(dim), keepdim); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"));
  m.def("_var", [](const Tensor& t, nb::handle dim, double c, bool keepdim) { return var(t, dims_of(dim), c, keepdim); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("correction"), nb::arg("keepdim"));
  m.def("_std", [](const Tensor& t, nb::handle dim, double c, bool keepdim) { return std_dev(t, dims_of(dim), c, keepdim); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("correction"), nb::arg("keepdim"));
  m.def("_var_mean", [](const Tensor& t, nb::handle dim, double c, bool keepdim) { return var_mean(t, dims_of(dim), c, keepdim); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("correction"), nb::arg("keepdim"));
  m.def("_std_mean", [](const Tensor& t, nb::handle dim, double c, bool keepdim) { return std_mean(t, dims_of(dim), c, keepdim); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("correction"), nb::arg("keepdim"));
  m.def("_logsumexp", [](const Tensor& t, nb::handle dim, bool keepdim) { return logsumexp(t, dims_of(dim), keepdim); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"));
  m.def("_cumsum", [](const Tensor& t, int64_t dim, OD dt) { return cumsum(t, dim, dt); },
        nb::arg("input"), nb::arg("dim"), nb::arg("dtype").none());
  m.def("_cumprod", [](const Tensor& t, int64_t dim, OD dt) { return cumprod(t, dim, dt); },
        nb::arg("input"), nb::arg("dim"), nb::arg("dtype").none());
  m.def("_cummax", [](const Tensor& t, int64_t dim) { return cummax(t, dim); });
  m.def("_cummin", [](const Tensor& t, int64_t dim) { return cummin(t, dim); });
  m.def("_logcumsumexp", [](const Tensor& t, int64_t dim) { return logcumsumexp(t, dim); });
  m.def("_any", [](const Tensor& t, nb::handle dim, bool keepdim) { return any(t, dims_of(dim), keepdim); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"));
  m.def("_all", [](const Tensor& t, nb::handle dim, bool keepdim) { return all(t, dims_of(dim), keepdim); },
        nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim"));
  m.def("_count_nonzero", [](const Tensor& t, nb::handle dim) { return count_nonzero(t, dims_of(dim)); },
        nb::arg("input"), nb::arg("dim").none());
  m.def("_diff", [](const Tensor& t, int64_t n, int64_t dim, std::optional<Tensor> pre, std::optional<Tensor> app) {
    return diff(t, n, dim, pre, app);
  }, nb::arg("input"), nb::arg("n"), nb::arg("dim"), nb::arg("prepend").none(), nb::arg("append").none());
  m.def("trace", [](const Tensor& t) { return trace(t); }, nb::arg("input"));
  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  cls.def("trace", [](const Tensor& t) { return trace(t); });
}

LUCID_BINDINGS(init_reduce)

}  // namespace lucid::py
