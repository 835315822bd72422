// The activation family (ops/activation.h): fused elementwise forwards, derivative ops whose own
// vjps give exact second derivatives; rrelu, prelu and glu.
#include <cmath>
#include <string>

#include "autograd/node.h"
#include "backend/kernels/activation.h"
#include "ops/activation.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/random.h"
#include "ops/unary.h"
#include "ops/view.h"

namespace lucid {

namespace {

const char* backward_name(ActOp op) {
  static const char* names[] = {"LeakyReluBackward0", "EluBackward0",        "GeluBackward0",
                                "GeluBackward0",      "SiluBackward0",       "MishBackward0",
                                "SoftplusBackward0",  "SoftsignBackward0",   "SoftshrinkBackward0",
                                "HardshrinkBackward0", "TanhshrinkBackward0", "HardtanhBackward0",
                                "HardsigmoidBackward0", "HardswishBackward0", "LogSigmoidBackward0",
                                "ThresholdBackward0"};
  return names[int(op)];
}
const char* double_backward_name(ActOp op) {
  static const char* names[] = {"LeakyReluBackwardBackward", "EluBackwardBackward",        "GeluBackwardBackward",
                                "GeluBackwardBackward",      "SiluBackwardBackward",       "MishBackwardBackward",
                                "SoftplusBackwardBackward",  "SoftsignBackwardBackward",   "SoftshrinkBackwardBackward",
                                "HardshrinkBackwardBackward", "TanhshrinkBackwardBackward", "HardtanhBackwardBackward",
                                "HardsigmoidBackwardBackward", "HardswishBackwardBackward", "LogSigmoidBackwardBackward",
                                "ThresholdBackwardBackward"};
  return names[int(op)];
}

// f^(order) is zero almost everywhere: the activation is piecewise polynomial of lower degree.
bool vanishes(ActOp op, int order) {
  switch (op) {
    case ActOp::LeakyRelu: case ActOp::Softshrink: case ActOp::Hardshrink: case ActOp::Hardtanh:
    case ActOp::Hardsigmoid: case ActOp::Threshold:
      return order >= 2;
    case ActOp::Hardswish:
      return order >= 3;
    default:
      return false;
  }
}

bool is_half(Dtype d) { return d == Dtype::F16 || d == Dtype::BF16; }

void check_float(const Tensor& x, const char* name) {
  const Dtype d = x->dtype();
  LUCID_CHECK(is_floating(d), NotImplemented,
              "[" << name << "] is not implemented for " << dtype_name(d) << " tensors (floating point only)");
}

}  // namespace

const char* activation_name(ActOp op) {
  static const char* names[] = {"leaky_relu", "elu",        "gelu",       "gelu",     "silu",        "mish",
                                "softplus",   "softsign",   "softshrink", "hardshrink", "tanhshrink", "hardtanh",
                                "hardsigmoid", "hardswish", "logsigmoid", "threshold"};
  return names[int(op)];
}

Tensor activation(ActOp op, const Tensor& x, const ActParams& p, const char* name) {
  if (!name) name = activation_name(op);
  check_float(x, name);
  if (is_half(x->dtype())) return cast(activation(op, cast(x, Dtype::F32), p, name), x->dtype());
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  activation_kernel(x->device())(op, p, *out, *x);
  record(backward_name(op), {&x}, {&out}, {SavedTensor(x, false)},
         [op, p](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{activation_backward(op, g[0], s[0], p, 1)};
         });
  return out;
}

Tensor activation_(ActOp op, const Tensor& self, const ActParams& p, const char* name) {
  if (!name) name = activation_name(op);
  check_float(self, name);
  const std::string iname = std::string(name) + "_";
  check_writable(*self, iname.c_str());
  if (autograd::check_inplace(self, {}, iname.c_str())) {
    Tensor snap = clone(self);
    Tensor result = activation(op, snap, p, name);
    copy_into(self, result);
    self->bump_version();
    record_inplace(self, result);
    return self;
  }
  if (is_half(self->dtype())) copy_into(self, activation(op, cast(self, Dtype::F32), p, name));
  else activation_kernel(self->device())(op, p, *self, *self);
  self->bump_version();
  return self;
}

Tensor activation_backward(ActOp op, const Tensor& g_in, const Tensor& x, const ActParams& p, int order) {
  const char* name = activation_name(op);
  check_float(x, name);
  Tensor g = g_in->dtype() == x->dtype() ? g_in : cast(g_in, x->dtype());
  if (g->shape() != x->shape()) g = expand(g, x->shape(), name);
  if (vanishes(op, order)) return zeros(x->shape(), x->dtype(), x->device());
  if (is_half(x->dtype()))
    return cast(activation_backward(op, cast(g, Dtype::F32), cast(x, Dtype::F32), p, order), x->dtype());
  LUCID_CHECK(order <= 2, NotImplemented,
              "[" << name << "] derivatives of order " << order << " are not implemented (up to 2)");
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  activation_backward_kernel(x->device())(op, p, order, *out, *g, *x);
  record(double_backward_name(op), {&g, &x}, {&out}, {SavedTensor(g, false), SavedTensor(x, false)},
         [op, p, order](Node& n, std::vector<Tensor>& gr, std::vector<Tensor>& s) {
           Tensor dg, dx;
           if (n.needs_input_grad(0)) dg = activation_backward(op, gr[0], s[1], p, order);
           if (n.needs_input_grad(1)) dx = activation_backward(op, mul(gr[0], s[0]), s[1], p, order + 1);
           return std::vector<Tensor>{dg, dx};
         });
  return out;
}

// ---- rrelu

Tensor rrelu(const Tensor& x, double lower, double upper, bool training) {
  check_float(x, "rrelu");
  LUCID_CHECK(lower <= upper, Value,
              "[rrelu] lower bound " << lower << " must be less than or equal to the upper bound " << upper);
  if (!training) return activation(ActOp::LeakyRelu, x, {(lower + upper) / 2, 0, 0}, "rrelu");
  if (is_half(x->dtype())) return cast(rrelu(cast(x, Dtype::F32), lower, upper, training), x->dtype());
  Tensor noise = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  if (noise->numel()) random_into(noise, RandomDist::Uniform, lower, upper, default_generator());
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  rrelu_kernel(x->device())(*out, *noise, *x);
  record("RreluWithNoiseBackward0", {&x}, {&out}, {SavedTensor(noise, false)},
         [](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) { return std::vector<Tensor>{mul(g[0], s[0])}; });
  return out;
}

Tensor rrelu_(const Tensor& self, double lower, double upper, bool training) {
  check_float(self, "rrelu");
  check_writable(*self, "rrelu_");
  const bool hist = autograd::check_inplace(self, {}, "rrelu_");
  Tensor result = rrelu(hist ? clone(self) : self, lower, upper, training);
  copy_into(self, result);
  self->bump_version();
  if (hist) record_inplace(self, result);
  return self;
}

// ---- prelu

Tensor prelu(const Tensor& x, const Tensor& weight) {
  check_float(x, "prelu");
  LUCID_CHECK(weight->dim() <= 1, ShapeMismatch,
              "[prelu] expected `weight` to be a scalar or 1D tensor, but got: ndim = " << weight->dim());
  const int64_t nw = weight->numel();
  LUCID_CHECK(x->dim() > 0 || nw == 1, ShapeMismatch, "[prelu] a zero-dim input needs a single weight");
  const int64_t channels = x->dim() >= 2 ? x->shape()[1] : 1;
  LUCID_CHECK(nw == 1 || nw == channels, ShapeMismatch,
              "[prelu] mismatch of parameter numbers and input channel size: found parameter numbers = "
                  << nw << " and channel size = " << channels);
  Tensor w = weight;
  if (x->dim() >= 2 && nw > 1) {
    Shape s(size_t(x->dim()), 1);
    s[1] = nw;
    w = reshape(weight, s);
  } else {
    w = reshape(weight, Shape{});
  }
  // relu(x) + w * min(x, 0), min(x, 0) = x - relu(x): exact gradients for x and weight at every order
  Tensor r = unary(UnaryOp::Relu, x);
  return add(r, mul(w, sub(x, r)));
}

// ---- glu

Tensor glu(const Tensor& x, int64_t dim_in) {
  check_float(x, "glu");
  LUCID_CHECK(x->dim() > 0, ShapeMismatch, "[glu] does not support scalars because halving size must be even");
  const int64_t dim = wrap_dim(dim_in, x->dim(), "glu");
  const int64_t n = x->shape()[size_t(dim)];
  LUCID_CHECK(n % 2 == 0, ShapeMismatch,
              "[glu] halving dimension must be even, but dimension " << dim << " is size " << n);
  Tensor a = narrow(x, dim, 0, n / 2), b = narrow(x, dim, n / 2, n / 2);
  return mul(a, unary(UnaryOp::Sigmoid, b));
}

}  // namespace lucid

namespace lucid {
namespace {
const bool activation_labelled = (activation_kernel.label = [](int op) { return activation_name(ActOp(op)); },
                                  activation_backward_kernel.label = [](int op) { return activation_name(ActOp(op)); },
                                  true);
}  // namespace
}  // namespace lucid
