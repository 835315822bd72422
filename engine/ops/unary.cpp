#include "ops/unary.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "ops/activation.h"
#include "ops/binary.h"
#include "ops/compare.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/out.h"

namespace lucid {

namespace {

bool keeps_integers(UnaryOp op) {
  switch (op) {
    case UnaryOp::Abs: case UnaryOp::Sign: case UnaryOp::Square: case UnaryOp::Relu:
    case UnaryOp::Floor: case UnaryOp::Ceil: case UnaryOp::Trunc: case UnaryOp::Frac:
    case UnaryOp::Neg: case UnaryOp::Round: case UnaryOp::BitwiseNot:
      return true;
    default:
      return false;
  }
}

// The ops PyTorch computes on complex tensors (holomorphic, so the gradient is g * conj(f'(z))).
bool complex_ok(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp: case UnaryOp::Exp2: case UnaryOp::Expm1: case UnaryOp::Log: case UnaryOp::Log2:
    case UnaryOp::Log10: case UnaryOp::Log1p: case UnaryOp::Sqrt: case UnaryOp::Rsqrt: case UnaryOp::Reciprocal:
    case UnaryOp::Sin: case UnaryOp::Cos: case UnaryOp::Tan: case UnaryOp::Asin: case UnaryOp::Acos:
    case UnaryOp::Atan: case UnaryOp::Sinh: case UnaryOp::Cosh: case UnaryOp::Tanh: case UnaryOp::Asinh:
    case UnaryOp::Acosh: case UnaryOp::Atanh: case UnaryOp::Sigmoid: case UnaryOp::Square: case UnaryOp::Neg:
    case UnaryOp::Sinc:
      return true;
    default:
      return false;
  }
}

Tensor zeros_as(const Tensor& g) { return zeros(g->shape(), g->dtype(), g->device()); }
Tensor u(UnaryOp op, const Tensor& x) { return unary(op, x); }
Scalar sc(double v) { return Scalar::from_double(v); }

// d op(x) / dx times g, written in lucid ops (differentiable again). x: input, y: output.
Tensor unary_vjp(UnaryOp op, const Tensor& g, const Tensor& x, const Tensor& y) {
  using U = UnaryOp;
  switch (op) {
    case U::Abs: return mul(g, u(U::Sign, x));
    case U::Sign: case U::Floor: case U::Ceil: case U::Trunc: case U::Round: case U::BitwiseNot: return zeros_as(g);
    case U::Frac: return g;
    case U::Neg: return u(U::Neg, g);
    case U::Square: return mul(mul(g, x), sc(2.0));
    case U::Relu:  // torch's threshold_backward: g where y > 0 else 0, one fused pass over the saved output
      if (is_floating(y->dtype())) return activation_backward(ActOp::Threshold, g, y, ActParams{0, 0, 0}, 1);
      return mul(g, u(U::Sign, y));
    case U::Exp: return mul(g, y);
    case U::Exp2: return mul(mul(g, y), sc(std::log(2.0)));
    case U::Expm1: return mul(g, add(y, sc(1.0)));
    case U::Log: return div(g, x);
    case U::Log2: return div(g, mul(x, sc(std::log(2.0))));
    case U::Log10: return div(g, mul(x, sc(std::log(10.0))));
    case U::Log1p: return div(g, add(x, sc(1.0)));
    case U::Sqrt: return div(g, mul(y, sc(2.0)));
    case U::Rsqrt: return mul(mul(g, mul(mul(y, y), y)), sc(-0.5));
    case U::Reciprocal: return mul(mul(g, mul(y, y)), sc(-1.0));
    case U::Sin: return mul(g, u(U::Cos, x));
    case U::Cos: return mul(mul(g, u(U::Sin, x)), sc(-1.0));
    case U::Tan: return mul(g, add(mul(y, y), sc(1.0)));
    case U::Asin: return div(g, u(U::Sqrt, sub(sc(1.0), mul(x, x))));
    case U::Acos: return mul(div(g, u(U::Sqrt, sub(sc(1.0), mul(x, x)))), sc(-1.0));
    case U::Atan: return div(g, add(mul(x, x), sc(1.0)));
    case U::Sinh: return mul(g, u(U::Cosh, x));
    case U::Cosh: return mul(g, u(U::Sinh, x));
    case U::Tanh: return mul(g, sub(sc(1.0), mul(y, y)));
    case U::Asinh: return div(g, u(U::Sqrt, add(mul(x, x), sc(1.0))));
    case U::Acosh: return div(g, u(U::Sqrt, sub(mul(x, x), sc(1.0))));
    case U::Atanh: return div(g, sub(sc(1.0), mul(x, x)));
    case U::Sigmoid: return mul(g, mul(y, sub(sc(1.0), y)));
    case U::Erf: return mul(g, mul(u(U::Exp, mul(mul(x, x), sc(-1.0))), sc(2.0 / std::sqrt(M_PI))));
    case U::Erfc: return mul(g, mul(u(U::Exp, mul(mul(x, x), sc(-1.0))), sc(-2.0 / std::sqrt(M_PI))));
    case U::Erfinv: return mul(g, mul(u(U::Exp, mul(y, y)), sc(std::sqrt(M_PI) / 2.0)));
    case U::Lgamma: return mul(g, u(U::Digamma, x));
    case U::Digamma: return mul(g, polygamma(1, x));
    case U::Sinc: {  // (cos(pi x) - sinc(x)) / x, and 0 at x = 0
      Tensor d = div(sub(u(U::Cos, mul(x, sc(M_PI))), y), x);
      return mul(g, where(eq(x, sc(0.0)), sc(0.0), d));
    }
    case U::Deg2rad: return mul(g, sc(M_PI / 180.0));
    case U::Rad2deg: return mul(g, sc(180.0 / M_PI));
  }
  return g;
}

// f'(z) of the holomorphic ops, for the complex gradient g * conj(f'(z)) (PyTorch's convention).
Tensor complex_deriv(UnaryOp op, const Tensor& x, const Tensor& y) {
  using U = UnaryOp;
  auto rcp = [](const Tensor& t) { return u(U::Reciprocal, t); };
  switch (op) {
    case U::Neg: return full({}, sc(-1.0), to_real(x->dtype()), x->device());
    case U::Square: return mul(x, sc(2.0));
    case U::Exp: return y;
    case U::Exp2: return mul(y, sc(std::log(2.0)));
    case U::Expm1: return add(y, sc(1.0));
    case U::Log: return rcp(x);
    case U::Log2: return rcp(mul(x, sc(std::log(2.0))));
    case U::Log10: return rcp(mul(x, sc(std::log(10.0))));
    case U::Log1p: return rcp(add(x, sc(1.0)));
    case U::Sqrt: return rcp(mul(y, sc(2.0)));
    case U::Rsqrt: return mul(mul(mul(y, y), y), sc(-0.5));
    case U::Reciprocal: return mul(mul(y, y), sc(-1.0));
    case U::Sin: return u(U::Cos, x);
    case U::Cos: return mul(u(U::Sin, x), sc(-1.0));
    case U::Tan: return add(mul(y, y), sc(1.0));
    case U::Asin: return u(U::Rsqrt, sub(sc(1.0), mul(x, x)));
    case U::Acos: return mul(u(U::Rsqrt, sub(sc(1.0), mul(x, x))), sc(-1.0));
    case U::Atan: return rcp(add(mul(x, x), sc(1.0)));
    case U::Sinh: return u(U::Cosh, x);
    case U::Cosh: return u(U::Sinh, x);
    case U::Tanh: return sub(sc(1.0), mul(y, y));
    case U::Asinh: return u(U::Rsqrt, add(mul(x, x), sc(1.0)));
    case U::Acosh: return rcp(mul(u(U::Sqrt, sub(x, sc(1.0))), u(U::Sqrt, add(x, sc(1.0)))));  // PyTorch's branch
    case U::Atanh: return rcp(sub(sc(1.0), mul(x, x)));
    case U::Sigmoid: return mul(y, sub(sc(1.0), y));
    case U::Sinc: return where(eq(x, sc(0.0)), sc(0.0), div(sub(u(U::Cos, mul(x, sc(M_PI))), y), x));
    default: break;
  }
  LUCID_FAIL(NotImplemented, "[" << unary_name(op) << "] no complex derivative");
}

Tensor unary_complex(UnaryOp op, const Tensor& x) {
  const char* name = unary_name(op);
  LUCID_CHECK(op != UnaryOp::Sign, NotImplemented,
              "[sign] Unlike NumPy, sign is not intended to support complex numbers. Please use sgn instead.");
  if (op == UnaryOp::Abs) {
    Tensor out = TensorImpl::empty(x->shape(), to_real(x->dtype()), x->device());
    unary_misc_kernel(x->device())(MiscOp::Abs, *out, *x);
    record("AbsBackward0", {&x}, {&out}, {SavedTensor(x, false)},
           [](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) { return std::vector<Tensor>{mul(g[0], sgn(s[0]))}; });
    return out;
  }
  LUCID_CHECK(complex_ok(op), NotImplemented,
              "[" << name << "] is not implemented for complex tensors (got " << dtype_name(x->dtype()) << ")");
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  unary_complex_kernel(x->device())(op, *out, *x);
  record(name, {&x}, {&out}, {SavedTensor(x, false), SavedTensor(out, true)},
         [op](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           if (op == UnaryOp::Neg) return std::vector<Tensor>{u(UnaryOp::Neg, g[0])};
           return std::vector<Tensor>{mul(g[0], conj(complex_deriv(op, s[0], s[1])))};
         });
  return out;
}

}  // namespace

const char* unary_name(UnaryOp op) {
  static const char* names[] = {"abs", "sign", "square", "relu", "exp", "exp2", "expm1", "log", "log2", "log10",
                                "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan",
                                "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc", "floor",
                                "ceil", "trunc", "frac", "neg", "erfinv", "lgamma", "digamma", "sinc", "deg2rad",
                                "rad2deg", "round", "bitwise_not"};
  static_assert(sizeof(names) / sizeof(names[0]) == kNumUnaryOps);
  return names[int(op)];
}

Tensor unary(UnaryOp op, const Tensor& x_in) {
  const char* name = unary_name(op);
  if (is_complex(x_in->dtype())) {
    // -z through mul: runs on every device that multiplies complex numbers
    if (op == UnaryOp::Neg) return mul(x_in, Scalar::from_int(-1));
    return unary_complex(op, x_in);
  }
  Dtype dt = x_in->dtype();
  if (dt == Dtype::Bool) {
    LUCID_CHECK(op != UnaryOp::Neg, Generic,
                "[neg] Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
                "mask, use the `~` or `logical_not()` operator instead.");
    if (op == UnaryOp::Square) dt = Dtype::I64;  // PyTorch: pow(x, 2)
    else if (!keeps_integers(op)) dt = default_dtype();
    else LUCID_CHECK(op == UnaryOp::Sign || op == UnaryOp::BitwiseNot, NotImplemented,
                     "[" << name << "] is not implemented for bool tensors");
  } else if (is_integral(dt, false) && !keeps_integers(op)) {
    dt = default_dtype();
  }
  LUCID_CHECK(op != UnaryOp::BitwiseNot || !is_floating(dt), Type,
              "[bitwise_not] is only implemented for integer and bool tensors (got " << dtype_name(dt) << ")");
  Tensor x = cast(x_in, dt);  // recorded when it casts
  Tensor out = TensorImpl::empty(x->shape(), dt, x->device());
  unary_kernel(x->device())(op, *out, *x);
  record(name, {&x}, {&out}, {SavedTensor(x, false), SavedTensor(out, true)},
         [op](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{unary_vjp(op, g[0], s[0], s[1])};
         });
  return out;
}

bool out_needs_grad(std::initializer_list<const Tensor*> tensors) {
  if (!autograd::grad_enabled()) return false;
  for (const Tensor* t : tensors)
    if (t && (*t)->requires_grad()) return true;
  return false;
}

bool unary_into(UnaryOp op, const Tensor& x, const Tensor& out) {
  if (!is_floating(x->dtype()) || out->dtype() != x->dtype() || out->device() != x->device() || !out->is_contiguous() ||
      out->numel() == 0 || out->shape() != x->shape() || out->storage() == x->storage() || out_needs_grad({&x, &out}))
    return false;
  check_writable(*out, unary_name(op));
  unary_kernel(x->device())(op, *out, *x);
  out->bump_version();
  return true;
}

Tensor neg(const Tensor& x) { return unary(UnaryOp::Neg, x); }

Tensor bitwise_not(const Tensor& x) {
  LUCID_CHECK(!is_complex(x->dtype()), Type,
              "[bitwise_not] is only implemented for integer and bool tensors (got " << dtype_name(x->dtype()) << ")");
  return unary(UnaryOp::BitwiseNot, x);
}

Tensor positive(const Tensor& x) {
  LUCID_CHECK(x->dtype() != Dtype::Bool, Type,
              "[positive] The `+` operator, on a bool tensor is not supported.");
  return x;
}

}  // namespace lucid

namespace lucid {
namespace {
// The profiler names unary kernel calls by their op.
const bool unary_labelled = (unary_kernel.label = [](int op) { return unary_name(UnaryOp(op)); }, true);
}  // namespace
}  // namespace lucid
