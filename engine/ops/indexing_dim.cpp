// index_select, index_add, index_copy, index_fill along one dim (the indexing family:
// docs/notes/indexing.md).
#include "backend/kernels/index_fused.h"
#include "backend/kernels/indexing.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/indexing.h"
#include "ops/indexing_impl.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace lucid {

using namespace detail;

namespace {

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

}  // namespace

namespace detail {

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

}  // namespace detail

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

}  // namespace lucid
