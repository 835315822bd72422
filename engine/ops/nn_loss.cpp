// The NLL loss: a fused per-sample kernel whose backward is an engine op too (a scatter of the
// per-sample gradients into the target columns); each is the other's vjp, so double backward works.
#include "backend/kernels/nn.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/nn.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/view.h"

namespace lucid {

namespace {

Tensor nll_rows_backward(const Tensor& g, const Tensor& target, const std::optional<Tensor>& weight, int64_t C,
                         int64_t ignore_index);

// (per-sample loss, per-sample weight) of logp (N, C) and target (N,), both contiguous.
std::pair<Tensor, Tensor> nll_rows(const Tensor& logp, const Tensor& target, const std::optional<Tensor>& weight,
                                   int64_t ignore_index) {
  const int64_t N = logp->shape()[0], C = logp->shape()[1];
  Tensor out = TensorImpl::empty({N}, logp->dtype(), logp->device());
  Tensor ws = TensorImpl::empty({N}, logp->dtype(), logp->device());
  if (N) nll_kernel(logp->device())(*out, *ws, *logp, *target, weight ? weight->get() : nullptr, ignore_index);
  record("NllLossBackward0", {&logp}, {&out}, {},
         [target, weight, C, ignore_index](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
           return std::vector<Tensor>{nll_rows_backward(g[0], target, weight, C, ignore_index)};
         });
  return {out, ws};
}

// grad (N, C): -w[t_i] * g[i] at (i, t_i), zeros elsewhere.
Tensor nll_rows_backward(const Tensor& g, const Tensor& target, const std::optional<Tensor>& weight, int64_t C,
                         int64_t ignore_index) {
  const int64_t N = target->shape()[0];
  Tensor grad = zeros({N, C}, g->dtype(), g->device());
  Tensor gc = contiguous(g);
  if (N) nll_backward_kernel(g->device())(*grad, *gc, *target, weight ? weight->get() : nullptr, ignore_index, 1.0);
  record("NllLossBackwardBackward0", {&gc}, {&grad}, {},
         [target, weight, ignore_index](Node&, std::vector<Tensor>& gg, std::vector<Tensor>&) {
           return std::vector<Tensor>{nll_rows(contiguous(gg[0]), target, weight, ignore_index).first};
         });
  return grad;
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                const std::string& reduction, int64_t ignore_index) {
  LUCID_CHECK(reduction == "none" || reduction == "mean" || reduction == "sum", Value,
              "[nll_loss] reduction must be 'none', 'mean' or 'sum', got '" << reduction << "'");
  LUCID_CHECK(input->dim() >= 1, ShapeMismatch, "[nll_loss] input must have at least 1 dimension, got a 0-d tensor");
  LUCID_CHECK(is_floating(input->dtype()), DtypeMismatch,
              "[nll_loss] expected a floating-point input, got " << dtype_name(input->dtype()));
  LUCID_CHECK(target->dtype() == Dtype::I64, DtypeMismatch,
              "[nll_loss] expected target of dtype int64 (class indices), got " << dtype_name(target->dtype()));
  LUCID_CHECK(input->device() == target->device(), DeviceMismatch,
              "[nll_loss] input on " << input->device() << " and target on " << target->device());
  const int64_t C = input->dim() == 1 ? input->shape()[0] : input->shape()[1];
  Shape want;  // the target's expected shape: input's without the class dim
  for (int64_t i = 0; i < input->dim(); ++i)
    if (i != (input->dim() == 1 ? 0 : 1)) want.push_back(input->shape()[size_t(i)]);
  LUCID_CHECK(target->shape() == want, ShapeMismatch,
              "[nll_loss] input of shape " << shape_str(input->shape()) << " expects a target of shape "
                                           << shape_str(want) << ", got " << shape_str(target->shape()));
  std::optional<Tensor> w;
  if (weight) {
    LUCID_CHECK((*weight)->dim() == 1 && (*weight)->shape()[0] == C, ShapeMismatch,
                "[nll_loss] weight must be a 1-D tensor of " << C << " class weights, got shape "
                                                             << shape_str((*weight)->shape()));
    w = contiguous(cast(*weight, input->dtype()));
  }
  Tensor logp;
  if (input->dim() == 1) logp = unsqueeze(input, 0);
  else if (input->dim() == 2) logp = input;
  else logp = reshape(movedim(input, {1}, {-1}), {-1, C});
  Tensor t = contiguous(reshape(target, {-1}));
  auto [per, ws] = nll_rows(contiguous(logp), t, w, ignore_index);
  if (reduction == "none") return reshape(per, target->shape());
  Tensor total = sum(per, std::nullopt);
  if (reduction == "sum") return total;
  return div(total, sum(ws, std::nullopt));
}

}  // namespace lucid
