// Layer norm and batch norm: fused forward kernels (statistics, normalisation and affine in one
// pass per row or channel); vjps in lucid ops.
#include "autograd/grad_mode.h"
#include "backend/kernels/attention.h"
#include "backend/kernels/elementwise.h"
#include "backend/kernels/nn.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/graph.h"
#include "ops/nn.h"
#include "ops/reduce.h"
#include "ops/unary.h"
#include "ops/view.h"

namespace lucid {

namespace {

Scalar sc(double v) { return Scalar::from_double(v); }

Tensor rsqrt_plus(const Tensor& var, double eps) { return unary(UnaryOp::Rsqrt, add(var, sc(eps))); }

// The gradient of normalisation over `dims` (xhat = (x - mean) * rstd): dx given d(xhat) = gh.
Tensor norm_input_grad(const Tensor& gh, const Tensor& xhat, const Tensor& rstd, const std::vector<int64_t>& dims) {
  Tensor a = mean(gh, dims, true);
  Tensor b = mean(mul(gh, xhat), dims, true);
  return mul(rstd, sub(sub(gh, a), mul(xhat, b)));
}

std::optional<Tensor> float_cast(const std::optional<Tensor>& t, Dtype d) {
  if (!t) return t;
  return (*t)->dtype() == d ? *t : cast(*t, d);
}

}  // namespace

Tensor layer_norm(const Tensor& x_in, const Shape& normalized_shape, const std::optional<Tensor>& w_in,
                  const std::optional<Tensor>& b_in, double eps) {
  const int64_t k = int64_t(normalized_shape.size());
  bool ok = k >= 1 && x_in->dim() >= k;
  for (int64_t i = 0; ok && i < k; ++i)
    ok = x_in->shape()[size_t(x_in->dim() - k + i)] == normalized_shape[size_t(i)];
  LUCID_CHECK(ok, ShapeMismatch,
              "[layer_norm] given normalized_shape=" << shape_str(normalized_shape)
                                                     << ", expected input with shape [*, ...] ending in it, but got input of size "
                                                     << shape_str(x_in->shape()));
  for (const auto* t : {&w_in, &b_in})
    if (*t)
      LUCID_CHECK((**t)->shape() == normalized_shape, ShapeMismatch,
                  "[layer_norm] weight and bias must have shape " << shape_str(normalized_shape) << ", got "
                                                                  << shape_str((**t)->shape()));
  LUCID_CHECK(is_floating(x_in->dtype()), NotImplemented,
              "[layer_norm] expected a floating-point input, got " << dtype_name(x_in->dtype()));
  const Dtype out_dt = x_in->dtype();
  const Dtype dt = (out_dt == Dtype::F16 || out_dt == Dtype::BF16) ? Dtype::F32 : out_dt;
  Tensor x = contiguous(x_in->dtype() == dt ? x_in : cast(x_in, dt));
  std::optional<Tensor> w = float_cast(w_in, dt), b = float_cast(b_in, dt);
  int64_t D = 1;
  for (auto s : normalized_shape) D *= s;
  const int64_t R = D ? x->numel() / D : 0;
  Tensor y = TensorImpl::empty(x->shape(), dt, x->device());
  Shape stat_shape(x->shape().begin(), x->shape().end() - k);
  for (int64_t i = 0; i < k; ++i) stat_shape.push_back(1);
  Tensor mu = TensorImpl::empty(stat_shape, dt, x->device());
  Tensor rs = TensorImpl::empty(stat_shape, dt, x->device());
  if (x->numel()) {
    Tensor x2 = reshape(x, {R, D}), y2 = reshape(y, {R, D});
    std::optional<Tensor> wc = w ? std::optional<Tensor>(contiguous(*w)) : std::nullopt;
    std::optional<Tensor> bc = b ? std::optional<Tensor>(contiguous(*b)) : std::nullopt;
    layer_norm_kernel(x->device())(*y2, *mu, *rs, *x2, wc ? wc->get() : nullptr, bc ? bc->get() : nullptr, eps);
  }
  std::vector<int64_t> dims, batch_dims;
  for (int64_t i = 0; i < x->dim(); ++i) (i >= x->dim() - k ? dims : batch_dims).push_back(i);
  const bool has_w = bool(w), has_b = bool(b);
  Tensor wt = w ? *w : Tensor(), bt = b ? *b : Tensor();
  record("NativeLayerNormBackward0", {&x, has_w ? &wt : nullptr, has_b ? &bt : nullptr}, {&y},
         {SavedTensor(x, false), SavedTensor(has_w ? wt : Tensor(), false), SavedTensor(mu, false), SavedTensor(rs, false)},
         [dims, batch_dims, eps, has_w, has_b](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           const Tensor& x = s[0];
           Tensor m = s[2], r = s[3];
           if (!autograd::grad_enabled() && x->device().type == DeviceType::CPU && x->numel() &&
               (x->dtype() == Dtype::F32 || x->dtype() == Dtype::F64) && g[0]->dtype() == x->dtype()) {
             // one fused pass (backend/kernels/attention.h) when no graph is recorded
             Shape ns;
             int64_t D = 1;
             for (int64_t d : dims) D *= ns.emplace_back(x->shape()[size_t(d)]);
             const int64_t R = x->numel() / D;
             Tensor gc = reshape(contiguous(g[0]), {R, D}), x2 = reshape(x, {R, D});
             std::vector<Tensor> out(3);
             if (n.needs_input_grad(0)) out[0] = TensorImpl::empty({R, D}, x->dtype(), x->device());
             if (has_w && n.needs_input_grad(1)) out[1] = TensorImpl::empty(ns, x->dtype(), x->device());
             if (has_b && n.needs_input_grad(2)) out[2] = TensorImpl::empty(ns, x->dtype(), x->device());
             Tensor wc = has_w ? contiguous(s[1]) : Tensor();
             layer_norm_backward_kernel(x->device())(out[0].get(), out[1].get(), out[2].get(), *gc, *x2, *m, *r,
                                                     has_w ? wc.get() : nullptr);
             if (out[0]) out[0] = reshape(out[0], x->shape());
             return out;
           }
           if (autograd::grad_enabled()) {  // create_graph: statistics as functions of x
             m = mean(x, dims, true);
             r = rsqrt_plus(var(x, dims, 0.0, true), eps);
           }
           Tensor xhat = mul(sub(x, m), r);
           Tensor gh = has_w ? mul(g[0], s[1]) : g[0];
           std::vector<Tensor> out(3);
           if (n.needs_input_grad(0)) out[0] = norm_input_grad(gh, xhat, r, dims);
           if (has_w && n.needs_input_grad(1)) {
             Tensor gw = mul(g[0], xhat);
             out[1] = batch_dims.empty() ? gw : sum(gw, batch_dims);
           }
           if (has_b && n.needs_input_grad(2)) out[2] = batch_dims.empty() ? g[0] : sum(g[0], batch_dims);
           return out;
         });
  return y->dtype() == out_dt ? y : cast(y, out_dt);
}

Tensor batch_norm(const Tensor& x_in, const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                  const std::optional<Tensor>& w_in, const std::optional<Tensor>& b_in, bool training, double momentum,
                  double eps) {
  LUCID_CHECK(x_in->dim() >= 2, ShapeMismatch,
              "[batch_norm] expected an input of shape (N, C, *), got " << shape_str(x_in->shape()));
  LUCID_CHECK(is_floating(x_in->dtype()), NotImplemented,
              "[batch_norm] expected a floating-point input, got " << dtype_name(x_in->dtype()));
  const int64_t N = x_in->shape()[0], C = x_in->shape()[1];
  const int64_t S = C && N ? x_in->numel() / (N * C) : 0;
  for (const auto* t : {&running_mean, &running_var, &w_in, &b_in})
    if (*t)
      LUCID_CHECK((**t)->dim() == 1 && (**t)->shape()[0] == C, ShapeMismatch,
                  "[batch_norm] running statistics, weight and bias must have shape (" << C << "), got "
                                                                                        << shape_str((**t)->shape()));
  LUCID_CHECK(training || (running_mean && running_var), Value,
              "[batch_norm] running_mean and running_var are needed when training=False");
  if (training)
    LUCID_CHECK(N * S > 1, Value,
                "[batch_norm] expected more than 1 value per channel when training, got input size "
                    << shape_str(x_in->shape()));
  const Dtype out_dt = x_in->dtype();
  const Dtype dt = (out_dt == Dtype::F16 || out_dt == Dtype::BF16) ? Dtype::F32 : out_dt;
  Tensor x = contiguous(x_in->dtype() == dt ? x_in : cast(x_in, dt));
  std::optional<Tensor> w = float_cast(w_in, dt), b = float_cast(b_in, dt);
  Tensor y = TensorImpl::empty(x->shape(), dt, x->device());
  Tensor mu, rs;
  if (training) {
    mu = TensorImpl::empty({C}, dt, x->device());
    rs = TensorImpl::empty({C}, dt, x->device());
    Tensor v = TensorImpl::empty({C}, dt, x->device());
    {
      autograd::GradModeGuard ng(false);
      Tensor x3 = reshape(x, {N, C, S}), y3 = reshape(y, {N, C, S});
      std::optional<Tensor> wc = w ? std::optional<Tensor>(contiguous(*w)) : std::nullopt;
      std::optional<Tensor> bc = b ? std::optional<Tensor>(contiguous(*b)) : std::nullopt;
      batch_norm_kernel(x->device())(*y3, *mu, *rs, v.get(), *x3, wc ? wc->get() : nullptr, bc ? bc->get() : nullptr,
                                     eps, false);
      const double n = double(N * S);
      if (running_mean) {
        binary_(BinaryOp::Mul, *running_mean, sc(1 - momentum));
        binary_(BinaryOp::Add, *running_mean, cast(mu, (*running_mean)->dtype()), sc(momentum));
      }
      if (running_var) {
        binary_(BinaryOp::Mul, *running_var, sc(1 - momentum));
        binary_(BinaryOp::Add, *running_var, cast(v, (*running_var)->dtype()), sc(momentum * n / (n - 1)));
      }
    }
  } else {
    autograd::GradModeGuard ng(false);
    mu = contiguous(cast(*running_mean, dt));
    rs = contiguous(rsqrt_plus(cast(*running_var, dt), eps));
    Tensor x3 = reshape(x, {N, C, S}), y3 = reshape(y, {N, C, S});
    std::optional<Tensor> wc = w ? std::optional<Tensor>(contiguous(*w)) : std::nullopt;
    std::optional<Tensor> bc = b ? std::optional<Tensor>(contiguous(*b)) : std::nullopt;
    if (x->numel())
      batch_norm_kernel(x->device())(*y3, *mu, *rs, nullptr, *x3, wc ? wc->get() : nullptr, bc ? bc->get() : nullptr,
                                     eps, true);
  }
  std::vector<int64_t> dims{0};
  Shape bshape{1, C};
  for (int64_t i = 2; i < x->dim(); ++i) {
    dims.push_back(i);
    bshape.push_back(1);
  }
  const bool has_w = bool(w), has_b = bool(b);
  Tensor wt = w ? *w : Tensor(), bt = b ? *b : Tensor();
  record("NativeBatchNormBackward0", {&x, has_w ? &wt : nullptr, has_b ? &bt : nullptr}, {&y},
         {SavedTensor(x, false), SavedTensor(has_w ? wt : Tensor(), false), SavedTensor(mu, false), SavedTensor(rs, false)},
         [dims, bshape, eps, has_w, has_b, training](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           const Tensor& x = s[0];
           Tensor m = reshape(s[2], bshape), r = reshape(s[3], bshape);
           if (training && autograd::grad_enabled()) {
             m = mean(x, dims, true);
             r = rsqrt_plus(var(x, dims, 0.0, true), eps);
           }
           Tensor xhat = mul(sub(x, m), r);
           Tensor wb = has_w ? reshape(s[1], bshape) : Tensor();
           Tensor gh = has_w ? mul(g[0], wb) : g[0];
           std::vector<Tensor> out(3);
           if (n.needs_input_grad(0)) out[0] = training ? norm_input_grad(gh, xhat, r, dims) : mul(gh, r);
           if (has_w && n.needs_input_grad(1)) out[1] = sum(mul(g[0], xhat), dims);
           if (has_b && n.needs_input_grad(2)) out[2] = sum(g[0], dims);
           return out;
         });
  return y->dtype() == out_dt ? y : cast(y, out_dt);
}

}  // namespace lucid
