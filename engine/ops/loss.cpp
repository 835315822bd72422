// The pointwise-loss family (ops/loss.h): fused elementwise forwards and derivative ops whose own
// vjps give exact second derivatives.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

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
    case LossOp::SoftMargin: return false;
  }
  return false;
}

const char* backward_name(LossOp op) {
  static const char* names[] = {"MseLossBackward0", "L1LossBackward0", "SmoothL1LossBackward0", "HuberLossBackward0",
                                "BinaryCrossEntropyBackward0", "BinaryCrossEntropyWithLogitsBackward0", "SoftMarginLossBackward0"};
  return names[int(op)];
}
const char* double_backward_name(LossOp op) {
  static const char* names[] = {"MseLossBackwardBackward0", "L1LossBackwardBackward0",
                                "SmoothL1LossBackwardBackward0", "HuberLossBackwardBackward0",
                                "BinaryCrossEntropyBackwardBackward0",
                                "BinaryCrossEntropyWithLogitsBackwardBackward0", "SoftMarginLossBackwardBackward0"};
  return names[int(op)];
}

}  // namespace

const char* loss_name(LossOp op) {
  static const char* names[] = {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                                "binary_cross_entropy_with_logits", "soft_margin_loss"};
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


// ---- CTC

namespace {

std::vector<int64_t> host_ints(const Tensor& t, const char* what) {
  LUCID_CHECK(t->dtype() == Dtype::I64 || t->dtype() == Dtype::I32, DtypeMismatch,
              "[ctc_loss] " << what << " must be an integer tensor, got " << dtype_name(t->dtype()));
  LUCID_CHECK(t->device().is_cpu(), NotImplemented, "[ctc_loss] " << what << " must be on the CPU");
  Tensor c = contiguous(cast(t, Dtype::I64));
  const int64_t* p = static_cast<const int64_t*>(c->data_ptr());
  return std::vector<int64_t>(p, p + c->numel());
}

Tensor int_tensor(const std::vector<int64_t>& v) {
  Tensor t = TensorImpl::empty({int64_t(v.size())}, Dtype::I64, Device());
  std::copy(v.begin(), v.end(), static_cast<int64_t*>(t->data_ptr()));
  return t;
}

struct CtcArgs {
  Tensor lp, targets, offsets, ilen, tlen;
  int64_t blank;
  bool zero_infinity;
};

Tensor ctc_backward(const Tensor& g, const CtcArgs& a, const Tensor& raw) {
  Tensor grad = TensorImpl::empty(a.lp->shape(), a.lp->dtype(), a.lp->device());
  Tensor gc = contiguous(cast(g, a.lp->dtype()));
  ctc_loss_backward_kernel(a.lp->device())(*grad, *gc, *a.lp, *a.targets, *a.offsets, *a.ilen, *a.tlen, *raw, a.blank,
                                           a.zero_infinity);
  record("CtcLossBackwardBackward0", {&gc, &a.lp}, {&grad}, {}, [](Node&, std::vector<Tensor>&, std::vector<Tensor>&) {
    LUCID_CHECK(false, NotImplemented, "[ctc_loss] double backward is not implemented (as in PyTorch)");
    return std::vector<Tensor>{};
  });
  return grad;
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets_in, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, const std::string& reduction, bool zero_infinity) {
  LUCID_CHECK(reduction == "none" || reduction == "mean" || reduction == "sum", Value,
              reduction << " is not a valid value for reduction");
  LUCID_CHECK(log_probs->dim() == 2 || log_probs->dim() == 3, ShapeMismatch,
              "[ctc_loss] log_probs must be (T, N, C) or unbatched (T, C), got shape " << shape_str(log_probs->shape()));
  LUCID_CHECK(is_floating(log_probs->dtype()), DtypeMismatch,
              "[ctc_loss] expected floating-point log_probs, got " << dtype_name(log_probs->dtype()));
  LUCID_CHECK(log_probs->device().is_cpu() && targets_in->device().is_cpu(), NotImplemented,
              "[ctc_loss] is implemented on CPU only");
  if (is_half(log_probs->dtype()))
    return cast(ctc_loss(cast(log_probs, Dtype::F32), targets_in, input_lengths, target_lengths, blank, reduction,
                         zero_infinity),
                log_probs->dtype());
  const bool unbatched = log_probs->dim() == 2;
  Tensor lp = unbatched ? unsqueeze(log_probs, 1) : log_probs;
  const int64_t T = lp->shape()[0], N = lp->shape()[1], C = lp->shape()[2];
  LUCID_CHECK(blank >= 0 && blank < C, Value, "[ctc_loss] blank must be in label range, got " << blank << " for " << C
                                                                                             << " classes");
  LUCID_CHECK(targets_in->dtype() == Dtype::I64 || targets_in->dtype() == Dtype::I32, DtypeMismatch,
              "[ctc_loss] targets must be an integer tensor, got " << dtype_name(targets_in->dtype()));
  const std::vector<int64_t> il = host_ints(input_lengths, "input_lengths");
  const std::vector<int64_t> tl = host_ints(target_lengths, "target_lengths");
  LUCID_CHECK(int64_t(il.size()) == N && int64_t(tl.size()) == N, ShapeMismatch,
              "[ctc_loss] input_lengths and target_lengths must have " << N << " entries (the batch size), got "
                                                                       << il.size() << " and " << tl.size());
  Tensor targets = contiguous(cast(unbatched && targets_in->dim() == 1 ? unsqueeze(targets_in, 0) : targets_in,
                                   Dtype::I64));
  std::vector<int64_t> off(static_cast<size_t>(N));
  const bool padded = targets->dim() == 2;
  LUCID_CHECK(padded || targets->dim() == 1, ShapeMismatch,
              "[ctc_loss] targets must be (N, S) padded or 1-D concatenated, got shape "
                  << shape_str(targets->shape()));
  LUCID_CHECK(!padded || targets->shape()[0] == N, ShapeMismatch,
              "[ctc_loss] targets of shape " << shape_str(targets->shape()) << " for a batch of " << N);
  int64_t pos = 0;
  for (int64_t n = 0; n < N; ++n) {
    LUCID_CHECK(il[size_t(n)] >= 0 && il[size_t(n)] <= T, Value,
                "[ctc_loss] Expected input_lengths to have value at most " << T << ", but got value "
                                                                           << il[size_t(n)]);
    LUCID_CHECK(tl[size_t(n)] >= 0, Value, "[ctc_loss] target_lengths must be non-negative, got " << tl[size_t(n)]);
    if (padded) {
      LUCID_CHECK(tl[size_t(n)] <= targets->shape()[1], ShapeMismatch,
                  "[ctc_loss] Expected tensor to have size at least " << tl[size_t(n)]
                      << " at dimension 1, but got size " << targets->shape()[1] << " for argument 'targets'");
      off[size_t(n)] = n * targets->shape()[1];
    } else {
      off[size_t(n)] = pos;
      pos += tl[size_t(n)];
    }
  }
  LUCID_CHECK(padded || pos <= targets->numel(), ShapeMismatch,
              "[ctc_loss] target_lengths sum to " << pos << " but targets has " << targets->numel() << " labels");
  const int64_t* tp = static_cast<const int64_t*>(targets->data_ptr());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < tl[size_t(n)]; ++k) {
      const int64_t v = tp[off[size_t(n)] + k];
      LUCID_CHECK(v >= 0 && v < C, Index, "[ctc_loss] target " << v << " is out of bounds for " << C << " classes");
    }
  CtcArgs a{contiguous(lp), targets, int_tensor(off), int_tensor(il), int_tensor(tl), blank, zero_infinity};
  Tensor raw = TensorImpl::empty({N}, lp->dtype(), lp->device());
  Tensor out = TensorImpl::empty({N}, lp->dtype(), lp->device());
  if (N) ctc_loss_kernel(lp->device())(*raw, *a.lp, *a.targets, *a.offsets, *a.ilen, *a.tlen, blank);
  if (lp->dtype() == Dtype::F64) {
    const double* r = static_cast<const double*>(raw->data_ptr());
    double* o = static_cast<double*>(out->data_ptr());
    for (int64_t n = 0; n < N; ++n) o[n] = zero_infinity && std::isinf(r[n]) ? 0.0 : r[n];
  } else {
    const float* r = static_cast<const float*>(raw->data_ptr());
    float* o = static_cast<float*>(out->data_ptr());
    for (int64_t n = 0; n < N; ++n) o[n] = zero_infinity && std::isinf(r[n]) ? 0.0f : r[n];
  }
  record("CtcLossBackward0", {&a.lp}, {&out}, {}, [a, raw](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{ctc_backward(g[0], a, raw)};
  });
  if (reduction == "none") return unbatched ? reshape(out, Shape{}) : out;
  if (reduction == "sum") return sum(out, std::nullopt);
  std::vector<int64_t> dv(tl);
  Tensor den = TensorImpl::empty({N}, lp->dtype(), lp->device());
  for (int64_t n = 0; n < N; ++n) {
    const int64_t d = std::max<int64_t>(tl[size_t(n)], 1);
    if (lp->dtype() == Dtype::F64) static_cast<double*>(den->data_ptr())[n] = double(d);
    else static_cast<float*>(den->data_ptr())[n] = float(d);
  }
  return mean(div(out, den), std::nullopt);
}

}  // namespace lucid

namespace lucid {
namespace {
const bool loss_labelled = (loss_kernel.label = [](int op) { return loss_name(LossOp(op)); }, true);
}  // namespace
}  // namespace lucid
