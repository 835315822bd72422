// cross and cdist: products with kernels of their own (backend/cpu/products.cpp), vjps in lucid ops.
#include <cmath>

#include "backend/kernels/products.h"
#include "ops/binary.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/matmul.h"
#include "ops/products.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/unary.h"
#include "ops/view.h"

namespace lucid {

Tensor cross(const Tensor& a_in, const Tensor& b_in, std::optional<int64_t> dim, const char* op) {
  LUCID_CHECK(a_in->device() == b_in->device(), DeviceMismatch,
              "[" << op << "] expected both operands on the same device, got " << a_in->device() << " and "
                  << b_in->device());
  LUCID_CHECK(a_in->dtype() == b_in->dtype(), DtypeMismatch,
              "[" << op << "] expected both operands to have the same dtype, got " << dtype_name(a_in->dtype())
                  << " and " << dtype_name(b_in->dtype()));
  LUCID_CHECK(a_in->dtype() != Dtype::Bool, DtypeMismatch, "[" << op << "] not implemented for bool tensors");
  LUCID_CHECK(a_in->dim() == b_in->dim(), ShapeMismatch,
              "[" << op << "] inputs must have the same number of dimensions, got shapes " << shape_str(a_in->shape())
                  << " and " << shape_str(b_in->shape()));
  const Shape s = broadcast_shapes(a_in->shape(), b_in->shape(), op);
  int64_t d = -1;
  if (dim) {
    d = wrap_dim(*dim, int64_t(s.size()), op);
  } else {
    for (size_t i = 0; i < s.size() && d < 0; ++i)
      if (a_in->shape()[i] == 3 && b_in->shape()[i] == 3) d = int64_t(i);
    LUCID_CHECK(d >= 0, ShapeMismatch,
                "[" << op << "] no dimension of size 3 in inputs of shapes " << shape_str(a_in->shape()) << " and "
                    << shape_str(b_in->shape()));
  }
  LUCID_CHECK(a_in->shape()[size_t(d)] == 3 && b_in->shape()[size_t(d)] == 3, ShapeMismatch,
              "[" << op << "] inputs dimension " << (dim ? *dim : d) << " must have length 3, got shapes "
                  << shape_str(a_in->shape()) << " and " << shape_str(b_in->shape()));
  Tensor a = expand(a_in, s, op), b = expand(b_in, s, op);
  Tensor out = TensorImpl::empty(s, a->dtype(), a->device());
  cross_kernel(a->device())(*out, *a, *b, d);
  record("LinalgCrossBackward0", {&a, &b}, {&out}, {SavedTensor(a, false), SavedTensor(b, false)},
         [d](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& sv) {
           return std::vector<Tensor>{n.needs_input_grad(0) ? cross(conj(sv[1]), g[0], d, "cross") : nullptr,
                                      n.needs_input_grad(1) ? cross(g[0], conj(sv[0]), d, "cross") : nullptr};
         });
  return out;
}

namespace {

Tensor one_minus(const Tensor& t) { return sub(Scalar::from_int(1), t); }

// ||x1_i - x2_j|| through one GEMM (PyTorch's _euclidean_dist): [-2 x1, |x1|^2, 1] @ [x2, 1, |x2|^2]^T
// is |x1|^2 - 2 x1 x2^T + |x2|^2, floored at 0 and lifted by 1e-30 before the root, so a zero
// distance has a zero gradient (PyTorch clamps at 1e-30: the same values but below 1e-23).
Tensor euclidean_mm(const Tensor& x1, const Tensor& x2) {
  Tensor n1 = sum(mul(x1, x1), std::vector<int64_t>{-1}, true);
  Tensor n2 = sum(mul(x2, x2), std::vector<int64_t>{-1}, true);
  Tensor a = cat({mul(x1, Scalar::from_int(-2)), n1, ones(n1->shape(), n1->dtype(), n1->device())}, -1);
  Tensor b = cat({x2, ones(n2->shape(), n2->dtype(), n2->device()), n2}, -1);
  Tensor d2 = matmul(a, matrix_transpose(b));
  return unary(UnaryOp::Sqrt, add(unary(UnaryOp::Relu, d2), Scalar::from_double(1e-30)));
}

// The gradient of the p-norm distances d (B, P, R) with respect to x1 (B, P, M) and x2 (B, R, M).
// W = d d_ij / d x1_i = sign(diff) |diff|^(p-1) / d^(p-1), zero where d (or, for p < 1, diff) is 0.
std::vector<Tensor> cdist_vjp(Node& n, const Tensor& g, const Tensor& x1, const Tensor& x2, const Tensor& d, double p) {
  if (p == 0)
    return {n.needs_input_grad(0) ? zeros(x1->shape(), x1->dtype(), x1->device()) : nullptr,
            n.needs_input_grad(1) ? zeros(x2->shape(), x2->dtype(), x2->device()) : nullptr};
  Tensor diff = sub(unsqueeze(x1, 2), unsqueeze(x2, 1));  // (B, P, R, M)
  Tensor sd = unary(UnaryOp::Sign, diff);
  Tensor W;
  if (p == 1) {
    W = sd;
  } else {
    Tensor nz = unary(UnaryOp::Sign, d);                      // 1 where d > 0, else 0
    Tensor dsafe = unsqueeze(add(d, one_minus(nz)), 3);       // d, or 1 where d == 0
    Tensor ad = unary(UnaryOp::Abs, diff);
    if (p == 2) {
      W = div(mul(diff, unsqueeze(nz, 3)), dsafe);
    } else if (std::isinf(p)) {
      // 1 where |diff| reaches the maximum d (d - |diff| >= 0, so its sign is 0 exactly there)
      W = mul(sd, one_minus(unary(UnaryOp::Sign, sub(unsqueeze(d, 3), ad))));
    } else {
      // (|diff| / d)^(p-1) as exp((p-1) log(.)), with the log's argument 1 where diff == 0
      Tensor ratio = add(div(ad, dsafe), one_minus(unary(UnaryOp::Abs, sd)));
      W = mul(sd, unary(UnaryOp::Exp, mul(unary(UnaryOp::Log, ratio), Scalar::from_double(p - 1))));
    }
  }
  Tensor gw = mul(unsqueeze(g, 3), W);
  return {n.needs_input_grad(0) ? sum(gw, std::vector<int64_t>{2}) : nullptr,
          n.needs_input_grad(1) ? mul(sum(gw, std::vector<int64_t>{1}), Scalar::from_int(-1)) : nullptr};
}

}  // namespace

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, int compute_mode) {
  LUCID_CHECK(x1->dim() >= 2 && x2->dim() >= 2, ShapeMismatch,
              "[cdist] only supports at least 2D tensors, got shapes " << shape_str(x1->shape()) << " and "
                                                                      << shape_str(x2->shape()));
  LUCID_CHECK(x1->device() == x2->device(), DeviceMismatch,
              "[cdist] expected both inputs on the same device, got " << x1->device() << " and " << x2->device());
  LUCID_CHECK(x1->dtype() == Dtype::F32 || x1->dtype() == Dtype::F64, DtypeMismatch,
              "[cdist] only supports float32 and float64 inputs, got " << dtype_name(x1->dtype()));
  LUCID_CHECK(x1->dtype() == x2->dtype(), DtypeMismatch,
              "[cdist] expected both inputs to have the same dtype, got " << dtype_name(x1->dtype()) << " and "
                                                                         << dtype_name(x2->dtype()));
  LUCID_CHECK(x1->shape().back() == x2->shape().back(), ShapeMismatch,
              "[cdist] x1 and x2 must have the same number of columns, got shapes " << shape_str(x1->shape())
                                                                                   << " and " << shape_str(x2->shape()));
  LUCID_CHECK(p >= 0 && !std::isnan(p), Value, "[cdist] only supports non-negative p values, got " << p);
  LUCID_CHECK(compute_mode >= 0 && compute_mode <= 2, Value, "[cdist] unknown compute_mode " << compute_mode);
  const int64_t P = x1->shape()[size_t(x1->dim() - 2)], R = x2->shape()[size_t(x2->dim() - 2)], M = x1->shape().back();
  const Shape b1(x1->shape().begin(), x1->shape().end() - 2), b2(x2->shape().begin(), x2->shape().end() - 2);
  const Shape batch = broadcast_shapes(b1, b2, "cdist");
  if (p == 2 && M > 0 && (compute_mode == 1 || (compute_mode == 0 && (P > 25 || R > 25))))
    return euclidean_mm(x1, x2);
  int64_t nb = 1;
  for (int64_t v : batch) nb *= v;
  Shape s1 = batch, s2 = batch, so = batch;
  s1.insert(s1.end(), {P, M});
  s2.insert(s2.end(), {R, M});
  so.insert(so.end(), {P, R});
  Tensor a = contiguous(reshape(expand(x1, s1, "cdist"), {nb, P, M}));
  Tensor b = contiguous(reshape(expand(x2, s2, "cdist"), {nb, R, M}));
  Tensor out = TensorImpl::empty({nb, P, R}, a->dtype(), a->device());
  if (M == 0) fill_(out, Scalar::from_int(0));
  else cdist_kernel(a->device())(*out, *a, *b, p);
  record("CdistBackward0", {&a, &b}, {&out}, {SavedTensor(a, false), SavedTensor(b, false), SavedTensor(out, true)},
         [p](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& sv) { return cdist_vjp(n, g[0], sv[0], sv[1], sv[2], p); });
  return reshape(out, so);
}

}  // namespace lucid
