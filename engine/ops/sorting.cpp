#include "ops/sorting.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/kernels/sorting.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/host.h"
#include "ops/indexing.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace lucid {

namespace {

void check_sortable(const Tensor& t, const char* op, bool allow_bool) {
  LUCID_CHECK(!is_complex(t->dtype()), NotImplemented,
              "[" << op << "] is not implemented for complex tensors (got " << dtype_name(t->dtype()) << ")");
  LUCID_CHECK(allow_bool || t->dtype() != Dtype::Bool, NotImplemented, "[" << op << "] is not implemented for bool tensors");
}

// A 0-d tensor has one dim to name (0 or -1), as in PyTorch.
int64_t wrap(int64_t dim, const Tensor& t, const char* op) { return wrap_dim(dim, std::max<int64_t>(t->dim(), 1), op); }

Shape without(const Shape& s, int64_t dim) {
  Shape r;
  for (size_t i = 0; i < s.size(); ++i)
    if (int64_t(i) != dim) r.push_back(s[i]);
  return r;
}

Shape with_one(const Shape& s, int64_t dim) {
  Shape r = s;
  r.insert(r.begin() + dim, 1);
  return r;
}

Tensor keep(const Tensor& t, int64_t dim, bool keepdim, int64_t in_rank) {
  if (!keepdim || in_rank == 0) return t;
  const Shape s = with_one(t->shape(), dim);
  return t->as_view(s, contiguous_strides(s), 0);
}

// The gradient of values picked along `dim` at `indices` (g and indices of one shape, dim present):
// g scattered into zeros of the input's shape. Its own backward gathers (graph mode).
Tensor scatter_grad(const Tensor& g, const Tensor& indices, const Shape& shape, int64_t dim) {
  return scatter_add(zeros(shape, g->dtype(), g->device()), dim, indices, g);
}

// Records the backward of an op whose values are input elements picked at `indices` along dim.
void record_pick(const char* name, const Tensor& in, const Tensor& values, const Tensor& indices, int64_t dim,
                 bool dim_kept) {
  if (!should_record({&in})) return;
  const Shape shape = in->shape();
  const int64_t rank = in->dim();
  record(name, {&in}, {&values}, {SavedTensor(indices, false)},
         [shape, dim, dim_kept, rank](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           if (rank == 0) return std::vector<Tensor>{g[0]};
           Tensor gg = g[0], ix = s[0];
           if (!dim_kept) { gg = unsqueeze(gg, dim); ix = unsqueeze(ix, dim); }
           return std::vector<Tensor>{scatter_grad(gg, ix, shape, dim)};
         });
}

}  // namespace

// ---- sort / argsort / msort

std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending, bool /*stable*/) {
  check_sortable(t, "sort", true);
  dim = wrap(dim, t, "sort");
  Tensor values = TensorImpl::empty(t->shape(), t->dtype(), t->device());
  Tensor indices = TensorImpl::empty(t->shape(), Dtype::I64, t->device());
  sort_kernel(t->device())(*values, *indices, *t, dim, descending);
  record_pick("SortBackward0", t, values, indices, dim, true);
  return {values, indices};
}

Tensor argsort(const Tensor& t, int64_t dim, bool descending, bool stable) {
  autograd::GradModeGuard off(false);
  return sort(t, dim, descending, stable).second;
}

Tensor msort(const Tensor& t) { return sort(t, 0, false, false).first; }

// ---- topk / kthvalue / median / mode

std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest, bool /*sorted*/) {
  check_sortable(t, "topk", false);
  dim = wrap(dim, t, "topk");
  const int64_t n = t->dim() ? t->shape()[size_t(dim)] : 1;
  LUCID_CHECK(k >= 0 && k <= n, Index, "[topk] selected index k out of range: k = " << k << " for a dimension of size " << n);
  Shape s = t->shape();
  if (t->dim()) s[size_t(dim)] = k;
  Tensor values = TensorImpl::empty(s, t->dtype(), t->device());
  Tensor indices = TensorImpl::empty(s, Dtype::I64, t->device());
  topk_kernel(t->device())(*values, *indices, *t, dim, t->dim() ? k : 1, largest);  // a 0-d input keeps its value (PyTorch)
  record_pick("TopkBackward0", t, values, indices, dim, true);
  return {values, indices};
}

namespace {

std::pair<Tensor, Tensor> select_along(const Tensor& t, int64_t k, int64_t dim, bool keepdim, SelectMode mode,
                                       const char* op, const char* node) {
  check_sortable(t, op, false);
  dim = wrap(dim, t, op);
  const int64_t n = t->dim() ? t->shape()[size_t(dim)] : 1;
  LUCID_CHECK(n > 0, Index, "[" << op << "] expected reduction dim " << dim << " to have non-zero size");
  if (mode == SelectMode::Kth)
    LUCID_CHECK(k >= 1 && k <= n, Index,
                "[" << op << "] selected number k out of range: k = " << k << " for dimension " << dim << " of size " << n);
  const Shape s = t->dim() ? without(t->shape(), dim) : Shape{};
  Tensor values = TensorImpl::empty(s, t->dtype(), t->device());
  Tensor indices = TensorImpl::empty(s, Dtype::I64, t->device());
  select_kernel(t->device())(*values, *indices, *t, dim, k - 1, mode);
  Tensor v = keep(values, dim, keepdim, t->dim()), i = keep(indices, dim, keepdim, t->dim());
  record_pick(node, t, v, i, dim, keepdim);
  return {v, i};
}

Tensor median_all(const Tensor& t, SelectMode mode, const char* op) {
  check_sortable(t, op, false);
  if (t->numel() == 0) {
    LUCID_CHECK(is_floating(t->dtype()), Index, "[" << op << "] of an empty " << dtype_name(t->dtype()) << " tensor");
    return full({}, Scalar::from_double(NAN), t->dtype(), t->device());
  }
  return select_along(reshape(t, {t->numel()}), 0, 0, false, mode, op,
                      mode == SelectMode::Median ? "MedianBackward0" : "NanmedianBackward0").first;
}

}  // namespace

std::pair<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
  return select_along(t, k, dim, keepdim, SelectMode::Kth, "kthvalue", "KthvalueBackward0");
}
Tensor median(const Tensor& t) { return median_all(t, SelectMode::Median, "median"); }
std::pair<Tensor, Tensor> median(const Tensor& t, int64_t dim, bool keepdim) {
  return select_along(t, 1, dim, keepdim, SelectMode::Median, "median", "MedianBackward1");
}
Tensor nanmedian(const Tensor& t) { return median_all(t, SelectMode::NanMedian, "nanmedian"); }
std::pair<Tensor, Tensor> nanmedian(const Tensor& t, int64_t dim, bool keepdim) {
  return select_along(t, 1, dim, keepdim, SelectMode::NanMedian, "nanmedian", "NanmedianBackward1");
}

std::pair<Tensor, Tensor> mode(const Tensor& t, int64_t dim, bool keepdim) {
  check_sortable(t, "mode", true);
  dim = wrap(dim, t, "mode");
  const int64_t n = t->dim() ? t->shape()[size_t(dim)] : 1;
  LUCID_CHECK(n > 0, Index, "[mode] expected reduction dim " << dim << " to have non-zero size");
  const Shape s = t->dim() ? without(t->shape(), dim) : Shape{};
  Tensor values = TensorImpl::empty(s, t->dtype(), t->device());
  Tensor indices = TensorImpl::empty(s, Dtype::I64, t->device());
  mode_kernel(t->device())(*values, *indices, *t, dim);
  Tensor v = keep(values, dim, keepdim, t->dim()), i = keep(indices, dim, keepdim, t->dim());
  record_pick("ModeBackward0", t, v, i, dim, keepdim);
  return {v, i};
}

// ---- quantile

namespace {

QuantileInterp parse_interp(const std::string& s, const char* op) {
  if (s == "linear") return QuantileInterp::Linear;
  if (s == "lower") return QuantileInterp::Lower;
  if (s == "higher") return QuantileInterp::Higher;
  if (s == "midpoint") return QuantileInterp::Midpoint;
  if (s == "nearest") return QuantileInterp::Nearest;
  LUCID_FAIL(Value, "[" << op << "] interpolation must be one of linear, lower, higher, midpoint or nearest, but got "
                        << s);
}

Tensor quantile_impl(const Tensor& t, const QuantileQ& q_arg, std::optional<int64_t> dim_arg, bool keepdim,
                     const std::string& interpolation, bool ignore_nan, const char* op) {
  LUCID_CHECK(t->dtype() == Dtype::F32 || t->dtype() == Dtype::F64, DtypeMismatch,
              "[" << op << "] input tensor must be either float or double dtype, got " << dtype_name(t->dtype()));
  LUCID_CHECK(t->numel() > 0, Value, "[" << op << "] input tensor must be non-empty");
  const QuantileInterp interp = parse_interp(interpolation, op);
  std::vector<double> qs;
  bool q_is_1d = false;
  if (const double* qd = std::get_if<double>(&q_arg)) {
    qs.push_back(*qd);
  } else {
    const Tensor& qt = std::get<Tensor>(q_arg);
    LUCID_CHECK(qt->dim() <= 1, ShapeMismatch, "[" << op << "] q must be a scalar or 1D tensor, got shape "
                                                    << shape_str(qt->shape()));
    LUCID_CHECK(qt->dtype() == t->dtype(), DtypeMismatch,
                "[" << op << "] q tensor must be same dtype as the input tensor (" << dtype_name(t->dtype())
                    << "), got " << dtype_name(qt->dtype()));
    q_is_1d = qt->dim() == 1;
    Tensor h = to_host_contiguous(cast(qt, Dtype::F64));
    qs.assign(h->data<double>(), h->data<double>() + h->numel());
  }
  for (double v : qs)
    LUCID_CHECK(v >= 0 && v <= 1, Value, "[" << op << "] q values must be in the range [0, 1], got " << v);
  // rows of the reduced dim, moved last
  Tensor x;
  Shape out_shape;
  if (!dim_arg) {
    x = reshape(t, {1, t->numel()});
    if (keepdim) out_shape.assign(size_t(t->dim()), 1);
  } else {
    const int64_t dim = wrap(*dim_arg, t, op);
    Tensor moved = t;
    if (t->dim() == 0) {
      moved = reshape(t, {1});
    } else {
      std::vector<int64_t> perm;
      for (int64_t i = 0; i < t->dim(); ++i)
        if (i != dim) perm.push_back(i);
      perm.push_back(dim);
      moved = permute(t, perm);
    }
    const int64_t n = t->dim() ? t->shape()[size_t(dim)] : 1;
    x = reshape(contiguous(moved), {t->numel() / n, n});
    out_shape = t->dim() ? (keepdim ? with_one(without(t->shape(), dim), dim) : without(t->shape(), dim)) : Shape{};
  }
  Tensor sorted = contiguous(sort(x, -1, false, false).first);
  const int64_t nq = int64_t(qs.size()), rows = sorted->shape()[0];
  Tensor out = TensorImpl::empty({nq, rows}, t->dtype(), t->device());
  Tensor w = TensorImpl::empty({nq, rows}, t->dtype(), t->device());
  Tensor lo = TensorImpl::empty({nq, rows}, Dtype::I64, t->device());
  Tensor hi = TensorImpl::empty({nq, rows}, Dtype::I64, t->device());
  quantile_kernel(t->device())(*out, *lo, *hi, *w, *sorted, qs.data(), nq, interp, ignore_nan);
  if (should_record({&sorted})) {
    const Shape ss = sorted->shape();
    record(ignore_nan ? "NanquantileBackward0" : "QuantileBackward0", {&sorted}, {&out},
           {SavedTensor(lo, false), SavedTensor(hi, false), SavedTensor(w, false)},
           [ss](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             // out = sorted[lo] * (1 - w) + sorted[hi] * w, per row
             Tensor gt = transpose(g[0], 0, 1), l = transpose(s[0], 0, 1), h = transpose(s[1], 0, 1),
                    wt = transpose(s[2], 0, 1);
             Tensor below = scatter_grad(mul(gt, sub(Scalar::from_double(1.0), wt)), l, ss, 1);
             Tensor above = scatter_grad(mul(gt, wt), h, ss, 1);
             return std::vector<Tensor>{add(below, above)};
           });
  }
  Shape final_shape = out_shape;
  if (q_is_1d) final_shape.insert(final_shape.begin(), nq);
  return reshape(out, final_shape);
}

}  // namespace

Tensor quantile(const Tensor& t, const QuantileQ& q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation) {
  return quantile_impl(t, q, dim, keepdim, interpolation, false, "quantile");
}
Tensor nanquantile(const Tensor& t, const QuantileQ& q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return quantile_impl(t, q, dim, keepdim, interpolation, true, "nanquantile");
}

// ---- unique

namespace {

std::tuple<Tensor, Tensor, Tensor> unique_impl(const Tensor& t, bool consecutive, std::optional<int64_t> dim_arg,
                                               const char* op) {
  check_sortable(t, op, true);
  autograd::GradModeGuard off(false);  // unique carries no gradient, as in PyTorch
  Tensor values, inverse, counts;
  if (!dim_arg) {
    Tensor flat = contiguous(reshape(t, {t->numel()}));
    unique_kernel(t->device())(*flat, consecutive, &values, &inverse, &counts);
    return {values, reshape(inverse, t->shape()), counts};
  }
  LUCID_CHECK(t->dim() > 0, Index, "[" << op << "] dim given for a 0-d tensor");
  const int64_t dim = wrap_dim(*dim_arg, t->dim(), op);
  const int64_t n = t->shape()[size_t(dim)];
  std::vector<int64_t> perm{dim};  // dim first, the others in order
  for (int64_t i = 0; i < t->dim(); ++i)
    if (i != dim) perm.push_back(i);
  Tensor moved = contiguous(permute(t, perm));
  const int64_t m = n ? t->numel() / n : 0;
  LUCID_CHECK(!(n > 0 && m == 0), Value,
              "[" << op << "] there are 0 sized dimensions, and they aren't selected, so unique cannot be applied "
                          "(shape " << shape_str(t->shape()) << ", dim " << dim << ")");
  Tensor rows2 = reshape(moved, {n, m});
  unique_kernel(t->device())(*rows2, consecutive, &values, &inverse, &counts);
  Shape vs = moved->shape();
  vs[0] = values->shape()[0];
  Tensor v = reshape(values, vs);
  std::vector<int64_t> inv(size_t(t->dim()));
  for (int64_t i = 0; i < t->dim(); ++i) inv[size_t(perm[size_t(i)])] = i;
  return {contiguous(permute(v, inv)), inverse, counts};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& t, bool /*sorted*/, bool, bool, std::optional<int64_t> dim) {
  return unique_impl(t, false, dim, "unique");
}
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& t, bool, bool, std::optional<int64_t> dim) {
  return unique_impl(t, true, dim, "unique_consecutive");
}

// ---- searchsorted / bucketize

Tensor searchsorted(const Tensor& seq, const SearchValues& values_arg, bool out_int32, bool right,
                    const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  const char* op = "searchsorted";
  if (side) {
    LUCID_CHECK(*side == "left" || *side == "right", Value,
                "[searchsorted] side can only be 'left' or 'right' but got " << *side);
    LUCID_CHECK(!(right && *side == "left"), Value,
                "[searchsorted] side and right can't be set to opposites, got side of left while right was True");
    right = *side == "right";
  }
  LUCID_CHECK(seq->dim() >= 1, ShapeMismatch, "[searchsorted] boundaries tensor must have at least 1 dimension");
  Dtype dt;
  Tensor values;
  if (const Scalar* s = std::get_if<Scalar>(&values_arg)) {
    LUCID_CHECK(seq->dim() == 1, ShapeMismatch,
                "[searchsorted] input value can be a scalar only when boundaries tensor dimension is 1, but we got "
                "boundaries tensor dim(" << seq->dim() << ")");
    dt = result_type(seq, *s);
    values = full({}, *s, dt, seq->device());
  } else {
    values = std::get<Tensor>(values_arg);
    dt = result_type(seq, values);
    if (seq->dim() > 1) {
      bool ok = values->dim() == seq->dim();
      for (int64_t i = 0; ok && i + 1 < seq->dim(); ++i) ok = values->shape()[size_t(i)] == seq->shape()[size_t(i)];
      LUCID_CHECK(ok, ShapeMismatch,
                  "[searchsorted] boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
                  "tensor and input value tensor must match, but we got boundaries tensor "
                      << shape_str(seq->shape()) << " and input value tensor " << shape_str(values->shape()));
    }
  }
  LUCID_CHECK(!is_complex(dt) && dt != Dtype::Bool, NotImplemented,
              "[" << op << "] is not implemented for " << dtype_name(dt) << " tensors");
  LUCID_CHECK(values->device() == seq->device(), DeviceMismatch,
              "[searchsorted] boundaries on " << seq->device() << ", values on " << values->device());
  Tensor sorter_c;
  if (sorter) {
    const Tensor& so = *sorter;
    LUCID_CHECK(so->dtype() == Dtype::I64, DtypeMismatch,
                "[searchsorted] sorter must be a tensor of long dtype but got dtype " << dtype_name(so->dtype()));
    LUCID_CHECK(so->shape() == seq->shape(), ShapeMismatch,
                "[searchsorted] boundaries and sorter must have the same size, but got boundaries "
                    << shape_str(seq->shape()) << " and sorter " << shape_str(so->shape()));
    sorter_c = contiguous(so);
    Tensor h = to_host_contiguous(sorter_c);
    const int64_t m = seq->shape().back();
    for (int64_t i = 0; i < h->numel(); ++i) {
      const int64_t v = h->data<int64_t>()[i];
      LUCID_CHECK(v >= 0 && v < m, Index, "[searchsorted] sorter index out of range: " << v << " for a dimension of size " << m);
    }
  }
  const Dtype out_dt = out_int32 ? Dtype::I32 : Dtype::I64;
  if (out_int32)
    LUCID_CHECK(seq->shape().back() < std::numeric_limits<int32_t>::max(), Value,
                "[searchsorted] the size of boundaries' last dimension " << seq->shape().back()
                                                                         << " does not fit in int32 (out_int32=True)");
  Tensor s = contiguous(cast(seq, dt)), v = contiguous(cast(values, dt));
  Tensor out = TensorImpl::empty(values->shape(), out_dt, seq->device());
  searchsorted_kernel(seq->device())(*out, *s, *v, sorter ? sorter_c.get() : nullptr, right);
  return out;
}

Tensor bucketize(const SearchValues& input, const Tensor& boundaries, bool out_int32, bool right) {
  LUCID_CHECK(boundaries->dim() == 1, ShapeMismatch,
              "[bucketize] boundaries tensor must be 1 dimension, but got dim(" << boundaries->dim() << ")");
  return searchsorted(boundaries, input, out_int32, right, std::nullopt, std::nullopt);
}

// ---- histc / histogram / bincount

namespace {

Tensor edges_hist(const Tensor& t, const Tensor& edges, const std::optional<Tensor>& weight, Dtype out_dt) {
  Tensor hist = TensorImpl::empty({edges->numel() - 1}, out_dt, t->device());
  Tensor x = contiguous(reshape(t, {t->numel()}));
  Tensor w;
  if (weight) w = contiguous(reshape(*weight, {t->numel()}));
  histogram_edges_kernel(t->device())(*hist, *x, weight ? w.get() : nullptr, *contiguous(edges));
  return hist;
}

// Bin edges as PyTorch's linspace computes them, in the dtype's own arithmetic (histogram's edges
// must match its binning bit for bit).
Tensor linear_edges(double lo, double hi, int64_t bins, Dtype dt, Device dev) {
  const int64_t steps = bins + 1, half = steps / 2;
  auto fill = [&]<typename T>() {
    std::vector<T> v(static_cast<size_t>(steps));
    const T s = T(lo), e = T(hi), step = (e - s) / T(bins);
    for (int64_t i = 0; i < steps; ++i) v[size_t(i)] = i < half ? s + step * T(i) : e - step * T(steps - i - 1);
    return from_host(v.data(), {steps}, dt, dev);
  };
  return dt == Dtype::F32 ? fill.template operator()<float>() : fill.template operator()<double>();
}

// min and max of a non-empty t (NaN propagates), by the parallel reduction.
void data_range(const Tensor& t, double* lo, double* hi) {
  auto [a, b] = aminmax(t);
  *lo = item(a).to<double>();
  *hi = item(b).to<double>();
}

}  // namespace

Tensor histc(const Tensor& t, int64_t bins, double min, double max) {
  LUCID_CHECK(is_floating(t->dtype()), NotImplemented,
              "[histc] is not implemented for " << dtype_name(t->dtype()) << " tensors (floating point only)");
  LUCID_CHECK(bins > 0, Value, "[histc] bins must be > 0, got " << bins);
  LUCID_CHECK(!(min > max), Value, "[histc] max must be larger than min (min " << min << ", max " << max << ")");
  autograd::GradModeGuard off(false);
  if (min == max && t->numel() > 0) data_range(t, &min, &max);
  if (min == max) { min -= 1; max += 1; }
  LUCID_CHECK(std::isfinite(min) && std::isfinite(max), Value,
              "[histc] range of [" << min << ", " << max << "] is not finite");
  Tensor hist = TensorImpl::empty({bins}, t->dtype(), t->device());
  Tensor x = contiguous(reshape(t, {t->numel()}));
  histc_kernel(t->device())(*hist, *x, min, max);
  return hist;
}

std::pair<Tensor, Tensor> histogram(const Tensor& t, const HistBins& bins,
                                    const std::optional<std::pair<double, double>>& range,
                                    const std::optional<Tensor>& weight, bool density) {
  LUCID_CHECK(t->dtype() == Dtype::F32 || t->dtype() == Dtype::F64, NotImplemented,
              "[histogram] is not implemented for " << dtype_name(t->dtype()) << " tensors (float32/float64 only)");
  autograd::GradModeGuard off(false);
  if (weight) {
    LUCID_CHECK((*weight)->shape() == t->shape(), ShapeMismatch,
                "[histogram] weight should have the same shape as the input, got " << shape_str((*weight)->shape())
                                                                                  << " and " << shape_str(t->shape()));
    LUCID_CHECK((*weight)->dtype() == t->dtype(), DtypeMismatch,
                "[histogram] weight should have the same dtype as the input, got " << dtype_name((*weight)->dtype())
                                                                                  << " and " << dtype_name(t->dtype()));
  }
  Tensor edges;
  if (const int64_t* nb = std::get_if<int64_t>(&bins)) {
    LUCID_CHECK(*nb > 0, Value, "[histogram] bins must be > 0, but got " << *nb);
    double lo = 0, hi = 0;
    if (range) {
      lo = range->first;
      hi = range->second;
      LUCID_CHECK(lo <= hi, Value, "[histogram] min should not exceed max, but got min " << lo << " max " << hi);
    } else if (t->numel() > 0) {
      data_range(t, &lo, &hi);
    }
    LUCID_CHECK(std::isfinite(lo) && std::isfinite(hi), Value,
                "[histogram] range of [" << lo << ", " << hi << "] is not finite");
    if (lo == hi) {
      if (t->numel() == 0 && !range) { lo = 0; hi = 1; }
      else { lo -= 0.5; hi += 0.5; }
    }
    edges = linear_edges(lo, hi, *nb, t->dtype(), t->device());
  } else {
    const Tensor& b = std::get<Tensor>(bins);
    LUCID_CHECK(b->dim() == 1 && b->numel() >= 2, ShapeMismatch,
                "[histogram] bins tensor should be 1-d with at least 2 edges, got shape " << shape_str(b->shape()));
    LUCID_CHECK(b->dtype() == t->dtype(), DtypeMismatch,
                "[histogram] bins should have the same dtype as the input, got " << dtype_name(b->dtype()) << " and "
                                                                                << dtype_name(t->dtype()));
    Tensor h = to_host_contiguous(cast(b, Dtype::F64));
    const double* e = h->data<double>();
    for (int64_t i = 0; i + 1 < h->numel(); ++i)
      LUCID_CHECK(e[i] <= e[i + 1], Value,
                  "[histogram] bin edges must increase monotonically, but edge " << i + 1 << " (" << e[i + 1]
                                                                                 << ") is below edge " << i << " (" << e[i] << ")");
    edges = contiguous(b);
  }
  Tensor hist = edges_hist(t, edges, weight, t->dtype());
  if (density) {
    const int64_t nb = edges->numel() - 1;
    Tensor widths = sub(narrow(edges, 0, 1, nb), narrow(edges, 0, 0, nb));
    hist = div(hist, mul(sum(hist, std::nullopt), widths));
  }
  return {hist, edges};
}

Tensor bincount(const Tensor& t, const std::optional<Tensor>& weights, int64_t minlength) {
  LUCID_CHECK(is_integral(t->dtype(), false), NotImplemented,
              "[bincount] is not implemented for " << dtype_name(t->dtype()) << " tensors (integers only)");
  LUCID_CHECK(t->dim() == 1, ShapeMismatch,
              "[bincount] only supports 1-d non-negative integral inputs, got shape " << shape_str(t->shape()));
  LUCID_CHECK(minlength >= 0, Value, "[bincount] minlength should be >= 0, got " << minlength);
  autograd::GradModeGuard off(false);
  if (t->numel() == 0) return zeros({minlength}, Dtype::I64, t->device());  // even with weights (PyTorch)
  Tensor x = contiguous(t);
  Tensor h = to_host_contiguous(cast(x, Dtype::I64));
  int64_t mx = -1;
  for (int64_t i = 0; i < h->numel(); ++i) {
    const int64_t v = h->data<int64_t>()[i];
    LUCID_CHECK(v >= 0, Value, "[bincount] only supports 1-d non-negative integral inputs, got " << v << " at index " << i);
    mx = std::max(mx, v);
  }
  Dtype out_dt = Dtype::I64;
  Tensor w;
  if (weights) {
    w = *weights;
    LUCID_CHECK(w->dim() == 1 && w->numel() == t->numel(), ShapeMismatch,
                "[bincount] weights should be 1-d and have the same length as input, got "
                    << shape_str(w->shape()) << " and " << shape_str(t->shape()));
    LUCID_CHECK(!is_complex(w->dtype()), NotImplemented, "[bincount] complex weights are not supported");
    out_dt = w->dtype() == Dtype::F32 ? Dtype::F32 : Dtype::F64;
    w = contiguous(w);
  }
  Tensor out = TensorImpl::empty({std::max(mx + 1, minlength)}, out_dt, t->device());
  bincount_kernel(t->device())(*out, *h, weights ? w.get() : nullptr);
  return out;
}

// ---- isin

Tensor isin(const IsinArg& elements, const IsinArg& test_elements, bool /*assume_unique*/, bool invert) {
  const Tensor* et = std::get_if<Tensor>(&elements);
  const Tensor* tt = std::get_if<Tensor>(&test_elements);
  LUCID_CHECK(et || tt, Type, "[isin] at least one of elements and test_elements must be a Tensor");
  auto as_operand = [](const IsinArg& a) -> Operand {
    if (const Tensor* t = std::get_if<Tensor>(&a)) return *t;
    return std::get<Scalar>(a);
  };
  const Dtype dt = result_type(as_operand(elements), as_operand(test_elements));
  LUCID_CHECK(!is_complex(dt) && dt != Dtype::Bool, NotImplemented,
              "[isin] unsupported input type " << dtype_name(dt));
  const Device dev = et ? (*et)->device() : (*tt)->device();
  auto make = [&](const IsinArg& a) {
    if (const Tensor* t = std::get_if<Tensor>(&a)) return contiguous(cast(*t, dt));
    return full({}, std::get<Scalar>(a), dt, dev);
  };
  autograd::GradModeGuard off(false);
  Tensor e = make(elements), te = make(test_elements);
  LUCID_CHECK(e->device() == te->device(), DeviceMismatch,
              "[isin] elements on " << e->device() << ", test_elements on " << te->device());
  Tensor out = TensorImpl::empty(e->shape(), Dtype::Bool, dev);
  isin_kernel(dev)(*out, *e, *te, invert);
  return out;
}

}  // namespace lucid
