#pragma once
// Internals shared by the indexing family's op files (indexing*.cpp): the views the kernels read,
// the checks, the in-place scheme, and the writes more than one file calls.
#include <algorithm>
#include <initializer_list>
#include <vector>

#include "backend/kernels/indexing.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/graph.h"
#include "tensor/tensor_impl.h"

namespace lucid::detail {

// ---- views the kernels read (not autograd views: internal to one op)

inline Shape shape1(const Tensor& t) { return t->dim() ? t->shape() : Shape{1}; }
inline Strides strides1(const Tensor& t) { return t->dim() ? t->strides() : Strides{1}; }
inline int64_t rank1(const Tensor& t) { return std::max<int64_t>(t->dim(), 1); }
inline Tensor raw(const Tensor& t, Shape shape, Strides strides) {
  return t->as_view(std::move(shape), std::move(strides), t->storage_offset());
}
inline Tensor as_rank1(const Tensor& t) { return raw(t, shape1(t), strides1(t)); }

// ---- defined in indexing.cpp

// A fresh contiguous copy that records nothing (the op records its own node).
Tensor fresh_copy(const Tensor& t);

Tensor scalar_tensor(const Scalar& v, Dtype dt, Device dev);

// A tensor operand that shares self's memory is read from a snapshot (x.index_add_(0, i, x)).
Tensor unalias(const Tensor& o, const Tensor& self);

void check_device(const Tensor& self, const Tensor& other, const char* op, const char* what);

void check_range(const Tensor& idx, int64_t lo, int64_t hi, const char* op, int64_t dim, int64_t size);

// A fill value: a scalar, or the item of a 0-d tensor; a complex value needs a complex self (as PyTorch).
Scalar scalar_of(const Operand& v, Dtype self_dtype, const char* op);

// The largest dim of `shape` outside `exclude` (positions differing there never collide); -1 if none.
int64_t split_dim(const Shape& shape, const std::vector<int64_t>& exclude);

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

// ---- defined in indexing_scatter.cpp

// out[.., index[p], ..] op= src[p] along d; src is out's dtype (a 0-d src is broadcast).
void scatter_into(ScatterOp op, const Tensor& out, int64_t d, const Tensor& index, const Tensor& src);

// ---- defined in indexing_dim.cpp

struct DimIndex {
  int64_t d;
  Shape shape;     // self's shape (rank >= 1) with size n at d
  Tensor idx;      // int64 index restrided to `shape` (stride 0 off d)
};

// out[.., i, ..] = self[.., index[i], ..] along di.d, recorded under `name` (the gradient: index_add).
Tensor select_along(const Tensor& self, const DimIndex& di, const Tensor& index, const char* name);

}  // namespace lucid::detail
