#pragma once
// Products beyond matmul (issue 4): mm, bmm, mv, dot, vdot, inner, outer, tensordot, einsum, kron,
// cross, addmm/addmv/addr/addbmm/baddbmm, multi_dot/chain_matmul, cdist, vecdot.
// Most compose matmul with views, so transposed operands reach BLAS as flags and autograd comes
// from the composition; cross and cdist have their own kernels (backend/cpu/products.cpp).
#include <optional>
#include <string>
#include <vector>

#include "core/scalar.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// Strict rank/size/dtype checks as PyTorch, errors naming the op and the shapes.
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& mat, const Tensor& vec);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor vdot(const Tensor& a, const Tensor& b);  // conjugates a
Tensor inner(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);  // promotes, as PyTorch
Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<int64_t>& dims_a,
                 const std::vector<int64_t>& dims_b);
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims);
Tensor kron(const Tensor& a, const Tensor& b);
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

// beta * input + alpha * (product); beta == 0 ignores input's values (NaN included).
Tensor addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha);
Tensor addmv(const Tensor& input, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha);
Tensor addr(const Tensor& input, const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha);
Tensor addbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha);
Tensor baddbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha);

// The product of a chain in the cheapest order (dynamic programming over the chain).
Tensor multi_dot(const std::vector<Tensor>& tensors);     // first/last may be 1-D
Tensor chain_matmul(const std::vector<Tensor>& tensors);  // all 2-D; one matrix allowed

Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim);  // sum(conj(x) * y, dim)
// cross product along `dim` (size 3); dim unset: the first dim of size 3 (torch.cross's default).
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim, const char* op = "cross");
// Pairwise p-norm distances of the rows of x1 (.., P, M) and x2 (.., R, M): (.., P, R).
// compute_mode: 0 use mm for p=2 when P > 25 or R > 25, 1 always mm for p=2, 2 never mm.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, int compute_mode);

// linalg.vector_norm: ord 0 (count of non-zeros), 1, 2, +-inf or any real p; dims empty: all.
Tensor vector_norm(const Tensor& x, double ord, const std::optional<std::vector<int64_t>>& dim, bool keepdim,
                   std::optional<Dtype> dtype);
// linalg.matrix_norm: ord "fro", "1", "-1", "inf", "-inf" ("nuc" and +-2 need an SVD: NotImplemented).
Tensor matrix_norm(const Tensor& a, const std::string& ord, const std::vector<int64_t>& dim, bool keepdim,
                   std::optional<Dtype> dtype);

}  // namespace lucid
