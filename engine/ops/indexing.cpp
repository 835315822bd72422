// The indexing family (docs/notes/indexing.md): this file, indexing_scatter.cpp (gather/scatter)
// and indexing_dim.cpp (index_select/add/copy/fill), with their shared helpers in indexing_impl.h.
// Every op reduces to two kernels: a read and a read-modify-write through int64 indices on views
// the op restrides so that a kernel adds idx * stride to a plain strided position (plus fused CPU
// paths: x[mask], a gather that checks as it reads, index_add along dim 0). Indices are
// range-checked before any kernel writes. Here: advanced indexing (index / index_put, behind
// __getitem__ and __setitem__), masked_*, take/put, nonzero, one_hot.
#include "ops/indexing.h"

#include <algorithm>
#include <cmath>

#include "backend/kernels/indexing.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/host.h"
#include "ops/index_mask.h"
#include "ops/indexing_impl.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace lucid {

namespace detail {

Tensor fresh_copy(const Tensor& t) {
  Tensor out = TensorImpl::empty(t->shape(), t->dtype(), t->device());
  copy_into(out, t);
  return out;
}

Tensor scalar_tensor(const Scalar& v, Dtype dt, Device dev) { return full({}, v, dt, dev); }

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

int64_t split_dim(const Shape& shape, const std::vector<int64_t>& exclude) {
  int64_t best = -1;
  for (int64_t i = 0; i < int64_t(shape.size()); ++i) {
    if (std::find(exclude.begin(), exclude.end(), i) != exclude.end()) continue;
    if (best < 0 || shape[size_t(i)] > shape[size_t(best)]) best = i;
  }
  return best;
}

}  // namespace detail

using namespace detail;

namespace {

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
