// The margin losses (ops/loss_margin.h): fused forward and backward kernels; the backward's vjp in
// lucid ops so that second derivatives are exact.
#include <cmath>
#include <vector>

#include "autograd/node.h"
#include "backend/kernels/loss_margin.h"
#include "ops/binary.h"
#include "ops/compare.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/indexing.h"
#include "ops/loss_margin.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace lucid {

namespace {

Tensor reduce_by(const Tensor& per, const std::string& reduction) {
  if (reduction == "none") return per;
  if (reduction == "sum") return sum(per, std::nullopt);
  return mean(per, std::nullopt);
}

// gx = g[n] * d loss[n] / d x (g (N,)).
Tensor multi_margin_backward(const Tensor& g_in, const Tensor& x, const Tensor& t, int p, double margin,
                             const std::optional<Tensor>& w) {
  Tensor g = contiguous(g_in->dtype() == x->dtype() ? g_in : cast(g_in, x->dtype()));
  if (g->shape() != Shape{x->shape()[0]}) g = contiguous(expand(g, {x->shape()[0]}, "multi_margin_loss"));
  Tensor gx = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  multi_margin_backward_kernel(x->device())(*gx, *g, *x, *t, w ? w->get() : nullptr, p, margin);
  record("MultiMarginLossBackwardBackward0", {&g, &x}, {&gx}, {SavedTensor(g, false), SavedTensor(x, false)},
         [t, p, margin, w](Node& n, std::vector<Tensor>& gr, std::vector<Tensor>& s) {
           Tensor dg, dx;
           const Tensor& gg = gr[0];
           const Tensor& xs = s[1];
           const int64_t N = xs->shape()[0], C = xs->shape()[1];
           if (n.needs_input_grad(0)) {
             Tensor unit = multi_margin_backward(ones({N}, xs->dtype(), xs->device()), xs, t, p, margin, w);
             dg = sum(mul(gg, unit), std::vector<int64_t>{1});
           }
           if (n.needs_input_grad(1) && p == 2) {
             Tensor ti = unsqueeze(t, 1);
             Tensor oh = cast(one_hot(t, C), xs->dtype());
             Tensor z = add(sub(xs, gather(xs, 1, ti)), Scalar::from_double(margin));
             Tensor active = mul(cast(gt(z, Scalar::from_double(0.0)), xs->dtype()),
                                 sub(Scalar::from_double(1.0), oh));
             Tensor v = mul(active, sub(gg, gather(gg, 1, ti)));
             Tensor u = sub(v, mul(oh, sum(v, std::vector<int64_t>{1}, true)));
             Tensor c = mul(s[0], Scalar::from_double(2.0 / double(C)));
             if (w) c = mul(c, gather(*w, 0, t));
             dx = mul(u, unsqueeze(c, 1));
           }
           return std::vector<Tensor>{dg, dx};
         });
  return gx;
}

Tensor multilabel_margin_backward(const Tensor& g_in, const Tensor& x, const Tensor& t) {
  Tensor g = contiguous(g_in->dtype() == x->dtype() ? g_in : cast(g_in, x->dtype()));
  if (g->shape() != Shape{x->shape()[0]}) g = contiguous(expand(g, {x->shape()[0]}, "multilabel_margin_loss"));
  Tensor gx = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  multilabel_margin_backward_kernel(x->device())(*gx, *g, *x, *t);
  record("MultilabelMarginLossBackwardBackward0", {&g, &x}, {&gx}, {SavedTensor(x, false)},
         [t](Node& n, std::vector<Tensor>& gr, std::vector<Tensor>& s) {
           Tensor dg, dx;
           const Tensor& xs = s[0];
           if (n.needs_input_grad(0)) {
             Tensor unit = multilabel_margin_backward(ones({xs->shape()[0]}, xs->dtype(), xs->device()), xs, t);
             dg = sum(mul(gr[0], unit), std::vector<int64_t>{1});
           }
           if (n.needs_input_grad(1)) dx = zeros(xs->shape(), xs->dtype(), xs->device());
           return std::vector<Tensor>{dg, dx};
         });
  return gx;
}

}  // namespace

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  LUCID_CHECK(reduction == "none" || reduction == "mean" || reduction == "sum", Value,
              reduction << " is not a valid value for reduction");
  LUCID_CHECK(input->device().is_cpu() && target->device().is_cpu(), NotImplemented,
              "[multilabel_margin_loss] is implemented on CPU only");
  LUCID_CHECK(is_floating(input->dtype()), DtypeMismatch,
              "[multilabel_margin_loss] expected a floating-point input, got " << dtype_name(input->dtype()));
  LUCID_CHECK(input->dim() == 2 && target->shape() == input->shape(), ShapeMismatch,
              "[multilabel_margin_loss] expected input (N, C) and target (N, C), got "
                  << shape_str(input->shape()) << " and " << shape_str(target->shape()));
  const Dtype dt = input->dtype();
  if (dt == Dtype::F16 || dt == Dtype::BF16)
    return cast(multilabel_margin_loss(cast(input, Dtype::F32), target, reduction), dt);
  const int64_t N = input->shape()[0], C = input->shape()[1];
  Tensor x = contiguous(input);
  Tensor t = contiguous(cast(target, Dtype::I64));
  {
    const int64_t* tp = static_cast<const int64_t*>(t->data_ptr());
    for (int64_t i = 0; i < N * C; ++i)
      LUCID_CHECK(tp[i] >= -1 && tp[i] < C, Index,
                  "[multilabel_margin_loss] target " << tp[i] << " is out of bounds for " << C << " classes");
  }
  Tensor out = TensorImpl::empty({N}, dt, x->device());
  multilabel_margin_kernel(x->device())(*out, *x, *t);
  record("MultilabelMarginLossBackward0", {&x}, {&out}, {SavedTensor(x, false)},
         [t](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{multilabel_margin_backward(g[0], s[0], t)};
         });
  return reduce_by(out, reduction);
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int p, double margin,
                         const std::optional<Tensor>& weight, const std::string& reduction) {
  LUCID_CHECK(reduction == "none" || reduction == "mean" || reduction == "sum", Value,
              reduction << " is not a valid value for reduction");
  LUCID_CHECK(input->device().is_cpu() && target->device().is_cpu() && (!weight || (*weight)->device().is_cpu()),
              NotImplemented, "[multi_margin_loss] is implemented on CPU only");
  LUCID_CHECK(is_floating(input->dtype()), DtypeMismatch,
              "[multi_margin_loss] expected a floating-point input, got " << dtype_name(input->dtype()));
  LUCID_CHECK(input->dim() == 2 && target->dim() == 1 && target->shape()[0] == input->shape()[0], ShapeMismatch,
              "[multi_margin_loss] expected input (N, C) and target (N,), got " << shape_str(input->shape()) << " and "
                                                                               << shape_str(target->shape()));
  LUCID_CHECK(p == 1 || p == 2, Value, "[multi_margin_loss] only p == 1 and p == 2 supported");
  const Dtype dt = input->dtype();
  if (dt == Dtype::F16 || dt == Dtype::BF16) {
    std::optional<Tensor> w32;
    if (weight) w32 = cast(*weight, Dtype::F32);
    return cast(multi_margin_loss(cast(input, Dtype::F32), target, p, margin, w32, reduction), dt);
  }
  const int64_t N = input->shape()[0], C = input->shape()[1];
  Tensor x = contiguous(input);
  Tensor t = contiguous(cast(target, Dtype::I64));
  {
    const int64_t* tp = static_cast<const int64_t*>(t->data_ptr());
    for (int64_t n = 0; n < N; ++n)
      LUCID_CHECK(tp[n] >= 0 && tp[n] < C, Index,
                  "[multi_margin_loss] target " << tp[n] << " is out of bounds for " << C << " classes");
  }
  std::optional<Tensor> w;
  if (weight) {
    LUCID_CHECK((*weight)->dim() == 1 && (*weight)->shape()[0] == C, ShapeMismatch,
                "[multi_margin_loss] weight must be (" << C << ",), got " << shape_str((*weight)->shape()));
    w = contiguous(cast(*weight, dt));
  }
  Tensor out = TensorImpl::empty({N}, dt, x->device());
  multi_margin_kernel(x->device())(*out, *x, *t, w ? w->get() : nullptr, p, margin);
  record("MultiMarginLossBackward0", {&x}, {&out}, {SavedTensor(x, false)},
         [t, p, margin, w](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{multi_margin_backward(g[0], s[0], t, p, margin, w)};
         });
  return reduce_by(out, reduction);
}

}  // namespace lucid
