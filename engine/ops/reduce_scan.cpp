// Scans: cumsum, cumprod, cummax/cummin, logcumsumexp (the kernel scans the last dim of a
// permuted view; the output is allocated contiguous in the input's order).
#include "ops/compare.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/graph.h"
#include "ops/reduce.h"
#include "ops/reduce_impl.h"
#include "ops/binary.h"
#include "ops/unary.h"
#include "ops/view.h"

namespace lucid {

using namespace detail;

namespace {

// Views of t with dim moved last (no autograd).
Tensor dim_last(const Tensor& t, int64_t d) {
  if (t->dim() == 0) return t;
  Shape s;
  Strides st;
  for (int64_t i = 0; i < t->dim(); ++i)
    if (i != d) { s.push_back(t->shape()[size_t(i)]); st.push_back(t->strides()[size_t(i)]); }
  s.push_back(t->shape()[size_t(d)]);
  st.push_back(t->strides()[size_t(d)]);
  return t->as_view(s, st, t->storage_offset());
}

std::pair<Tensor, Tensor> run_scan(ScanOp op, const Tensor& in, int64_t d, bool with_indices, bool reverse = false) {
  Tensor out = TensorImpl::empty(in->shape(), in->dtype(), in->device());
  Tensor idx = with_indices ? TensorImpl::empty(in->shape(), Dtype::I64, in->device()) : nullptr;
  Tensor ov = dim_last(out, d);
  Tensor iv = idx ? dim_last(idx, d) : nullptr;
  scan_kernel(in->device())(op, *ov, iv.get(), *dim_last(in, d), reverse, false);
  return {out, idx};
}

Dtype accumulate_dtype(const Tensor& t, std::optional<Dtype> dtype) {
  return dtype ? *dtype : (is_integral(t->dtype(), true) ? Dtype::I64 : t->dtype());
}

}  // namespace

Tensor cumsum(const Tensor& t, int64_t dim, std::optional<Dtype> dtype) {
  const int64_t d = wrap_dim(dim, t->dim(), "cumsum");
  const Dtype dt = accumulate_dtype(t, dtype);
  Tensor in = dt != t->dtype() ? cast(t, dt) : t;
  Tensor out = run_scan(ScanOp::Sum, in, d, false).first;
  record("CumsumBackward0", {&in}, {&out}, {}, [d](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{cumsum_reverse(g[0], d)};
  });
  return out;
}

Tensor cumsum_reverse(const Tensor& t, int64_t dim) {
  const int64_t d = wrap_dim(dim, t->dim(), "cumsum_reverse");
  Tensor in = is_integral(t->dtype(), true) ? cast(t, Dtype::I64) : t;
  Tensor out = run_scan(ScanOp::Sum, in, d, false, true).first;
  record("CumsumReverseBackward0", {&in}, {&out}, {}, [d](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{cumsum(g[0], d)};
  });
  return out;
}

Tensor cumprod(const Tensor& t, int64_t dim, std::optional<Dtype> dtype) {
  const int64_t d = wrap_dim(dim, t->dim(), "cumprod");
  const Dtype dt = accumulate_dtype(t, dtype);
  Tensor in = dt != t->dtype() ? cast(t, dt) : t;
  Tensor out = run_scan(ScanOp::Prod, in, d, false).first;
  record_cumprod(in, out, d);
  return out;
}

namespace {
std::pair<Tensor, Tensor> cum_extreme(const Tensor& t, int64_t dim, bool is_max, const char* op) {
  LUCID_CHECK(!is_complex(t->dtype()), NotImplemented, "[" << op << "] not implemented for complex tensors");
  const int64_t d = wrap_dim(dim, t->dim(), op);
  auto [v, i] = run_scan(is_max ? ScanOp::Max : ScanOp::Min, t, d, true);
  record_cummax(t, v, i, d);
  return {v, i};
}
}  // namespace

std::pair<Tensor, Tensor> cummax(const Tensor& t, int64_t dim) { return cum_extreme(t, dim, true, "cummax"); }
std::pair<Tensor, Tensor> cummin(const Tensor& t, int64_t dim) { return cum_extreme(t, dim, false, "cummin"); }

Tensor logcumsumexp(const Tensor& t, int64_t dim) {
  LUCID_CHECK(is_floating(t->dtype()) || is_complex(t->dtype()), NotImplemented,
              "[logcumsumexp] not implemented for " << dtype_name(t->dtype()) << " (floating and complex dtypes only)");
  const int64_t d = wrap_dim(dim, t->dim(), "logcumsumexp");
  Tensor out = run_scan(ScanOp::LogSumExp, t, d, false).first;
  // d out_k / d x_i = exp(x_i - out_k) for i <= k, so grad_i = sum_{k>=i} g_k exp(x_i - out_k). Stable
  // form (PyTorch's): the positive and negative parts of g each through a reverse logcumsumexp of
  // log|g| - out. Under create_graph, the plain form exp(x) * revcumsum(g exp(-out)), built of ops
  // with vjps, so double backward works.
  record("LogcumsumexpBackward0", {&t}, {&out}, {SavedTensor(t, false), SavedTensor(out, true)},
         [d](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           const Tensor &x = s[0], &y = s[1];
           if (is_complex(x->dtype())) {  // PyTorch's complex form: conj(exp(x + revlcse(log(conj g) - y)))
             if (!autograd::grad_enabled()) {
               Tensor u = sub(unary(UnaryOp::Log, conj(g[0])), y);
               return std::vector<Tensor>{conj(unary(UnaryOp::Exp, add(x, run_scan(ScanOp::LogSumExp, u, d, false, true).first)))};
             }
             Tensor w = mul(conj(g[0]), unary(UnaryOp::Exp, mul(y, Scalar::from_int(-1))));
             return std::vector<Tensor>{conj(mul(unary(UnaryOp::Exp, x), cumsum_reverse(w, d)))};
           }
           if (!autograd::grad_enabled()) {
             auto part = [&](const Tensor& gpart) {
               Tensor u = sub(unary(UnaryOp::Log, gpart), y);
               return unary(UnaryOp::Exp, add(x, run_scan(ScanOp::LogSumExp, u, d, false, true).first));
             };
             Tensor gp = where(gt(g[0], Scalar::from_int(0)), g[0], Scalar::from_int(0));
             Tensor gn = where(lt(g[0], Scalar::from_int(0)), mul(g[0], Scalar::from_int(-1)), Scalar::from_int(0));
             return std::vector<Tensor>{sub(part(gp), part(gn))};
           }
           Tensor w = mul(g[0], unary(UnaryOp::Exp, mul(y, Scalar::from_int(-1))));
           return std::vector<Tensor>{mul(unary(UnaryOp::Exp, x), cumsum_reverse(w, d))};
         });
  return out;
}

}  // namespace lucid
