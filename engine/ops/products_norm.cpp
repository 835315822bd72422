// Vector and matrix norms (linalg.vector_norm / matrix_norm, torch.norm): forwards composed from
// lucid reductions; the vector norm records its own vjp (in lucid ops) so a zero vector has the
// zero subgradient, as PyTorch, instead of the 0/0 the composition's sqrt would give.
#include <cmath>
#include <limits>
#include <set>

#include "autograd/grad_mode.h"
#include "ops/binary.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/graph.h"
#include "ops/products.h"
#include "ops/reduce.h"
#include "ops/reduce_impl.h"
#include "ops/unary.h"
#include "ops/view.h"

namespace lucid {

namespace {

// |x| elementwise (the modulus of a complex number through its real view).
Tensor modulus(const Tensor& x) {
  if (!is_complex(x->dtype())) return unary(UnaryOp::Abs, x);
  Tensor r = view_as_real(x);
  return unary(UnaryOp::Sqrt, sum(mul(r, r), std::vector<int64_t>{-1}));
}

Tensor one_minus(const Tensor& t) { return sub(Scalar::from_int(1), t); }

std::vector<int64_t> norm_dims(const Tensor& x, const std::optional<std::vector<int64_t>>& dim, const char* op) {
  std::vector<int64_t> d;
  if (!dim || dim->empty()) {
    for (int64_t i = 0; i < x->dim(); ++i) d.push_back(i);
    return d;
  }
  std::set<int64_t> seen;
  for (int64_t v : *dim) {
    const int64_t w = wrap_dim(v, std::max<int64_t>(x->dim(), 1), op);
    LUCID_CHECK(seen.insert(w).second, Value, "[" << op << "] dim " << v << " appears multiple times in the list of dims");
    d.push_back(w);
  }
  return d;
}

// `t` (reduced over dims without keepdim) with size-1 dims put back, to broadcast against x.
Tensor keep(const Tensor& t, const std::vector<int64_t>& dims, int64_t rank, bool keepdim) {
  if (keepdim || rank == 0) return t;
  Shape s = t->shape();
  std::vector<int64_t> sorted(dims.begin(), dims.end());
  std::sort(sorted.begin(), sorted.end());
  for (int64_t d : sorted) s.insert(s.begin() + d, 1);
  return reshape(t, s);
}

Tensor vector_norm_forward(const Tensor& x, double ord, const std::vector<int64_t>& dims_in, bool keepdim) {
  // every dim: the empty list, which the reductions take as a whole-tensor reduction (their fast path)
  const std::vector<int64_t> dims = int64_t(dims_in.size()) == x->dim() ? std::vector<int64_t>{} : dims_in;
  if (ord == 2 && x->device().is_cpu() && (x->dtype() == Dtype::F32 || x->dtype() == Dtype::F64) && !dims_in.empty()) {
    // one fused pass: the sum of squares, accumulated as sum accumulates (no squared copy)
    std::vector<int64_t> rd(dims_in.begin(), dims_in.end());
    std::sort(rd.begin(), rd.end());
    return unary(UnaryOp::Sqrt, detail::run_reduce(ReduceOp::SumSq, x, rd, keepdim, x->dtype(), false).first);
  }
  if (ord == 2) {
    Tensor sq;
    if (is_complex(x->dtype())) {
      Tensor r = view_as_real(x);
      sq = sum(mul(r, r), std::vector<int64_t>{-1});
    } else {
      sq = mul(x, x);
    }
    return unary(UnaryOp::Sqrt, sum(sq, dims, keepdim));
  }
  Tensor a = modulus(x);
  if (ord == 1) return sum(a, dims, keepdim);
  if (ord == 0) return sum(unary(UnaryOp::Sign, a), dims, keepdim);
  if (std::isinf(ord)) {
    for (int64_t d : dims_in)
      LUCID_CHECK(x->dim() == 0 || x->shape()[size_t(d)] > 0, Index,
                  "[linalg.vector_norm] cannot compute the " << (ord > 0 ? "inf" : "-inf") << " norm on an empty "
                  << "tensor of shape " << shape_str(x->shape()) << " because the operation does not have an identity");
    if (x->dim() == 0) return a;
    return ord > 0 ? amax(a, dims, keepdim) : amin(a, dims, keepdim);
  }
  // sum(|x|^p)^(1/p) as exp(log(.)): 0 -> 0 for p > 0, and a zero entry gives 0 for p < 0 (PyTorch).
  Tensor pw = unary(UnaryOp::Exp, mul(unary(UnaryOp::Log, a), Scalar::from_double(ord)));
  Tensor s = sum(pw, dims, keepdim);
  return unary(UnaryOp::Exp, mul(unary(UnaryOp::Log, s), Scalar::from_double(1.0 / ord)));
}

}  // namespace

Tensor vector_norm(const Tensor& x_in, double ord, const std::optional<std::vector<int64_t>>& dim, bool keepdim,
                   std::optional<Dtype> dtype) {
  const char* op = "linalg.vector_norm";
  LUCID_CHECK(is_floating(x_in->dtype()) || is_complex(x_in->dtype()), DtypeMismatch,
              "[" << op << "] expected a floating point or complex tensor as input, got " << dtype_name(x_in->dtype()));
  if (dtype)
    LUCID_CHECK(is_floating(*dtype) || is_complex(*dtype), DtypeMismatch,
                "[" << op << "] dtype should be floating point or complex, got " << dtype_name(*dtype));
  LUCID_CHECK(!std::isnan(ord), Value, "[" << op << "] ord must not be NaN");
  Tensor x = dtype && *dtype != x_in->dtype() ? cast(x_in, *dtype) : x_in;
  const std::vector<int64_t> dims = norm_dims(x, dim, op);
  Tensor out;
  {
    autograd::GradModeGuard off(false);
    out = vector_norm_forward(x, ord, dims, keepdim);
  }
  const int64_t rank = x->dim();
  record("LinalgVectorNormBackward0", {&x}, {&out}, {SavedTensor(x, false), SavedTensor(out, true)},
         [ord, dims, rank, keepdim](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           const Tensor& x = s[0];
           // ord 0 counts nonzeros, a step function: no gradient at all (None on x), as PyTorch's
           // linalg.vector_norm / norm / pairwise_distance
           if (ord == 0) return std::vector<Tensor>{Tensor{}};
           Tensor n = keep(s[1], dims, rank, keepdim), gk = keep(g[0], dims, rank, keepdim);
           Tensor ax = modulus(x);
           Tensor nzx = unary(UnaryOp::Sign, ax);                // 1 where x != 0
           Tensor sg = div(x, add(ax, one_minus(nzx)));         // sgn(x): x / |x|, 0 at 0
           Tensor w;
           if (ord == 1) {
             w = sg;
           } else if (std::isinf(ord)) {
             // the entries reaching the extreme share the gradient (PyTorch's amax rule)
             Tensor gap = ord > 0 ? sub(n, ax) : sub(ax, n);
             Tensor mask = one_minus(unary(UnaryOp::Sign, gap));
             Tensor cnt = sum(mask, dims, true);
             w = mul(sg, div(mask, cnt));
           } else {
             Tensor nz = unary(UnaryOp::Sign, n);
             Tensor nsafe = add(n, one_minus(nz));
             if (ord == 2) {
               w = mul(div(x, nsafe), nz);
             } else {
               // sgn(x) (|x| / n)^(p-1), with the power's base 1 where x == 0 (then sgn(x) = 0)
               Tensor ratio = add(div(ax, nsafe), one_minus(nzx));
               w = mul(mul(sg, unary(UnaryOp::Exp, mul(unary(UnaryOp::Log, ratio), Scalar::from_double(ord - 1)))), nz);
             }
           }
           return std::vector<Tensor>{mul(gk, w)};
         });
  return out;
}

Tensor matrix_norm(const Tensor& a, const std::string& ord, const std::vector<int64_t>& dim, bool keepdim,
                   std::optional<Dtype> dtype) {
  const char* op = "linalg.matrix_norm";
  LUCID_CHECK(a->dim() >= 2, ShapeMismatch,
              "[" << op << "] the input tensor A must have at least 2 dimensions, got shape " << shape_str(a->shape()));
  LUCID_CHECK(dim.size() == 2, Value, "[" << op << "] dim must be a 2-tuple, got " << dim.size() << " dims");
  const int64_t d0 = wrap_dim(dim[0], a->dim(), op), d1 = wrap_dim(dim[1], a->dim(), op);
  LUCID_CHECK(d0 != d1, Value, "[" << op << "] dims must be different, got (" << dim[0] << ", " << dim[1] << ")");
  LUCID_CHECK(is_floating(a->dtype()) || is_complex(a->dtype()), DtypeMismatch,
              "[" << op << "] expected a floating point or complex tensor as input, got " << dtype_name(a->dtype()));
  if (ord == "fro") return vector_norm(a, 2, std::vector<int64_t>{d0, d1}, keepdim, dtype);
  LUCID_CHECK(ord != "nuc" && ord != "2" && ord != "-2", NotImplemented,
              "[" << op << "] ord=" << ord << " needs the singular values (linalg.svd), which lucid does not have yet");
  Tensor x = dtype && *dtype != a->dtype() ? cast(a, *dtype) : a;
  // |x| with a gradient for complex x too: the 2-norm over a size-1 dim (view_as_real records none)
  Tensor m = is_complex(x->dtype())
                 ? vector_norm(unsqueeze(x, -1), 2, std::vector<int64_t>{-1}, false, std::nullopt)
                 : unary(UnaryOp::Abs, x);
  // ord +-1: extreme column sum (sum over rows d0, then max over d1); ord +-inf: extreme row sum.
  const bool cols = ord == "1" || ord == "-1";
  LUCID_CHECK(cols || ord == "inf" || ord == "-inf", Value, "[" << op << "] order " << ord << " is not supported");
  const int64_t sum_dim = cols ? d0 : d1, ext_dim = cols ? d1 : d0;
  for (int64_t d : {d0, d1})
    LUCID_CHECK(a->shape()[size_t(d)] > 0, Index,
                "[" << op << "] cannot compute the ord=" << ord << " norm of a matrix with a zero-size dimension, shape "
                    << shape_str(a->shape()));
  Tensor s = sum(m, std::vector<int64_t>{sum_dim}, true);
  // the sums are >= 0, so their +-inf vector norm is their max/min (with the gradient shared by ties)
  const double inf = std::numeric_limits<double>::infinity();
  Tensor r = vector_norm(s, ord[0] == '-' ? -inf : inf, std::vector<int64_t>{ext_dim}, true, std::nullopt);
  if (keepdim) return r;
  return squeeze(r, std::vector<int64_t>{d0, d1});
}

}  // namespace lucid
