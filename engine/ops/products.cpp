// Products composed from matmul and views (spec 004 semantics underneath): the strict 2-D/3-D
// forms, dot products, tensordot, kron, the add-product family and chain products. Autograd comes
// from the composition (matmul, views, mul/add and sum each record their own vjp).
#include "ops/products.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "ops/binary.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/matmul.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace lucid {

namespace {

void same_dtype(const char* op, const Tensor& a, const Tensor& b) {
  LUCID_CHECK(a->dtype() == b->dtype(), DtypeMismatch,
              "[" << op << "] expected both operands to have the same dtype, got " << dtype_name(a->dtype()) << " and "
                  << dtype_name(b->dtype()));
}

void same_device(const char* op, const Tensor& a, const Tensor& b) {
  LUCID_CHECK(a->device() == b->device(), DeviceMismatch,
              "[" << op << "] expected both operands on the same device, got " << a->device() << " and "
                  << b->device());
}

std::string mat_str(const Tensor& t) {
  std::ostringstream s;
  for (int64_t i = 0; i < t->dim(); ++i) s << (i ? "x" : "") << t->shape()[size_t(i)];
  return s.str();
}

// Integral tensors take integral scale factors (PyTorch truncates a float beta/alpha there).
Scalar coerce(const Scalar& s, Dtype d) {
  if (d == Dtype::Bool) return Scalar::from_bool(s.b);
  if (is_integral(d, false) && (s.kind == DtypeCategory::Floating || s.kind == DtypeCategory::Complex))
    return Scalar::from_int(int64_t(s.re));
  return s;
}

bool is_zero(const Scalar& s) { return !s.b; }
bool is_one(const Scalar& s) {
  return s.kind == DtypeCategory::Bool ? s.b : (s.kind == DtypeCategory::Integral ? s.i == 1 : s.re == 1 && s.im == 0);
}

// beta * input + alpha * prod, input already broadcast-checked against prod's shape.
Tensor scaled_sum(const Tensor& input, const Tensor& prod, Scalar beta, Scalar alpha) {
  const Dtype d = promote_types(input->dtype(), prod->dtype());
  beta = coerce(beta, d);
  alpha = coerce(alpha, d);
  if (is_zero(beta)) {
    Tensor r = is_one(alpha) ? prod : mul(prod, alpha);
    if (r->dtype() != d) r = cast(r, d);
    return r;
  }
  Tensor x = is_one(beta) ? input : mul(input, beta);
  return add(x, prod, alpha);
}

void check_matrix(const char* op, const char* name, const Tensor& t, int64_t rank) {
  LUCID_CHECK(t->dim() == rank, ShapeMismatch,
              "[" << op << "] " << name << " must be a " << rank << "-D tensor, got shape " << shape_str(t->shape()));
}

void check_mm(const char* op, const Tensor& a, const Tensor& b) {
  check_matrix(op, "mat1", a, 2);
  check_matrix(op, "mat2", b, 2);
  same_device(op, a, b);
  same_dtype(op, a, b);
  LUCID_CHECK(a->shape()[1] == b->shape()[0], ShapeMismatch,
              "[" << op << "] mat1 and mat2 shapes cannot be multiplied (" << mat_str(a) << " and " << mat_str(b)
                  << ")");
}

void check_bmm(const char* op, const Tensor& a, const Tensor& b) {
  check_matrix(op, "batch1", a, 3);
  check_matrix(op, "batch2", b, 3);
  same_device(op, a, b);
  same_dtype(op, a, b);
  LUCID_CHECK(a->shape()[0] == b->shape()[0] && a->shape()[2] == b->shape()[1], ShapeMismatch,
              "[" << op << "] batch1 " << shape_str(a->shape()) << " and batch2 " << shape_str(b->shape())
                  << " cannot be multiplied: expected batch2 of shape (" << a->shape()[0] << ", " << a->shape()[2]
                  << ", *)");
}

void check_mv(const char* op, const Tensor& mat, const Tensor& vec) {
  LUCID_CHECK(mat->dim() == 2 && vec->dim() == 1, ShapeMismatch,
              "[" << op << "] expected a matrix and a vector, got shapes " << shape_str(mat->shape()) << " and "
                  << shape_str(vec->shape()));
  same_device(op, mat, vec);
  same_dtype(op, mat, vec);
  LUCID_CHECK(mat->shape()[1] == vec->shape()[0], ShapeMismatch,
              "[" << op << "] size mismatch, got mat (" << mat_str(mat) << ") and vec (" << vec->shape()[0] << ")");
}

void check_input(const char* op, const Tensor& input, const Tensor& other) {
  same_device(op, input, other);
  LUCID_CHECK(input->dtype() == other->dtype(), DtypeMismatch,
              "[" << op << "] input and the product must have the same dtype, got " << dtype_name(input->dtype())
                  << " and " << dtype_name(other->dtype()));
}

// input must broadcast to `shape` (PyTorch expands it).
Tensor expand_input(const char* op, const Tensor& input, const Shape& shape) {
  LUCID_CHECK(input->dim() <= int64_t(shape.size()), ShapeMismatch,
              "[" << op << "] input of shape " << shape_str(input->shape()) << " does not broadcast to the result shape "
                  << shape_str(shape));
  for (int64_t i = 1; i <= input->dim(); ++i) {
    const int64_t have = input->shape()[size_t(input->dim() - i)], want = shape[shape.size() - size_t(i)];
    LUCID_CHECK(have == want || have == 1, ShapeMismatch,
                "[" << op << "] input of shape " << shape_str(input->shape())
                    << " does not broadcast to the result shape " << shape_str(shape));
  }
  return input;  // add broadcasts it
}

void check_dot(const char* op, const Tensor& a, const Tensor& b) {
  LUCID_CHECK(a->dim() == 1 && b->dim() == 1, ShapeMismatch,
              "[" << op << "] 1D tensors expected, but got shapes " << shape_str(a->shape()) << " and "
                  << shape_str(b->shape()));
  same_device(op, a, b);
  same_dtype(op, a, b);
  LUCID_CHECK(a->shape()[0] == b->shape()[0], ShapeMismatch,
              "[" << op << "] inconsistent tensor size: shapes " << shape_str(a->shape()) << " and "
                  << shape_str(b->shape()) << " differ in length");
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  check_mm("mm", a, b);
  return matmul(a, b);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  check_bmm("bmm", a, b);
  return matmul(a, b);
}

Tensor mv(const Tensor& mat, const Tensor& vec) {
  check_mv("mv", mat, vec);
  return matmul(mat, vec);
}

Tensor dot(const Tensor& a, const Tensor& b) {
  check_dot("dot", a, b);
  return matmul(a, b);
}

Tensor vdot(const Tensor& a, const Tensor& b) {
  check_dot("vdot", a, b);
  return matmul(conj(a), b);
}

Tensor inner(const Tensor& a, const Tensor& b) {
  if (a->dim() == 0 || b->dim() == 0) return mul(a, b);
  same_device("inner", a, b);
  same_dtype("inner", a, b);
  LUCID_CHECK(a->shape().back() == b->shape().back(), ShapeMismatch,
              "[inner] the last dimension must match on both inputs but got shapes " << shape_str(a->shape()) << " and "
                                                                                     << shape_str(b->shape()));
  return tensordot(a, b, {a->dim() - 1}, {b->dim() - 1});
}

Tensor outer(const Tensor& a, const Tensor& b) {
  LUCID_CHECK(a->dim() == 1 && b->dim() == 1, ShapeMismatch,
              "[outer] expected 1-D arguments, got shapes " << shape_str(a->shape()) << " and " << shape_str(b->shape()));
  same_device("outer", a, b);
  return mul(unsqueeze(a, 1), unsqueeze(b, 0));
}

Tensor tensordot(const Tensor& a_in, const Tensor& b_in, const std::vector<int64_t>& dims_a,
                 const std::vector<int64_t>& dims_b) {
  same_device("tensordot", a_in, b_in);
  same_dtype("tensordot", a_in, b_in);
  LUCID_CHECK(dims_a.size() == dims_b.size(), ShapeMismatch,
              "[tensordot] both dimension lists should have the same length, got " << dims_a.size() << " and "
                                                                                 << dims_b.size());
  Tensor a = a_in, b = b_in;
  std::vector<int64_t> da, db;
  std::vector<bool> ca(size_t(a->dim()), false), cb(size_t(b->dim()), false);
  for (size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t x = wrap_dim(dims_a[i], a->dim(), "tensordot"), y = wrap_dim(dims_b[i], b->dim(), "tensordot");
    LUCID_CHECK(!ca[size_t(x)], Value, "[tensordot] dim " << dims_a[i] << " appears multiple times in the list of dims");
    LUCID_CHECK(!cb[size_t(y)], Value, "[tensordot] dim " << dims_b[i] << " appears multiple times in the list of dims");
    ca[size_t(x)] = cb[size_t(y)] = true;
    da.push_back(x);
    db.push_back(y);
  }
  // A contracted size of 1 on one side broadcasts: sum the other side over that dim first.
  for (size_t i = 0; i < da.size(); ++i) {
    const int64_t sa = a->shape()[size_t(da[i])], sb = b->shape()[size_t(db[i])];
    if (sa == sb) continue;
    LUCID_CHECK(sa == 1 || sb == 1, ShapeMismatch,
                "[tensordot] contracted dimensions need to match, but first has size "
                    << sa << " in dim " << dims_a[i] << " and second has size " << sb << " in dim " << dims_b[i]
                    << " (shapes " << shape_str(a_in->shape()) << " and " << shape_str(b_in->shape()) << ")");
    if (sb == 1) a = sum(a, std::vector<int64_t>{da[i]}, true, a->dtype());
    else b = sum(b, std::vector<int64_t>{db[i]}, true, b->dtype());
  }
  std::vector<int64_t> pa, pb;
  Shape out_shape;
  int64_t fa = 1, fb = 1, k = 1;
  for (int64_t i = 0; i < a->dim(); ++i)
    if (!ca[size_t(i)]) { pa.push_back(i); out_shape.push_back(a->shape()[size_t(i)]); fa *= a->shape()[size_t(i)]; }
  for (int64_t x : da) { pa.push_back(x); k *= a->shape()[size_t(x)]; }
  pb = db;
  for (int64_t i = 0; i < b->dim(); ++i)
    if (!cb[size_t(i)]) { pb.push_back(i); out_shape.push_back(b->shape()[size_t(i)]); fb *= b->shape()[size_t(i)]; }
  Tensor a2 = reshape(permute(a, pa), {fa, k}), b2 = reshape(permute(b, pb), {k, fb});
  return reshape(matmul(a2, b2), out_shape);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  LUCID_CHECK(dims >= 0, Value, "[tensordot] expects dims >= 0, but got dims=" << dims);
  LUCID_CHECK(dims <= a->dim() && dims <= b->dim(), ShapeMismatch,
              "[tensordot] expects dims <= the rank of both inputs, but got dims=" << dims << " for shapes "
                                                                                   << shape_str(a->shape()) << " and "
                                                                                   << shape_str(b->shape()));
  std::vector<int64_t> da, db;
  for (int64_t i = 0; i < dims; ++i) {
    da.push_back(a->dim() - dims + i);
    db.push_back(i);
  }
  return tensordot(a, b, da, db);
}

Tensor kron(const Tensor& a, const Tensor& b) {
  same_device("kron", a, b);
  const int64_t n = std::max(a->dim(), b->dim());
  Shape sa(size_t(n - a->dim()), 1), sb(size_t(n - b->dim()), 1);
  sa.insert(sa.end(), a->shape().begin(), a->shape().end());
  sb.insert(sb.end(), b->shape().begin(), b->shape().end());
  // a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...), then merge each pair.
  Shape ia, ib, out;
  for (int64_t i = 0; i < n; ++i) {
    ia.push_back(sa[size_t(i)]);
    ia.push_back(1);
    ib.push_back(1);
    ib.push_back(sb[size_t(i)]);
    out.push_back(sa[size_t(i)] * sb[size_t(i)]);
  }
  return reshape(mul(reshape(a, ia), reshape(b, ib)), out);
}

// ---- the add-product family

Tensor addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) {
  check_mm("addmm", m1, m2);
  check_input("addmm", input, m1);
  expand_input("addmm", input, {m1->shape()[0], m2->shape()[1]});
  return scaled_sum(input, matmul(m1, m2), beta, alpha);
}

Tensor addmv(const Tensor& input, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  check_mv("addmv", mat, vec);
  check_input("addmv", input, mat);
  expand_input("addmv", input, {mat->shape()[0]});
  return scaled_sum(input, matmul(mat, vec), beta, alpha);
}

Tensor addr(const Tensor& input, const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha) {
  LUCID_CHECK(v1->dim() == 1 && v2->dim() == 1, ShapeMismatch,
              "[addr] expected 1-D vectors, got shapes " << shape_str(v1->shape()) << " and " << shape_str(v2->shape()));
  same_device("addr", input, v1);
  same_device("addr", v1, v2);
  const Dtype d = promote_types(input->dtype(), promote_types(v1->dtype(), v2->dtype()));
  if (is_integral(d, true)) {
    LUCID_CHECK(alpha.kind != DtypeCategory::Floating && alpha.kind != DtypeCategory::Complex &&
                    beta.kind != DtypeCategory::Floating && beta.kind != DtypeCategory::Complex,
                DtypeMismatch, "[addr] for integral input tensors, beta and alpha must not be floating point numbers");
  }
  expand_input("addr", input, {v1->shape()[0], v2->shape()[0]});
  return scaled_sum(input, outer(v1, v2), beta, alpha);
}

Tensor addbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) {
  check_bmm("addbmm", b1, b2);
  check_input("addbmm", input, b1);
  const int64_t B = b1->shape()[0], n = b1->shape()[1], m = b1->shape()[2], p = b2->shape()[2];
  expand_input("addbmm", input, {n, p});
  // sum_b b1[b] @ b2[b] is one GEMM: (n, B*m) @ (B*m, p).
  Tensor prod = matmul(reshape(permute(b1, {1, 0, 2}), {n, B * m}), reshape(b2, {B * m, p}));
  return scaled_sum(input, prod, beta, alpha);
}

Tensor baddbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) {
  check_bmm("baddbmm", b1, b2);
  check_input("baddbmm", input, b1);
  expand_input("baddbmm", input, {b1->shape()[0], b1->shape()[1], b2->shape()[2]});
  return scaled_sum(input, matmul(b1, b2), beta, alpha);
}

// ---- chains

namespace {

Tensor chain_product(std::vector<Tensor> ms) {
  const size_t n = ms.size();
  if (n == 1) return ms[0];
  if (n == 2) return matmul(ms[0], ms[1]);
  std::vector<int64_t> p(n + 1);
  p[0] = ms[0]->shape()[0];
  for (size_t i = 0; i < n; ++i) p[i + 1] = ms[i]->shape()[1];
  // cost[i][j]: fewest multiplications for ms[i..j]; split[i][j]: where the last product splits it.
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t len = 1; len < n; ++len)
    for (size_t i = 0; i + len < n; ++i) {
      const size_t j = i + len;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (size_t k = i; k < j; ++k) {
        const double c = cost[i][k] + cost[k + 1][j] + double(p[i]) * double(p[k + 1]) * double(p[j + 1]);
        if (c < cost[i][j]) { cost[i][j] = c; split[i][j] = k; }
      }
    }
  auto go = [&](auto&& self, size_t i, size_t j) -> Tensor {
    if (i == j) return ms[i];
    const size_t k = split[i][j];
    return matmul(self(self, i, k), self(self, k + 1, j));
  };
  return go(go, 0, n - 1);
}

void check_chain(const char* op, const std::vector<Tensor>& ms) {
  for (size_t i = 1; i < ms.size(); ++i) {
    same_device(op, ms[0], ms[i]);
    LUCID_CHECK(ms[i]->dtype() == ms[0]->dtype(), DtypeMismatch,
                "[" << op << "] all tensors must have the same dtype, but tensor 0 is " << dtype_name(ms[0]->dtype())
                    << " and tensor " << i << " is " << dtype_name(ms[i]->dtype()));
  }
  for (size_t i = 1; i < ms.size(); ++i)
    LUCID_CHECK(ms[i - 1]->shape()[1] == ms[i]->shape()[0], ShapeMismatch,
                "[" << op << "] tensors " << i - 1 << " and " << i << " with shapes " << shape_str(ms[i - 1]->shape())
                    << " and " << shape_str(ms[i]->shape()) << " cannot be multiplied");
}

}  // namespace

Tensor multi_dot(const std::vector<Tensor>& tensors) {
  const size_t n = tensors.size();
  LUCID_CHECK(n >= 2, Value, "[multi_dot] expected at least 2 tensors but got " << n);
  std::vector<Tensor> ms = tensors;
  const bool first1 = tensors[0]->dim() == 1, last1 = tensors[n - 1]->dim() == 1;
  LUCID_CHECK(tensors[0]->dim() == 1 || tensors[0]->dim() == 2, ShapeMismatch,
              "[multi_dot] the first tensor must be 1D or 2D but got shape " << shape_str(tensors[0]->shape()));
  LUCID_CHECK(tensors[n - 1]->dim() == 1 || tensors[n - 1]->dim() == 2, ShapeMismatch,
              "[multi_dot] the last tensor must be 1D or 2D but got shape " << shape_str(tensors[n - 1]->shape()));
  for (size_t i = 1; i + 1 < n; ++i)
    LUCID_CHECK(tensors[i]->dim() == 2, ShapeMismatch,
                "[multi_dot] tensor " << i << " must be 2D but got shape " << shape_str(tensors[i]->shape()));
  if (first1) ms[0] = unsqueeze(ms[0], 0);
  if (last1) ms[n - 1] = unsqueeze(ms[n - 1], 1);
  check_chain("multi_dot", ms);
  Tensor r = chain_product(ms);
  Shape s;
  if (!first1) s.push_back(r->shape()[0]);
  if (!last1) s.push_back(r->shape()[1]);
  return (first1 || last1) ? reshape(r, s) : r;
}

Tensor chain_matmul(const std::vector<Tensor>& tensors) {
  LUCID_CHECK(!tensors.empty(), Value, "[chain_matmul] expected at least one tensor");
  for (size_t i = 0; i < tensors.size(); ++i)
    LUCID_CHECK(tensors[i]->dim() == 2, ShapeMismatch,
                "[chain_matmul] tensor " << i << " must be 2D but got shape " << shape_str(tensors[i]->shape()));
  if (tensors.size() == 1) return clone(tensors[0]);
  check_chain("chain_matmul", tensors);
  return chain_product(tensors);
}

Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  same_device("linalg.vecdot", x, y);
  LUCID_CHECK(x->dtype() == y->dtype(), DtypeMismatch,
              "[linalg.vecdot] expected x and y to have the same dtype, got " << dtype_name(x->dtype()) << " and "
                                                                               << dtype_name(y->dtype()));
  LUCID_CHECK(is_floating(x->dtype()) || is_complex(x->dtype()), DtypeMismatch,
              "[linalg.vecdot] expected a floating point or complex tensor, got " << dtype_name(x->dtype()));
  Tensor p = mul(conj(x), y);
  const int64_t d = wrap_dim(dim, std::max<int64_t>(p->dim(), 1), "linalg.vecdot");
  return sum(p, std::vector<int64_t>{d}, false, p->dtype());
}

}  // namespace lucid
