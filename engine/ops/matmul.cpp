#include "ops/matmul.h"

#include "backend/kernels/blas.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/graph.h"
#include "ops/view.h"

namespace lucid {

namespace {
// Collapse (or expand) leading batch dims to one: returns a rank-3 view when strides allow,
// else a rank-3 view of a contiguous copy.
Tensor as_batched(const Tensor& t, const Shape& batch) {
  int64_t nb = 1;
  for (auto v : batch) nb *= v;
  Shape full = batch;
  full.push_back(t->shape()[size_t(t->dim() - 2)]);
  full.push_back(t->shape()[size_t(t->dim() - 1)]);
  Tensor e = expand(t, full, "matmul");
  return reshape(e, {nb, full[full.size() - 2], full.back()});  // a view when strides allow
}
// Whether all dims but the last of `t` merge into one without a copy.
bool rows_merge(const Tensor& t) {
  int64_t expect = -1;  // the stride the next-outer non-trivial dim must have
  for (int64_t i = t->dim() - 2; i >= 0; --i) {
    const int64_t n = t->shape()[size_t(i)], st = t->strides()[size_t(i)];
    if (n == 1) continue;
    if (expect >= 0 && st != expect) return false;
    expect = st * n;
  }
  return true;
}
// Whether the (B, R, C) operand is column-major: each matrix the transpose of a contiguous one.
bool col_major(const Tensor& t) {
  const int64_t r = t->shape()[1], c = t->shape()[2];
  return r > 1 && c > 1 && t->strides()[1] == 1 && t->strides()[2] == r;
}
}  // namespace

Tensor matmul(const Tensor& a_in, const Tensor& b_in) {
  LUCID_CHECK(a_in->dim() > 0 && b_in->dim() > 0, ShapeMismatch,
              "[matmul] both arguments need at least 1 dimension, got shapes " << shape_str(a_in->shape()) << " and "
                                                                            << shape_str(b_in->shape()));
  LUCID_CHECK(a_in->device() == b_in->device(), DeviceMismatch,
              "[matmul] expected both operands on the same device, got " << a_in->device() << " and " << b_in->device());
  LUCID_CHECK(a_in->dtype() == b_in->dtype(), DtypeMismatch,
              "[matmul] expected both operands to have the same dtype, got " << dtype_name(a_in->dtype()) << " and "
                                                                              << dtype_name(b_in->dtype()));
  // (..., M, K) @ (K, N) or (K,): one GEMM over (prod(...) * M, K) when those dims merge into a view,
  // so the vjp of the shared operand is one GEMM too, not a batch of them summed afterwards.
  if (a_in->dim() >= 3 && (b_in->dim() == 1 || b_in->dim() == 2) && rows_merge(a_in)) {
    const int64_t K = a_in->shape().back();
    const int64_t K2 = b_in->shape()[0];
    LUCID_CHECK(K == K2, ShapeMismatch,
                "[matmul] shapes " << shape_str(a_in->shape()) << " and " << shape_str(b_in->shape())
                                   << ": inner dimensions " << K << " and " << K2 << " differ");
    Shape s(a_in->shape().begin(), a_in->shape().end() - 1);
    if (b_in->dim() == 2) s.push_back(b_in->shape()[1]);
    int64_t rows = 1;
    for (int64_t i = 0; i + 1 < a_in->dim(); ++i) rows *= a_in->shape()[size_t(i)];
    return reshape(matmul(reshape(a_in, {rows, K}), b_in), s);
  }
  const bool a1 = a_in->dim() == 1, b1 = b_in->dim() == 1;
  Tensor a = a1 ? unsqueeze(a_in, 0) : a_in;
  Tensor b = b1 ? unsqueeze(b_in, 1) : b_in;
  const int64_t M = a->shape()[size_t(a->dim() - 2)], K = a->shape()[size_t(a->dim() - 1)];
  const int64_t K2 = b->shape()[size_t(b->dim() - 2)], N = b->shape()[size_t(b->dim() - 1)];
  LUCID_CHECK(K == K2, ShapeMismatch,
              "[matmul] shapes " << shape_str(a_in->shape()) << " and " << shape_str(b_in->shape())
                                 << ": inner dimensions " << K << " and " << K2 << " differ");
  const Shape ba(a->shape().begin(), a->shape().end() - 2), bb(b->shape().begin(), b->shape().end() - 2);
  Shape batch;
  try {
    batch = broadcast_shapes(ba, bb, "matmul");
  } catch (const Error&) {
    LUCID_FAIL(ShapeMismatch, "[matmul] shapes " << shape_str(a_in->shape()) << " and " << shape_str(b_in->shape())
                                                 << ": batch dimensions " << shape_str(ba) << " and " << shape_str(bb)
                                                 << " cannot be broadcast");
  }
  Tensor a3 = as_batched(a, batch), b3 = as_batched(b, batch);
  Shape out_shape = batch;
  out_shape.push_back(M);
  out_shape.push_back(N);
  Tensor out = TensorImpl::empty({a3->shape()[0], M, N}, a->dtype(), a->device());
  gemm_kernel(a->device())(*out, *a3, *b3);
  record("BmmBackward0", {&a3, &b3}, {&out}, {SavedTensor(a3, false), SavedTensor(b3, false)},
         [](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           // Conjugate transposes (the identity for real tensors: conj returns its input). A column-major
           // operand (the transpose of a contiguous matrix, as weight.mT in linear) gets its gradient in
           // its own layout, as the transpose of a row-major GEMM: the gradient that reaches the matrix
           // is then contiguous, and no transposing copy follows.
           Tensor ga, gb;
           if (n.needs_input_grad(0))
             ga = col_major(s[0]) ? transpose(matmul(conj(s[1]), transpose(g[0], 1, 2)), 1, 2)
                                  : matmul(g[0], transpose(conj(s[1]), 1, 2));
           if (n.needs_input_grad(1))
             gb = col_major(s[1]) ? transpose(matmul(transpose(g[0], 1, 2), conj(s[0])), 1, 2)
                                  : matmul(transpose(conj(s[0]), 1, 2), g[0]);
           return std::vector<Tensor>{ga, gb};
         });
  Shape final_shape = batch;
  if (!a1) final_shape.push_back(M);
  if (!b1) final_shape.push_back(N);
  return reshape(out, final_shape);
}

}  // namespace lucid
