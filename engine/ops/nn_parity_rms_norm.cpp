// rms_norm (ops/nn_parity.h): the statistic, normalisation and weight in one pass per row
// (backend/kernels/parity.h); the vjp in lucid ops.
#include "autograd/grad_mode.h"
#include "backend/kernels/parity.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/graph.h"
#include "ops/nn_parity.h"
#include "ops/reduce.h"
#include "ops/unary.h"
#include "ops/view.h"

namespace lucid {

Tensor rms_norm(const Tensor& x_in, const Shape& normalized_shape, const std::optional<Tensor>& w_in, double eps) {
  const char* op = "rms_norm";
  const int64_t k = int64_t(normalized_shape.size());
  bool ok = k >= 1 && x_in->dim() >= k;
  for (int64_t i = 0; ok && i < k; ++i)
    ok = x_in->shape()[size_t(x_in->dim() - k + i)] == normalized_shape[size_t(i)];
  LUCID_CHECK(ok, ShapeMismatch,
              "[" << op << "] given normalized_shape=" << shape_str(normalized_shape)
                  << ", expected input with shape [*, ...] ending in it, but got input of size " << shape_str(x_in->shape()));
  if (w_in)
    LUCID_CHECK((*w_in)->shape() == normalized_shape, ShapeMismatch,
                "[" << op << "] weight must have shape " << shape_str(normalized_shape) << ", got "
                    << shape_str((*w_in)->shape()));
  LUCID_CHECK(is_floating(x_in->dtype()), NotImplemented,
              "[" << op << "] is not implemented for " << dtype_name(x_in->dtype()) << " inputs (floating point only)");
  LUCID_CHECK(!w_in || is_floating((*w_in)->dtype()), DtypeMismatch,
              "[" << op << "] expected a floating-point weight, got " << dtype_name((*w_in)->dtype()));
  LUCID_CHECK(x_in->device().type == DeviceType::CPU, NotImplemented,
              "[" << op << "] runs on CPU only (got an input on " << x_in->device() << ")");
  const Dtype out_dt = promote_types(x_in->dtype(), w_in ? (*w_in)->dtype() : x_in->dtype());
  const Dtype dt = (out_dt == Dtype::F16 || out_dt == Dtype::BF16) ? Dtype::F32 : out_dt;
  Tensor x = contiguous(x_in->dtype() == dt ? x_in : cast(x_in, dt));
  std::optional<Tensor> w;
  if (w_in) w = (*w_in)->dtype() == dt ? *w_in : cast(*w_in, dt);
  int64_t D = 1;
  for (auto s : normalized_shape) D *= s;
  const int64_t R = D ? x->numel() / D : 0;
  Tensor y = TensorImpl::empty(x->shape(), dt, x->device());
  Shape stat_shape(x->shape().begin(), x->shape().end() - k);
  for (int64_t i = 0; i < k; ++i) stat_shape.push_back(1);
  Tensor rs = TensorImpl::empty(stat_shape, dt, x->device());
  if (x->numel()) {
    std::optional<Tensor> wc;
    if (w) wc = contiguous(alias(*w));
    rms_norm_kernel(x->device())(*reshape(y, {R, D}), *rs, *reshape(alias(x), {R, D}), wc ? wc->get() : nullptr, eps);
  }
  std::vector<int64_t> dims, batch_dims;
  for (int64_t i = 0; i < x->dim(); ++i) (i >= x->dim() - k ? dims : batch_dims).push_back(i);
  const bool has_w = bool(w);
  Tensor wt = w ? *w : Tensor();
  record("RmsNormBackward0", {&x, has_w ? &wt : nullptr}, {&y},
         {SavedTensor(x, false), SavedTensor(has_w ? wt : Tensor(), false), SavedTensor(rs, false)},
         [dims, batch_dims, eps, has_w](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           const Tensor& x = s[0];
           Tensor r = s[2];
           if (autograd::grad_enabled())  // create_graph: the statistic as a function of x
             r = unary(UnaryOp::Rsqrt, add(mean(mul(x, x), dims, true), Scalar::from_double(eps)));
           std::vector<Tensor> out(2);
           if (n.needs_input_grad(0)) {
             Tensor gh = has_w ? mul(g[0], s[1]) : g[0];
             // d/dx (x r) = r (gh - x r^2 mean(gh x))
             Tensor c = mul(mean(mul(gh, x), dims, true), mul(r, r));
             out[0] = mul(r, sub(gh, mul(x, c)));
           }
           if (has_w && n.needs_input_grad(1)) {
             Tensor gw = mul(g[0], mul(x, r));
             out[1] = batch_dims.empty() ? gw : sum(gw, batch_dims);
           }
           return out;
         });
  return y->dtype() == out_dt ? y : cast(y, out_dt);
}

}  // namespace lucid
