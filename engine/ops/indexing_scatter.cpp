// gather, scatter, scatter_add, scatter_reduce (the indexing family: docs/notes/indexing.md).
#include <cmath>
#include <limits>

#include "backend/kernels/index_fused.h"
#include "backend/kernels/indexing.h"
#include "ops/compare.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/indexing.h"
#include "ops/indexing_impl.h"
#include "ops/view.h"

namespace lucid {

namespace detail {

void scatter_into(ScatterOp op, const Tensor& out, int64_t d, const Tensor& index, const Tensor& src) {
  if (index->numel() == 0 || out->numel() == 0) return;
  const Shape is = shape1(index);
  const int64_t r = int64_t(is.size());
  Strides ost = strides1(out);
  const int64_t mult = ost[size_t(d)] * out->element_size();
  ost[size_t(d)] = 0;
  const Strides sst = src->dim() == 0 ? Strides(size_t(r), 0) : strides1(src);
  index_write_kernel(out->device())(op, *raw(out, is, ost), *raw(src, is, sst), *as_rank1(index), mult,
                                    split_dim(is, {d}));
}

}  // namespace detail

using namespace detail;

namespace {

// g (the gradient of a gather over an index smaller than the source) padded with zeros to `shape`.
Tensor pad_to(const Tensor& g, const Shape& shape) {
  if (g->shape() == shape) return g;
  Tensor z = zeros(shape, g->dtype(), g->device());
  Tensor v = z;
  for (int64_t d = 0; d < g->dim(); ++d) v = narrow(v, d, 0, g->shape()[size_t(d)]);
  copy_(v, g);
  return z;
}

// t narrowed to the leading sizes of `like` (src of a scatter may be larger than its index).
Tensor narrow_to(const Tensor& t, const Tensor& like) {
  Tensor v = t;
  for (int64_t d = 0; d < like->dim() && d < t->dim(); ++d)
    if (t->shape()[size_t(d)] != like->shape()[size_t(d)]) v = narrow(v, d, 0, like->shape()[size_t(d)]);
  return v;
}

// ---- gather / scatter

// Checks of gather/scatter (PyTorch's gather_shape_check / scatter_shape_check); returns the wrapped dim.
int64_t check_gather(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const char* op,
                     bool check_values = true) {
  check_device(self, index, op, "index");
  LUCID_CHECK(index->dtype() == Dtype::I64, DtypeMismatch,
              "[" << op << "] expected dtype int64 for index, got " << dtype_name(index->dtype()));
  const int64_t r = rank1(self);
  const int64_t d = wrap_dim(dim, r, op);
  if (index->numel() == 0) return d;
  LUCID_CHECK(rank1(index) == r, ShapeMismatch,
              "[" << op << "] index tensor must have the same number of dimensions as the input tensor (index "
                  << shape_str(index->shape()) << ", input " << shape_str(self->shape()) << ")");
  const Shape is = shape1(index), ss = shape1(self);
  for (int64_t i = 0; i < r; ++i)
    LUCID_CHECK(i == d || is[size_t(i)] <= ss[size_t(i)], ShapeMismatch,
                "[" << op << "] size does not match at dimension " << i << ": expected index " << shape_str(index->shape())
                    << " to be no larger than self " << shape_str(self->shape()) << " apart from dimension " << d);
  if (src) {
    check_device(self, *src, op, "src");
    LUCID_CHECK(rank1(*src) == r, ShapeMismatch,
                "[" << op << "] src tensor must have the same number of dimensions as the input tensor (src "
                    << shape_str((*src)->shape()) << ", input " << shape_str(self->shape()) << ")");
    const Shape srs = shape1(*src);
    for (int64_t i = 0; i < r; ++i)
      LUCID_CHECK(is[size_t(i)] <= srs[size_t(i)], ShapeMismatch,
                  "[" << op << "] size does not match at dimension " << i << ": expected index "
                      << shape_str(index->shape()) << " to be no larger than src " << shape_str((*src)->shape()));
  }
  if (check_values) check_range(index, 0, ss[size_t(d)], op, d, ss[size_t(d)]);
  return d;
}

ScatterOp legacy_reduce(const std::string& reduce, const char* op) {
  if (reduce.empty()) return ScatterOp::Assign;
  if (reduce == "add") return ScatterOp::Add;
  if (reduce == "multiply") return ScatterOp::Mul;
  LUCID_FAIL(Value, "[" << op << "] reduce argument must be either add or multiply, got " << reduce);
}

std::pair<Tensor, Tensor> scatter_reduce_grad(const std::string& reduce, const Tensor& g, int64_t dim, const Tensor& index,
                                              const Tensor& self, const Tensor& src, const Tensor& result,
                                              bool include_self);

Tensor scatter_src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterOp op,
                   const char* name) {
  const int64_t d = check_gather(self, dim, index, &src, name);
  LUCID_CHECK(src->dtype() == self->dtype(), DtypeMismatch,
              "[" << name << "] expected self.dtype to be equal to src.dtype (got " << dtype_name(self->dtype())
                  << " and " << dtype_name(src->dtype()) << ")");
  Tensor out = fresh_copy(self);
  scatter_into(op, out, d, index, src);
  const Shape src_shape = src->shape();
  if (op == ScatterOp::Add) {
    record("ScatterAddBackward0", {&self, &src}, {&out}, {SavedTensor(index, false)},
           [dim, src_shape](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             return std::vector<Tensor>{g[0], n.needs_input_grad(1) ? pad_to(gather(g[0], dim, s[0]), src_shape) : nullptr};
           });
  } else if (op == ScatterOp::Assign) {
    record("ScatterBackward0", {&self, &src}, {&out}, {SavedTensor(index, false)},
           [dim, src_shape](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             Tensor gs = n.needs_input_grad(0) ? scatter(g[0], dim, s[0], Scalar::from_int(0)) : nullptr;
             Tensor gsrc = n.needs_input_grad(1) ? pad_to(gather(g[0], dim, s[0]), src_shape) : nullptr;
             return std::vector<Tensor>{gs, gsrc};
           });
  } else {  // reduce='multiply' is scatter_reduce(reduce='prod', include_self=True): its gradient
    record("ScatterReduceBackward0", {&self, &src}, {&out},
           {SavedTensor(index, false), SavedTensor(self, false), SavedTensor(src, false), SavedTensor(out, true)},
           [dim, src_shape](Node& node, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             auto [gs, gsrc] = scatter_reduce_grad("prod", g[0], dim, s[0], s[1], narrow_to(s[2], s[0]), s[3], true);
             return std::vector<Tensor>{gs, node.needs_input_grad(1) ? pad_to(gsrc, src_shape) : nullptr};
           });
  }
  return out;
}

// Gradients of scatter_reduce's prod/amax/amin for self and src (src narrowed to the index's shape),
// as PyTorch's scatter_reduce_backward: a zero factor gets the product of the others; ties of a max
// or min share the gradient evenly.
std::pair<Tensor, Tensor> scatter_reduce_grad(const std::string& reduce, const Tensor& g, int64_t dim, const Tensor& index,
                                              const Tensor& self, const Tensor& src, const Tensor& result,
                                              bool include_self) {
  const Scalar zero = Scalar::from_int(0), one = Scalar::from_int(1);
  if (reduce == "prod") {
    Tensor masked_self = masked_fill(self, eq(self, zero), one);
    Tensor masked_self_result = scatter_reduce(masked_self, dim, index, src, reduce, include_self);
    // (complex: the conjugated factors, PyTorch's convention)
    Tensor gs = mul(g, conj(div(masked_self_result, masked_self)));
    Tensor src_zero = eq(src, zero);
    Tensor src_num_zeros =
        gather(scatter_add(zeros(self->shape(), self->dtype(), self->device()), dim, index, cast(src_zero, self->dtype())),
               dim, index);
    Tensor src_single_zero = logical_and(src_zero, eq(src_num_zeros, one));
    Tensor masked_src_result = scatter_reduce(self, dim, index, masked_fill(src, src_single_zero, one), reduce, include_self);
    Tensor gsrc = where(src_single_zero, gather(mul(g, conj(masked_src_result)), dim, index),
                        div(gather(mul(g, conj(result)), dim, index), conj(masked_fill(src, src_zero, one))));
    return {gs, gsrc};
  }
  // amax / amin
  Tensor value = gather(result, dim, index);
  Tensor self_is_result = eq(self, result), src_is_result = eq(src, value);
  Tensor n = scatter_add(cast(self_is_result, self->dtype()), dim, index, cast(src_is_result, self->dtype()));
  Tensor gd = div(g, n);
  return {mul(cast(self_is_result, g->dtype()), gd), mul(cast(src_is_result, g->dtype()), gather(gd, dim, index))};
}

Tensor scatter_value(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, ScatterOp op,
                     const char* name) {
  const int64_t d = check_gather(self, dim, index, nullptr, name);
  scalar_of(value, self->dtype(), name);
  Tensor out = fresh_copy(self);
  scatter_into(op, out, d, index, scalar_tensor(value, self->dtype(), self->device()));
  if (op == ScatterOp::Assign) {
    record("ScatterBackward1", {&self}, {&out}, {SavedTensor(index, false)},
           [dim](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             return std::vector<Tensor>{scatter(g[0], dim, s[0], Scalar::from_int(0))};
           });
  } else if (op == ScatterOp::Add) {
    record("ScatterBackward1", {&self}, {&out}, {}, [](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
      return std::vector<Tensor>{g[0]};
    });
  } else {  // reduce='multiply': out = self * (value ** hits), linear in self
    Scalar cv = value;
    cv.im = -cv.im;  // complex gradients take the conjugate
    record("ScatterBackward1", {&self}, {&out}, {SavedTensor(index, false)},
           [dim, cv](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             return std::vector<Tensor>{scatter(g[0], dim, s[0], cv, "multiply")};
           });
  }
  return out;
}

Scalar reduce_identity(ScatterOp op, Dtype dt) {
  switch (op) {
    case ScatterOp::Mul: return Scalar::from_int(1);
    case ScatterOp::Max:
    case ScatterOp::Min: {
      const bool mx = op == ScatterOp::Max;
      if (dt == Dtype::Bool) return Scalar::from_bool(!mx);
      if (is_floating(dt)) return Scalar::from_double(mx ? -INFINITY : INFINITY);
      return dispatch_dtype(dt, [&]<typename T>() -> Scalar {
        if constexpr (std::is_integral_v<T>)
          return Scalar::from_int(int64_t(mx ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max()));
        return Scalar::from_int(0);
      });
    }
    default: return Scalar::from_int(0);
  }
}

}  // namespace

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  const bool fused = self->device().is_cpu();  // the read checks the indices (index_read_checked_kernel)
  const int64_t d = check_gather(self, dim, index, nullptr, "gather", !fused);
  Tensor out = TensorImpl::empty(index->shape(), self->dtype(), self->device());
  if (out->numel()) {
    const Shape is = shape1(index);
    Strides sst = strides1(self);
    const int64_t mult = sst[size_t(d)] * self->element_size(), size = shape1(self)[size_t(d)];
    sst[size_t(d)] = 0;
    Tensor o = raw(out, is, contiguous_strides(is)), s = raw(self, is, sst), i = as_rank1(index);
    if (!fused) {
      index_read_kernel(self->device())(*o, *s, *i, mult);
    } else if (!index_read_checked_kernel(self->device())(*o, *s, *i, mult, size)) {
      check_range(index, 0, size, "gather", d, size);  // raises with the first bad index
      LUCID_FAIL(Index, "[gather] index out of bounds for dimension " << d << " with size " << size);
    }
  }
  const Shape shape = self->shape();
  record("GatherBackward0", {&self}, {&out}, {SavedTensor(index, false)},
         [dim, shape](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{scatter_add(zeros(shape, g[0]->dtype(), g[0]->device()), dim, s[0], g[0])};
         });
  return out;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) {
  return scatter_src(self, dim, index, src, legacy_reduce(reduce, "scatter"), "scatter");
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce) {
  return scatter_value(self, dim, index, value, legacy_reduce(reduce, "scatter"), "scatter");
}

Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) {
  const ScatterOp op = legacy_reduce(reduce, "scatter_");
  const int64_t d = check_gather(self, dim, index, &src, "scatter_");
  LUCID_CHECK(src->dtype() == self->dtype(), DtypeMismatch,
              "[scatter_] expected self.dtype to be equal to src.dtype (got " << dtype_name(self->dtype()) << " and "
                                                                              << dtype_name(src->dtype()) << ")");
  return write_inplace("scatter_", self, {&src}, [&](const Tensor& s) { return scatter_src(s, dim, index, src, op, "scatter_"); },
                       [&] { scatter_into(op, self, d, index, unalias(src, self)); });
}

Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce) {
  const ScatterOp op = legacy_reduce(reduce, "scatter_");
  const int64_t d = check_gather(self, dim, index, nullptr, "scatter_");
  scalar_of(value, self->dtype(), "scatter_");
  return write_inplace("scatter_", self, {}, [&](const Tensor& s) { return scatter_value(s, dim, index, value, op, "scatter_"); },
                       [&] { scatter_into(op, self, d, index, scalar_tensor(value, self->dtype(), self->device())); });
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_src(self, dim, index, src, ScatterOp::Add, "scatter_add");
}

Tensor scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t d = check_gather(self, dim, index, &src, "scatter_add_");
  LUCID_CHECK(src->dtype() == self->dtype(), DtypeMismatch,
              "[scatter_add_] expected self.dtype to be equal to src.dtype (got " << dtype_name(self->dtype())
                                                                                 << " and " << dtype_name(src->dtype()) << ")");
  return write_inplace("scatter_add_", self, {&src},
                       [&](const Tensor& s) { return scatter_src(s, dim, index, src, ScatterOp::Add, "scatter_add_"); },
                       [&] { scatter_into(ScatterOp::Add, self, d, index, unalias(src, self)); });
}

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                      bool include_self) {
  const char* name = "scatter_reduce";
  ScatterOp op;
  if (reduce == "sum" || reduce == "mean") op = ScatterOp::Add;
  else if (reduce == "prod") op = ScatterOp::Mul;
  else if (reduce == "amax") op = ScatterOp::Max;
  else if (reduce == "amin") op = ScatterOp::Min;
  else LUCID_FAIL(Value, "[" << name << "] reduce argument must be either sum, prod, mean, amax or amin, got " << reduce);
  const int64_t d = check_gather(self, dim, index, &src, name);
  LUCID_CHECK(src->dtype() == self->dtype(), DtypeMismatch,
              "[" << name << "] expected self.dtype to be equal to src.dtype (got " << dtype_name(self->dtype())
                  << " and " << dtype_name(src->dtype()) << ")");
  LUCID_CHECK(!is_complex(self->dtype()) || op == ScatterOp::Add || op == ScatterOp::Mul, NotImplemented,
              "[" << name << "] reduce='" << reduce << "' is not supported for complex tensors");
  const bool mean = reduce == "mean";
  Tensor out = fresh_copy(self);
  if (!include_self) scatter_into(ScatterOp::Assign, out, d, index, scalar_tensor(reduce_identity(op, self->dtype()), self->dtype(), self->device()));
  scatter_into(op, out, d, index, src);
  Tensor count;  // number of values reduced into each element (1 where none), for mean
  if (mean) {
    count = full(self->shape(), Scalar::from_int(1), Dtype::I64, self->device());
    if (!include_self) scatter_into(ScatterOp::Assign, count, d, index, scalar_tensor(Scalar::from_int(0), Dtype::I64, self->device()));
    scatter_into(ScatterOp::Add, count, d, index, scalar_tensor(Scalar::from_int(1), Dtype::I64, self->device()));
    divide_by_count_kernel(self->device())(*out, *count);
  }
  const Shape src_shape = src->shape();
  if (op == ScatterOp::Add) {
    Tensor n = mean ? cast(count, self->dtype()) : nullptr;
    record("ScatterReduceBackward0", {&self, &src}, {&out}, {SavedTensor(index, false)},
           [dim, src_shape, include_self, n](Node& node, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             Tensor gg = n ? div(g[0], n) : g[0];
             Tensor gs = include_self ? gg : scatter(gg, dim, s[0], Scalar::from_int(0));
             Tensor gsrc = node.needs_input_grad(1) ? pad_to(gather(gg, dim, s[0]), src_shape) : nullptr;
             return std::vector<Tensor>{gs, gsrc};
           });
  } else {
    record("ScatterReduceBackward0", {&self, &src}, {&out},
           {SavedTensor(index, false), SavedTensor(self, false), SavedTensor(src, false), SavedTensor(out, true)},
           [dim, src_shape, include_self, reduce](Node& node, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             auto [gs, gsrc] = scatter_reduce_grad(reduce, g[0], dim, s[0], s[1], narrow_to(s[2], s[0]), s[3], include_self);
             if (!include_self) gs = scatter(gs, dim, s[0], Scalar::from_int(0));
             return std::vector<Tensor>{gs, node.needs_input_grad(1) ? pad_to(gsrc, src_shape) : nullptr};
           });
  }
  return out;
}

Tensor scatter_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                       bool include_self) {
  check_gather(self, dim, index, &src, "scatter_reduce_");
  auto oop = [&](const Tensor& s) { return scatter_reduce(s, dim, index, src, reduce, include_self); };
  return write_inplace("scatter_reduce_", self, {&src}, oop, [&] { copy_into(self, oop(self)); });
}

}  // namespace lucid
