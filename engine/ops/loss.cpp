// The pointwise-loss family (ops/loss.h): fused elementwise forwards and derivative ops whose own
// vjps give exact second derivatives.
#include <string>

#include "autograd/node.h"
#include "backend/kernels/loss.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/loss.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/view.h"

namespace lucid {

namespace {

bool is_half(Dtype d) { return d == Dtype::F16 || d == Dtype::BF16; }

// D_ij L vanishes almost everywhere.
bool vanishes(LossOp op, int i, int j) {
  const int k = i + j;
  switch (op) {
    case LossOp::Mse: return k >= 3;
    case LossOp::L1: return k >= 2;
    case LossOp::SmoothL1: case LossOp::Huber: return k >= 3;
    case LossOp::Bce: return j >= 2;
    case LossOp::BceWithLogits: return j >= 2 || (j == 1 && k >= 3);
  }
  return false;
}

const char* backward_name(LossOp op) {
  static const char* names[] = {"MseLossBackward0", "L1LossBackward0", "SmoothL1LossBackward0", "HuberLossBackward0",
                                "BinaryCrossEntropyBackward0", "BinaryCrossEntropyWithLogitsBackward0"};
  return names[int(op)];
}
const char* double_backward_name(LossOp op) {
  static const char* names[] = {"MseLossBackwardBackward0", "L1LossBackwardBackward0",
                                "SmoothL1LossBackwardBackward0", "HuberLossBackwardBackward0",
                                "BinaryCrossEntropyBackwardBackward0",
                                "BinaryCrossEntropyWithLogitsBackwardBackward0"};
  return names[int(op)];
}

}  // namespace

const char* loss_name(LossOp op) {
  static const char* names[] = {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                                "binary_cross_entropy_with_logits"};
  return names[int(op)];
}

Tensor loss_elementwise(LossOp op, const Tensor& x, const Tensor& t, const LossParams& p) {
  if (is_half(x->dtype()))
    return cast(loss_elementwise(op, cast(x, Dtype::F32), cast(t, Dtype::F32), p), x->dtype());
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  loss_kernel(x->device())(op, p, 0, 0, *out, nullptr, *x, *t);
  record(backward_name(op), {&x, &t}, {&out}, {SavedTensor(x, false), SavedTensor(t, false)},
         [op, p](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           Tensor dx, dt;
           if (n.needs_input_grad(0)) dx = loss_derivative(op, g[0], s[0], s[1], p, 1, 0);
           if (n.needs_input_grad(1)) dt = loss_derivative(op, g[0], s[0], s[1], p, 0, 1);
           return std::vector<Tensor>{dx, dt};
         });
  return out;
}

Tensor loss_derivative(LossOp op, const Tensor& g_in, const Tensor& x, const Tensor& t, const LossParams& p, int i,
                       int j) {
  const char* name = loss_name(op);
  Tensor g = g_in->dtype() == x->dtype() ? g_in : cast(g_in, x->dtype());
  if (g->shape() != x->shape()) g = expand(g, x->shape(), name);
  if (vanishes(op, i, j)) return zeros(x->shape(), x->dtype(), x->device());
  if (is_half(x->dtype()))
    return cast(loss_derivative(op, cast(g, Dtype::F32), cast(x, Dtype::F32), cast(t, Dtype::F32), p, i, j),
                x->dtype());
  LUCID_CHECK(i + j <= 2, NotImplemented,
              "[" << name << "] derivatives of order " << i + j << " are not implemented (up to 2)");
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  loss_kernel(x->device())(op, p, i, j, *out, g.get(), *x, *t);
  record(double_backward_name(op), {&g, &x, &t}, {&out},
         {SavedTensor(g, false), SavedTensor(x, false), SavedTensor(t, false)},
         [op, p, i, j](Node& n, std::vector<Tensor>& gr, std::vector<Tensor>& s) {
           Tensor dg, dx, dt;
           if (n.needs_input_grad(0)) dg = loss_derivative(op, gr[0], s[1], s[2], p, i, j);
           if (n.needs_input_grad(1) || n.needs_input_grad(2)) {
             Tensor gg = mul(gr[0], s[0]);
             if (n.needs_input_grad(1)) dx = loss_derivative(op, gg, s[1], s[2], p, i + 1, j);
             if (n.needs_input_grad(2)) dt = loss_derivative(op, gg, s[1], s[2], p, i, j + 1);
           }
           return std::vector<Tensor>{dg, dx, dt};
         });
  return out;
}

Tensor pointwise_loss(LossOp op, const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                      const std::string& reduction, const LossParams& p) {
  const char* name = loss_name(op);
  LUCID_CHECK(reduction == "none" || reduction == "mean" || reduction == "sum", Value,
              reduction << " is not a valid value for reduction");
  LUCID_CHECK(input->device() == target->device(), DeviceMismatch,
              "[" << name << "] input on " << input->device() << " and target on " << target->device());
  LUCID_CHECK(is_floating(input->dtype()), NotImplemented,
              "[" << name << "] is not implemented for " << dtype_name(input->dtype())
                  << " tensors (floating point only)");
  const Dtype dt = is_floating(target->dtype()) ? promote_types(input->dtype(), target->dtype()) : input->dtype();
  const Shape shape = broadcast_shapes({input->shape(), target->shape()});
  Tensor x = input->dtype() == dt ? input : cast(input, dt);
  Tensor t = target->dtype() == dt ? target : cast(target, dt);
  if (x->shape() != shape) x = expand(x, shape, name);
  if (t->shape() != shape) t = expand(t, shape, name);
  Tensor per = loss_elementwise(op, x, t, p);
  if (weight) {
    LUCID_CHECK((*weight)->device() == input->device(), DeviceMismatch,
                "[" << name << "] weight on " << (*weight)->device() << " and input on " << input->device());
    per = mul(per, *weight);
  }
  if (reduction == "none") return per;
  if (reduction == "sum") return sum(per, std::nullopt);
  return mean(per, std::nullopt);
}

}  // namespace lucid

namespace lucid {
namespace {
const bool loss_labelled = (loss_kernel.label = [](int op) { return loss_name(LossOp(op)); }, true);
}  // namespace
}  // namespace lucid
