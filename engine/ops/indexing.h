#pragma once
// The indexing family: advanced indexing (index / index_put, the engine side of __getitem__ and
// __setitem__), gather/scatter, index_select/add/copy/fill, masked_*, take/put, nonzero, one_hot.
// Out-of-range indices raise IndexError naming the index and the size; every index is checked
// before anything is read or written.
#include <optional>
#include <string>
#include <vector>

#include "ops/binary.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// gather/scatter along `dim` (PyTorch's rules: index int64 with self's rank, index sizes within
// self's (and src's) sizes, index values in [0, self.size(dim))).
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
// reduce: "" (assign), "add" or "multiply" (scatter's legacy reduce argument).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce = "");
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce = "");
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce = "");
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce = "");
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// reduce: "sum", "prod", "mean", "amax", "amin".
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                      bool include_self = true);
Tensor scatter_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                       const std::string& reduce, bool include_self = true);

// index_* along `dim` with a 1-D (or 0-d) int32/int64 index, values in [0, self.size(dim)).
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha = Scalar::from_int(1));
Tensor index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                  const Scalar& alpha = Scalar::from_int(1));
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Operand& value);
Tensor index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Operand& value);

// masked ops: mask is bool and broadcasts with self; a tensor value must be 0-d.
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Operand& value);
Tensor masked_fill_(const Tensor& self, const Tensor& mask, const Operand& value);
Tensor masked_select(const Tensor& self, const Tensor& mask);
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor masked_scatter_(const Tensor& self, const Tensor& mask, const Tensor& source);

// aten::index: `indices` has at most self.dim() entries; a null entry is a full slice; integer
// tensors (negative values count from the end) broadcast together; bool/uint8 masks stand for
// their nonzero() coordinates. Separated index tensors put their dims first (NumPy's rule).
Tensor index(const Tensor& self, const std::vector<Tensor>& indices);
Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false);
Tensor index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false);

Tensor take(const Tensor& self, const Tensor& index);
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim);
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor put_(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);

Tensor nonzero(const Tensor& self);                     // int64 [n, self.dim()]
std::vector<Tensor> nonzero_tuple(const Tensor& self);  // as_tuple=True
Tensor argwhere(const Tensor& self);
Tensor one_hot(const Tensor& self, int64_t num_classes = -1);

}  // namespace lucid
