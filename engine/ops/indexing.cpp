// The indexing family (docs/notes/indexing.md). Every op here reduces to two kernels: a read
// and a read-modify-write through int64 indices on views the op restrides so that a kernel adds
// idx * stride to a plain strided position (plus fused CPU paths: x[mask], a gather that checks as it
// reads, index_add along dim 0). Indices are range-checked before any kernel writes.
#include "ops/indexing.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "backend/kernels/index_fused.h"
#include "backend/kernels/indexing.h"
#include "ops/compare.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/host.h"
#include "ops/index_mask.h"
#include "ops/complex.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace lucid {

namespace {

// ---- views the kernels read (not autograd views: internal to one op)

Shape shape1(const Tensor& t) { return t->dim() ? t->shape() : Shape{1}; }
Strides strides1(const Tensor& t) { return t->dim() ? t->strides() : Strides{1}; }
int64_t rank1(const Tensor& t) { return std::max<int64_t>(t->dim(), 1); }
Tensor raw(const Tensor& t, Shape shape, Strides strides) {
  return t->as_view(std::move(shape), std::move(strides), t->storage_offset());
}
Tensor as_rank1(const Tensor& t) { return raw(t, shape1(t), strides1(t)); }

// t broadcast to `shape` (stride 0 on new and size-1 dims); the caller checked compatibility.
Tensor bcast(const Tensor& t, const Shape& shape) {
  const size_t nd = shape.size(), td = size_t(t->dim());
  Strides st(nd, 0);
  for (size_t i = 0; i < td; ++i) {
    const size_t o = nd - td + i;
    st[o] = t->shape()[i] == 1 && shape[o] != 1 ? 0 : t->strides()[i];
  }
  return raw(t, shape, st);
}

bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    const int64_t f = from[from.size() - 1 - i], t = to[to.size() - 1 - i];
    if (f != 1 && f != t) return false;
  }
  return true;
}

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (auto x : s) n *= x;
  return n;
}

// A fresh contiguous copy that records nothing (the op records its own node).
Tensor fresh_copy(const Tensor& t) {
  Tensor out = TensorImpl::empty(t->shape(), t->dtype(), t->device());
  copy_into(out, t);
  return out;
}

Tensor scalar_tensor(const Scalar& v, Dtype dt, Device dev) { return full({}, v, dt, dev); }

// A tensor operand that shares self's memory is read from a snapshot (x.index_add_(0, i, x)).
Tensor unalias(const Tensor& o, const Tensor& self) {
  return o && o->storage() == self->storage() ? fresh_copy(o) : o;
}

void check_device(const Tensor& self, const Tensor& other, const char* op, const char* what) {
  LUCID_CHECK(self->device() == other->device(), DeviceMismatch,
              "[" << op << "] expected " << what << " on " << self->device() << " (the device of self), got "
                  << other->device());
}

void check_range(const Tensor& idx, int64_t lo, int64_t hi, const char* op, int64_t dim, int64_t size) {
  int64_t bad = 0;
  if (find_out_of_range_kernel(idx->device())(*idx, lo, hi, &bad))
    LUCID_FAIL(Index, "[" << op << "] index " << bad << " is out of bounds for dimension " << dim << " with size " << size);
}

// A fill value: a scalar, or the item of a 0-d tensor; a complex value needs a complex self (as PyTorch).
Scalar scalar_of(const Operand& v, Dtype self_dtype, const char* op) {
  Scalar s;
  if (const Tensor* t = std::get_if<Tensor>(&v)) {
    LUCID_CHECK((*t)->dim() == 0, ShapeMismatch,
                "[" << op << "] only supports a 0-dimensional value tensor, but got tensor with " << (*t)->dim()
                    << " dimension(s)");
    s = item(*t);
  } else {
    s = std::get<Scalar>(v);
  }
  LUCID_CHECK(s.kind != DtypeCategory::Complex || s.im == 0 || is_complex(self_dtype), Generic,
              "[" << op << "] value " << s.re << (s.im < 0 ? "-" : "+") << std::abs(s.im) << "j cannot be converted to type "
                  << dtype_name(self_dtype) << " without overflow");
  return s;
}

// The in-place form of a write op: with autograd, the result is computed out of place from a
// snapshot of self and written back (binary_'s scheme); without, the write goes straight to self.
template <typename Oop, typename Direct>
Tensor write_inplace(const char* name, const Tensor& self, std::initializer_list<const Tensor*> others, Oop oop,
                     Direct direct) {
  check_writable(*self, name);
  if (autograd::check_inplace(self, others, name)) {
    Tensor result = oop(clone(self));
    copy_into(self, result);
    self->bump_version();
    record_inplace(self, result);
    return self;
  }
  direct();
  self->bump_version();
  return self;
}

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

// The largest dim of `shape` outside `exclude` (positions differing there never collide); -1 if none.
int64_t split_dim(const Shape& shape, const std::vector<int64_t>& exclude) {
  int64_t best = -1;
  for (int64_t i = 0; i < int64_t(shape.size()); ++i) {
    if (std::find(exclude.begin(), exclude.end(), i) != exclude.end()) continue;
    if (best < 0 || shape[size_t(i)] > shape[size_t(best)]) best = i;
  }
  return best;
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

// out[.., index[p], ..] op= src[p] along d; src is out's dtype (a 0-d src is broadcast).
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

// ---- index_select / index_add / index_copy / index_fill

struct DimIndex {
  int64_t d;
  Shape shape;     // self's shape (rank >= 1) with size n at d
  Tensor idx;      // int64 index restrided to `shape` (stride 0 off d)
};

DimIndex dim_index(const Tensor& self, int64_t dim, const Tensor& index_in, const char* op) {
  check_device(self, index_in, op, "index");
  LUCID_CHECK(index_in->dtype() == Dtype::I64 || index_in->dtype() == Dtype::I32, DtypeMismatch,
              "[" << op << "] expected dtype int32 or int64 for index, got " << dtype_name(index_in->dtype()));
  LUCID_CHECK(index_in->dim() <= 1, Index, "[" << op << "] index must be a vector (0-d or 1-d), got shape "
                                               << shape_str(index_in->shape()));
  Tensor index = index_in->dtype() == Dtype::I64 ? index_in : cast(index_in, Dtype::I64);
  DimIndex di;
  di.d = wrap_dim(dim, rank1(self), op);
  const int64_t size = shape1(self)[size_t(di.d)];
  check_range(index, 0, size, op, di.d, size);
  di.shape = shape1(self);
  di.shape[size_t(di.d)] = index->numel();
  Strides ist(di.shape.size(), 0);
  ist[size_t(di.d)] = index->dim() ? index->strides()[0] : 0;
  di.idx = raw(index, di.shape, ist);
  return di;
}

void check_source(const Tensor& self, const DimIndex& di, const Tensor& source, const char* op) {
  check_device(self, source, op, "source");
  LUCID_CHECK(source->dtype() == self->dtype(), DtypeMismatch,
              "[" << op << "] self (" << dtype_name(self->dtype()) << ") and source (" << dtype_name(source->dtype())
                  << ") must have the same scalar type");
  LUCID_CHECK(shape1(source) == di.shape, ShapeMismatch,
              "[" << op << "] source of shape " << shape_str(source->shape()) << " does not match self "
                  << shape_str(self->shape()) << " with " << di.shape[size_t(di.d)] << " indices along dimension "
                  << di.d << " (expected " << shape_str(di.shape) << ")");
}

// out[.., index[i], ..] op= src[.., i, ..] along di.d; src has di.shape (or is 0-d: broadcast).
void index_write_into(ScatterOp op, const Tensor& out, const DimIndex& di, const Tensor& src) {
  if (numel_of(di.shape) == 0) return;
  const int64_t r = int64_t(di.shape.size()), d = di.d;
  Strides ost = strides1(out);
  const int64_t mult = ost[size_t(d)] * out->element_size();
  ost[size_t(d)] = 0;
  const Strides sst = src->dim() == 0 ? Strides(size_t(r), 0) : strides1(src);
  index_write_kernel(out->device())(op, *raw(out, di.shape, ost), *raw(src, di.shape, sst), *di.idx, mult,
                                    split_dim(di.shape, {d}));
}

Tensor scaled(const Tensor& t, const Scalar& alpha) {
  const bool unit = alpha.kind != DtypeCategory::Complex && alpha.re == 1.0 && alpha.i == 1;
  return unit ? t : mul(t, alpha);
}

// ---- advanced indexing

// Per dim of self: an int64 index tensor or null; masks become their nonzero() coordinates.
std::vector<Tensor> expand_indices(const Tensor& self, const std::vector<Tensor>& indices, const char* op) {
  std::vector<Tensor> out;
  for (const Tensor& t : indices) {
    if (!t) {
      out.push_back(nullptr);
      continue;
    }
    check_device(self, t, op, "indices");
    const Dtype dt = t->dtype();
    if (dt == Dtype::Bool || dt == Dtype::U8) {
      const int64_t k = t->dim(), pos = int64_t(out.size());
      LUCID_CHECK(pos + k <= self->dim(), Index,
                  "[" << op << "] too many indices for tensor of dimension " << self->dim() << " (a mask of shape "
                      << shape_str(t->shape()) << " at dimension " << pos << ")");
      for (int64_t j = 0; j < k; ++j)
        LUCID_CHECK(t->shape()[size_t(j)] == self->shape()[size_t(pos + j)], Index,
                    "[" << op << "] the shape of the mask " << shape_str(t->shape()) << " at index " << j
                        << " does not match the shape of the indexed tensor " << shape_str(self->shape())
                        << " at index " << pos + j);
      LUCID_CHECK(k > 0, Index, "[" << op << "] a 0-d mask index is only supported by __getitem__/__setitem__");
      Tensor nz = nonzero(dt == Dtype::Bool ? t : cast(t, Dtype::Bool));
      for (int64_t j = 0; j < k; ++j) out.push_back(select(nz, 1, j));
      continue;
    }
    LUCID_CHECK(dt == Dtype::I64 || dt == Dtype::I32, Index,
                "[" << op << "] tensors used as indices must be long, int, byte or bool tensors (got "
                    << dtype_name(dt) << ")");
    out.push_back(dt == Dtype::I64 ? t : cast(t, Dtype::I64));
  }
  LUCID_CHECK(int64_t(out.size()) <= self->dim(), Index,
              "[" << op << "] too many indices for tensor of dimension " << self->dim() << " (got " << out.size() << ")");
  out.resize(size_t(self->dim()));
  return out;
}

struct IndexPlan {
  Shape b;                       // broadcast shape of the index tensors
  Shape result;                  // shape of self[indices]
  Strides src_strides;           // self's strides, restrided to `result` (0 on b's dims)
  Tensor off;                    // int64 element offsets, shape b
  Strides off_strides;           // off restrided to `result` (0 off b's dims)
  std::vector<int64_t> b_dims;   // positions of b's dims within `result`
};

IndexPlan plan_index(const Tensor& self, const std::vector<Tensor>& idx, const char* op) {
  IndexPlan p;
  int64_t first = -1, last = -1, count = 0;
  for (int64_t d = 0; d < self->dim(); ++d) {
    const Tensor& t = idx[size_t(d)];
    if (!t) continue;
    if (first < 0) first = d;
    last = d;
    if (count++ == 0) {
      p.b = t->shape();
      continue;
    }
    const Shape& s = t->shape();
    const size_t nd = std::max(p.b.size(), s.size());
    Shape r(nd);
    for (size_t i = 0; i < nd; ++i) {
      const int64_t x = i < nd - p.b.size() ? 1 : p.b[i - (nd - p.b.size())];
      const int64_t y = i < nd - s.size() ? 1 : s[i - (nd - s.size())];
      LUCID_CHECK(x == y || x == 1 || y == 1, Index,
                  "[" << op << "] shape mismatch: indexing tensors could not be broadcast together with shapes "
                      << shape_str(p.b) << ", " << shape_str(s));
      r[i] = x == 1 ? y : x;
    }
    p.b = r;
  }
  p.off = zeros(p.b, Dtype::I64, self->device());
  for (int64_t d = 0; d < self->dim(); ++d) {
    const Tensor& t = idx[size_t(d)];
    if (!t) continue;
    const int64_t size = self->shape()[size_t(d)];
    check_range(t, -size, size, op, d, size);
    index_offsets_kernel(self->device())(*p.off, *bcast(t, p.b), size, self->strides()[size_t(d)]);
  }
  const Strides bst = contiguous_strides(p.b);
  auto push_self = [&](int64_t d) {
    p.result.push_back(self->shape()[size_t(d)]);
    p.src_strides.push_back(self->strides()[size_t(d)]);
    p.off_strides.push_back(0);
  };
  auto push_b = [&] {
    for (size_t j = 0; j < p.b.size(); ++j) {
      p.b_dims.push_back(int64_t(p.result.size()));
      p.result.push_back(p.b[j]);
      p.src_strides.push_back(0);
      p.off_strides.push_back(bst[j]);
    }
  };
  if (count == 0 || last - first + 1 == count) {  // adjacent: b's dims replace the indexed ones in place
    if (count == 0) first = 0;
    for (int64_t d = 0; d < first; ++d) push_self(d);
    push_b();
    for (int64_t d = count == 0 ? 0 : last + 1; d < self->dim(); ++d) push_self(d);
  } else {  // separated by a slice: b's dims go first
    push_b();
    for (int64_t d = 0; d < self->dim(); ++d)
      if (!idx[size_t(d)]) push_self(d);
  }
  return p;
}

Tensor index_planned(const Tensor& self, const std::vector<Tensor>& idx);
Tensor index_put_planned(const Tensor& self, const std::vector<Tensor>& idx, const Tensor& values, bool accumulate);

Tensor index_planned(const Tensor& self, const std::vector<Tensor>& idx) {
  IndexPlan p = plan_index(self, idx, "index");
  Tensor out = TensorImpl::empty(p.result, self->dtype(), self->device());
  if (out->numel()) {
    Tensor src = raw(self, p.result, p.src_strides);
    Tensor off = p.off->as_view(p.result, p.off_strides, 0);
    index_read_kernel(self->device())(*out, *src, *off, self->element_size());
  }
  const Shape shape = self->shape();
  record("IndexBackward0", {&self}, {&out}, {}, [idx, shape](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{index_put_planned(zeros(shape, g[0]->dtype(), g[0]->device()), idx, g[0], true)};
  });
  return out;
}

void check_values(const Tensor& self, const Tensor& values, const char* op) {
  check_device(self, values, op, "values");
  LUCID_CHECK(values->dtype() == self->dtype(), DtypeMismatch,
              "[" << op << "] index_put requires the source and destination dtypes match, got "
                  << dtype_name(self->dtype()) << " for the destination and " << dtype_name(values->dtype())
                  << " for the source");
}

void index_put_into(const Tensor& out, const std::vector<Tensor>& idx, const Tensor& values, bool accumulate) {
  IndexPlan p = plan_index(out, idx, "index_put_");
  LUCID_CHECK(broadcasts_to(values->shape(), p.result), ShapeMismatch,
              "[index_put_] shape mismatch: value tensor of shape " << shape_str(values->shape())
                  << " cannot be broadcast to indexing result of shape " << shape_str(p.result));
  if (numel_of(p.result) == 0) return;
  Tensor dst = raw(out, p.result, p.src_strides);
  Tensor v = bcast(values, p.result);
  Tensor off = p.off->as_view(p.result, p.off_strides, 0);
  index_write_kernel(out->device())(accumulate ? ScatterOp::Add : ScatterOp::Assign, *dst, *v, *off,
                                    out->element_size(), split_dim(p.result, p.b_dims));
}

Tensor index_put_planned(const Tensor& self, const std::vector<Tensor>& idx, const Tensor& values, bool accumulate) {
  Tensor out = fresh_copy(self);
  index_put_into(out, idx, unalias(values, out), accumulate);
  const Shape vshape = values->shape();
  record("IndexPutBackward0", {&self, &values}, {&out}, {},
         [idx, accumulate, vshape](Node& n, std::vector<Tensor>& g, std::vector<Tensor>&) {
           Tensor gs, gv;
           if (n.needs_input_grad(0))
             gs = accumulate ? g[0]
                             : index_put_planned(g[0], idx, zeros({}, g[0]->dtype(), g[0]->device()), false);
           if (n.needs_input_grad(1)) gv = sum_to(index_planned(g[0], idx), vshape);
           return std::vector<Tensor>{gs, gv};
         });
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

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

namespace {
// out[.., i, ..] = self[.., index[i], ..] along di.d, recorded under `name` (the gradient: index_add).
Tensor select_along(const Tensor& self, const DimIndex& di, const Tensor& index, const char* name) {
  Tensor out = TensorImpl::empty(self->dim() ? di.shape : Shape{}, self->dtype(), self->device());
  if (out->numel()) {
    Strides sst = strides1(self);
    const int64_t mult = sst[size_t(di.d)] * self->element_size();
    sst[size_t(di.d)] = 0;
    index_read_kernel(self->device())(*raw(out, di.shape, contiguous_strides(di.shape)), *raw(self, di.shape, sst),
                                      *di.idx, mult);
  }
  const Shape shape = self->shape();
  const int64_t dim = di.d;
  record(name, {&self}, {&out}, {SavedTensor(index, false)},
         [dim, shape](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{index_add(zeros(shape, g[0]->dtype(), g[0]->device()), dim, s[0], g[0])};
         });
  return out;
}

// x[idx] with one int64 index vector whose values all lie in [0, size) (one scan): the gather of
// index_select, without the offset tensor of the general plan. Null otherwise (negative indices,
// errors: the general path).
Tensor index_first_dim(const Tensor& self, const std::vector<Tensor>& indices) {
  if (indices.size() != 1 || !indices[0] || self->dim() < 1) return nullptr;
  const Tensor& index = indices[0];
  if (index->dim() != 1 || index->dtype() != Dtype::I64 || index->device() != self->device()) return nullptr;
  int64_t bad = 0;
  if (find_out_of_range_kernel(index->device())(*index, 0, self->shape()[0], &bad)) return nullptr;
  DimIndex di;
  di.d = 0;
  di.shape = self->shape();
  di.shape[0] = index->numel();
  Strides ist(di.shape.size(), 0);
  ist[0] = index->strides()[0];
  di.idx = raw(index, di.shape, ist);
  return select_along(self, di, index, "IndexBackward0");
}
}  // namespace

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  return select_along(self, dim_index(self, dim, index, "index_select"), index, "IndexSelectBackward0");
}

namespace {

Tensor index_add_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                      const DimIndex& di) {
  Tensor out;
  {
    autograd::GradModeGuard ng(false);
    Tensor src = scaled(source, alpha);
    if (di.d == 0 && self->device().is_cpu() && self->is_contiguous() && src->is_contiguous()) {
      // along dim 0 of contiguous tensors: the copy and the adds in one pass, each thread on its own rows
      out = TensorImpl::empty(self->shape(), self->dtype(), self->device());
      index_add_rows_kernel(self->device())(*out, *self, *di.idx, *src);
    } else {
      out = fresh_copy(self);
      index_write_into(ScatterOp::Add, out, di, unalias(src, out));
    }
  }
  const Shape sshape = source->shape();
  record("IndexAddBackward0", {&self, &source}, {&out}, {SavedTensor(index, false)},
         [dim, alpha, sshape](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           Tensor gsrc = n.needs_input_grad(1) ? reshape(scaled(index_select(g[0], dim, s[0]), alpha), sshape) : nullptr;
           return std::vector<Tensor>{g[0], gsrc};
         });
  return out;
}

Tensor index_copy_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const DimIndex& di) {
  Tensor out = fresh_copy(self);
  index_write_into(ScatterOp::Assign, out, di, unalias(source, out));
  const Shape sshape = source->shape();
  record("IndexCopyBackward0", {&self, &source}, {&out}, {SavedTensor(index, false)},
         [dim, sshape](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           Tensor gs = n.needs_input_grad(0) ? index_fill(g[0], dim, s[0], Scalar::from_int(0)) : nullptr;
           Tensor gsrc = n.needs_input_grad(1) ? reshape(index_select(g[0], dim, s[0]), sshape) : nullptr;
           return std::vector<Tensor>{gs, gsrc};
         });
  return out;
}

Tensor index_fill_impl(const Tensor& self, int64_t dim, const Tensor& index, const Operand& value, const DimIndex& di) {
  Tensor out = fresh_copy(self);
  index_write_into(ScatterOp::Assign, out, di, scalar_tensor(scalar_of(value, self->dtype(), "index_fill"), self->dtype(), self->device()));
  const Tensor* vt = std::get_if<Tensor>(&value);
  Tensor v = vt ? *vt : nullptr;
  record("IndexFillBackward0", {&self, &v}, {&out}, {SavedTensor(index, false)},
         [dim, v](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           Tensor gs = index_fill(g[0], dim, s[0], Scalar::from_int(0));
           Tensor gv;
           if (n.needs_input_grad(1)) gv = cast(sub(sum(g[0], std::nullopt), sum(gs, std::nullopt)), v->dtype());
           return std::vector<Tensor>{n.needs_input_grad(0) ? gs : nullptr, gv};
         });
  return out;
}

}  // namespace

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  DimIndex di = dim_index(self, dim, index, "index_add");
  check_source(self, di, source, "index_add");
  return index_add_impl(self, dim, index, source, alpha, di);
}

Tensor index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  DimIndex di = dim_index(self, dim, index, "index_add_");
  check_source(self, di, source, "index_add_");
  return write_inplace("index_add_", self, {&source}, [&](const Tensor& s) { return index_add_impl(s, dim, index, source, alpha, di); },
                       [&] { index_write_into(ScatterOp::Add, self, di, unalias(scaled(source, alpha), self)); });
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  DimIndex di = dim_index(self, dim, index, "index_copy");
  check_source(self, di, source, "index_copy");
  return index_copy_impl(self, dim, index, source, di);
}

Tensor index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  DimIndex di = dim_index(self, dim, index, "index_copy_");
  check_source(self, di, source, "index_copy_");
  return write_inplace("index_copy_", self, {&source}, [&](const Tensor& s) { return index_copy_impl(s, dim, index, source, di); },
                       [&] { index_write_into(ScatterOp::Assign, self, di, unalias(source, self)); });
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Operand& value) {
  DimIndex di = dim_index(self, dim, index, "index_fill");
  return index_fill_impl(self, dim, index, value, di);
}

Tensor index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Operand& value) {
  DimIndex di = dim_index(self, dim, index, "index_fill_");
  const Tensor* vt = std::get_if<Tensor>(&value);
  const Scalar v = scalar_of(value, self->dtype(), "index_fill_");
  return write_inplace("index_fill_", self, {vt}, [&](const Tensor& s) { return index_fill_impl(s, dim, index, value, di); },
                       [&] { index_write_into(ScatterOp::Assign, self, di, scalar_tensor(v, self->dtype(), self->device())); });
}

// ---- masks

namespace {
void check_mask(const Tensor& self, const Tensor& mask, const char* op) {
  check_device(self, mask, op, "mask");
  LUCID_CHECK(mask->dtype() == Dtype::Bool, DtypeMismatch,
              "[" << op << "] only supports boolean masks, but got mask with dtype " << dtype_name(mask->dtype()));
}
}  // namespace

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Operand& value) {
  check_mask(self, mask, "masked_fill");
  const Scalar v = scalar_of(value, self->dtype(), "masked_fill");
  const Shape shape = broadcast_shapes(self->shape(), mask->shape(), "masked_fill");
  Tensor s = expand(self, shape, "masked_fill");
  Tensor out = fresh_copy(s);
  masked_fill_kernel(self->device())(*out, *bcast(mask, shape), v);
  const Tensor* vt = std::get_if<Tensor>(&value);
  Tensor vv = vt ? *vt : nullptr;
  record("MaskedFillBackward0", {&s, &vv}, {&out}, {SavedTensor(mask, false)},
         [vv](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& sv) {
           Tensor gs = masked_fill(g[0], sv[0], Scalar::from_int(0));
           Tensor gv;
           if (n.needs_input_grad(1)) gv = cast(sub(sum(g[0], std::nullopt), sum(gs, std::nullopt)), vv->dtype());
           return std::vector<Tensor>{n.needs_input_grad(0) ? gs : nullptr, gv};
         });
  return out;
}

Tensor masked_fill_(const Tensor& self, const Tensor& mask, const Operand& value) {
  check_mask(self, mask, "masked_fill_");
  const Scalar v = scalar_of(value, self->dtype(), "masked_fill_");
  LUCID_CHECK(broadcasts_to(mask->shape(), self->shape()), ShapeMismatch,
              "[masked_fill_] mask of shape " << shape_str(mask->shape()) << " cannot be broadcast to self's shape "
                                              << shape_str(self->shape()));
  const Tensor* vt = std::get_if<Tensor>(&value);
  return write_inplace("masked_fill_", self, {vt}, [&](const Tensor& s) { return masked_fill(s, mask, value); },
                       [&] { masked_fill_kernel(self->device())(*self, *bcast(mask, self->shape()), v); });
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  check_mask(self, mask, "masked_select");
  const Shape shape = broadcast_shapes(self->shape(), mask->shape(), "masked_select");
  Tensor s = expand(self, shape, "masked_select");
  if (shape.empty()) s = reshape(s, {1});
  return index(s, {shape.empty() ? reshape(mask, {1}) : expand(mask, shape, "masked_select")});
}

namespace {
// The first `n` elements of source, flattened (masked_scatter's values).
Tensor source_prefix(const Tensor& source, int64_t n, const char* op) {
  LUCID_CHECK(source->numel() >= n, ShapeMismatch,
              "[" << op << "] expected source to have at least " << n << " elements (the number of ones in the mask), got "
                  << source->numel());
  return narrow(reshape(source, {-1}), 0, 0, n);
}
}  // namespace

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_mask(self, mask, "masked_scatter");
  check_values(self, source, "masked_scatter");
  const Shape shape = broadcast_shapes(self->shape(), mask->shape(), "masked_scatter");
  if (shape.empty()) {
    return reshape(masked_scatter(reshape(self, {1}), reshape(mask, {1}), source), {});
  }
  Tensor m = expand(mask, shape, "masked_scatter");
  const int64_t n = count_nonzero_kernel(self->device())(*m);
  return index_put(expand(self, shape, "masked_scatter"), {m}, source_prefix(source, n, "masked_scatter"), false);
}

Tensor masked_scatter_(const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_mask(self, mask, "masked_scatter_");
  check_values(self, source, "masked_scatter_");
  LUCID_CHECK(broadcasts_to(mask->shape(), self->shape()), ShapeMismatch,
              "[masked_scatter_] mask of shape " << shape_str(mask->shape()) << " cannot be broadcast to self's shape "
                                                 << shape_str(self->shape()));
  return write_inplace("masked_scatter_", self, {&source}, [&](const Tensor& s) { return masked_scatter(s, mask, source); },
                       [&] { copy_into(self, masked_scatter(self, mask, unalias(source, self))); });
}

// ---- advanced indexing

Tensor index(const Tensor& self, const std::vector<Tensor>& indices) {
  if (Tensor r = index_first_dim(self, indices)) return r;
  if (Tensor r = index_by_mask(self, indices)) return r;
  return index_planned(self, expand_indices(self, indices, "index"));
}

Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  check_values(self, values, "index_put");
  return index_put_planned(self, expand_indices(self, indices, "index_put"), values, accumulate);
}

Tensor index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  check_values(self, values, "index_put_");
  auto idx = expand_indices(self, indices, "index_put_");
  return write_inplace("index_put_", self, {&values},
                       [&](const Tensor& s) { return index_put_planned(s, idx, values, accumulate); },
                       [&] { index_put_into(self, idx, unalias(values, self), accumulate); });
}

// ---- take / put

namespace {
void check_long(const Tensor& self, const Tensor& index, const char* op) {
  check_device(self, index, op, "index");
  LUCID_CHECK(index->dtype() == Dtype::I64, DtypeMismatch,
              "[" << op << "] expected a long tensor for index, but got " << dtype_name(index->dtype()));
}
void check_flat_range(const Tensor& index, int64_t n, const char* op) {
  int64_t bad = 0;
  if (find_out_of_range_kernel(index->device())(*index, -n, n, &bad))
    LUCID_FAIL(Index, "[" << op << "] out of range: tried to access index " << bad << " on a tensor of " << n << " elements");
}
}  // namespace

Tensor take(const Tensor& self, const Tensor& index) {
  check_long(self, index, "take");
  check_flat_range(index, self->numel(), "take");
  return lucid::index(reshape(self, {-1}), {index});
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  check_long(self, indices, "take_along_dim");
  if (!dim) return gather(reshape(self, {-1}), 0, reshape(indices, {-1}));
  LUCID_CHECK(self->dim() == indices->dim(), ShapeMismatch,
              "[take_along_dim] input and indices should have the same number of dimensions, but got "
                  << self->dim() << " dimensions for input, and " << indices->dim() << " dimensions for indices");
  const int64_t d = wrap_dim(*dim, rank1(self), "take_along_dim");
  if (self->dim() == 0) return gather(self, d, indices);
  Shape ss = self->shape();
  ss[size_t(d)] = indices->shape()[size_t(d)];
  Shape bs = broadcast_shapes(ss, indices->shape(), "take_along_dim");
  Tensor ib = expand(indices, bs, "take_along_dim");
  bs[size_t(d)] = self->shape()[size_t(d)];
  return gather(expand(self, bs, "take_along_dim"), d, ib);
}

Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  check_long(self, index, "put");
  check_values(self, source, "put");
  LUCID_CHECK(index->numel() == source->numel(), ShapeMismatch,
              "[put] expected source and index to have the same number of elements, but got " << source->numel()
                  << " and " << index->numel());
  check_flat_range(index, self->numel(), "put");
  Tensor r = index_put(reshape(self, {-1}), {reshape(index, {-1})}, reshape(source, {-1}), accumulate);
  return reshape(r, self->shape());
}

Tensor put_(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  check_long(self, index, "put_");
  check_values(self, source, "put_");
  LUCID_CHECK(index->numel() == source->numel(), ShapeMismatch,
              "[put_] expected source and index to have the same number of elements, but got " << source->numel()
                  << " and " << index->numel());
  check_flat_range(index, self->numel(), "put_");
  return write_inplace("put_", self, {&source}, [&](const Tensor& s) { return put(s, index, source, accumulate); },
                       [&] {
                         if (self->is_contiguous()) {
                           Tensor flat = raw(self, {self->numel()}, {1});
                           index_put_into(flat, {reshape(index, {-1})}, unalias(reshape(source, {-1}), self), accumulate);
                         } else {
                           copy_into(self, put(self, index, source, accumulate));
                         }
                       });
}

// ---- nonzero / one_hot

Tensor nonzero(const Tensor& self) {
  const int64_t n = count_nonzero_kernel(self->device())(*self);
  Tensor out = TensorImpl::empty({n, self->dim()}, Dtype::I64, self->device());
  nonzero_kernel(self->device())(*out, *self);
  return out;
}

std::vector<Tensor> nonzero_tuple(const Tensor& self) {
  Tensor nz = nonzero(self->dim() ? self : reshape(self, {1}));
  std::vector<Tensor> out;
  for (int64_t j = 0; j < nz->shape()[1]; ++j) out.push_back(select(nz, 1, j));
  return out;
}

Tensor argwhere(const Tensor& self) { return nonzero(self); }

Tensor one_hot(const Tensor& self, int64_t num_classes) {
  LUCID_CHECK(self->dtype() == Dtype::I64, DtypeMismatch,
              "[one_hot] is only applicable to index tensor of type int64 (got " << dtype_name(self->dtype()) << ")");
  Tensor h = to_host_contiguous(self);
  const int64_t* p = h->data<int64_t>();
  int64_t lo = 0, hi = -1;
  for (int64_t i = 0; i < h->numel(); ++i) {
    lo = i ? std::min(lo, p[i]) : p[i];
    hi = i ? std::max(hi, p[i]) : p[i];
  }
  if (num_classes == -1) {
    LUCID_CHECK(self->numel() > 0, Value, "[one_hot] can not infer the total number of classes from an empty tensor");
    num_classes = hi + 1;
  }
  LUCID_CHECK(num_classes >= 0, Value, "[one_hot] num_classes should be -1 or non-negative, got " << num_classes);
  LUCID_CHECK(self->numel() == 0 || lo >= 0, Index, "[one_hot] class values must be non-negative (got " << lo << ")");
  LUCID_CHECK(self->numel() == 0 || hi < num_classes, Index,
              "[one_hot] class values must be smaller than num_classes (got " << hi << " for num_classes " << num_classes << ")");
  Shape shape = self->shape();
  shape.push_back(num_classes);
  Tensor out = zeros(shape, Dtype::I64, self->device());
  Shape is = self->shape();
  is.push_back(1);
  Strides ist = self->strides();
  ist.push_back(0);
  scatter_into(ScatterOp::Assign, out, int64_t(shape.size()) - 1, raw(self, is, ist),
               scalar_tensor(Scalar::from_int(1), Dtype::I64, self->device()));
  return out;
}

}  // namespace lucid
