// The binary family beyond add/sub/mul/div: dtype rules and vjps of the BinaryOps after Div (their
// forward is binary() in binary.cpp), and the composites lerp, addcmul, addcdiv, float_power,
// complex, polar and div(rounding_mode).
#include <cmath>
#include <limits>

#include "ops/binary.h"
#include "ops/compare.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/unary.h"
#include "ops/view.h"

namespace lucid {

namespace {

Scalar sc(double v) { return Scalar::from_double(v); }
Scalar si(int64_t v) { return Scalar::from_int(v); }
Tensor zeros_as(const Tensor& g) { return zeros(g->shape(), g->dtype(), g->device()); }
Tensor neg_(const Tensor& t) { return mul(t, si(-1)); }

bool is_scalar_operand(const Operand& x) { return std::holds_alternative<Scalar>(x); }

}  // namespace

namespace binary_detail {

const char* ext_name(BinaryOp op) {
  static const char* names[] = {"floor_divide", "div_trunc", "remainder", "fmod", "pow", "atan2", "hypot",
                                "maximum", "minimum", "fmax", "fmin", "logaddexp", "logaddexp2", "copysign",
                                "xlogy", "heaviside", "bitwise_and", "bitwise_or", "bitwise_xor",
                                "bitwise_left_shift", "bitwise_right_shift"};
  const int i = int(op) - int(BinaryOp::FloorDiv);
  return i >= 0 && i < int(sizeof(names) / sizeof(names[0])) ? names[i] : "?";
}

Dtype ext_dtype(BinaryOp op, const Operand& a, const Operand& b, Dtype r) {
  using B = BinaryOp;
  const char* name = ext_name(op);
  auto no_complex = [&] {
    LUCID_CHECK(!is_complex(r), NotImplemented,
                "[" << name << "] is not implemented for complex tensors (got " << dtype_name(r) << ")");
  };
  switch (op) {
    case B::FloorDiv: case B::TruncDiv: case B::Remainder: case B::Fmod: {
      no_complex();
      LUCID_CHECK(r != Dtype::Bool, NotImplemented, "[" << name << "] is not implemented for bool tensors");
      if (is_integral(r, false)) {  // integer division by zero is an error (PyTorch's ZeroDivisionError)
        bool zero;
        if (const Scalar* s = std::get_if<Scalar>(&b)) zero = s->i == 0 && s->re == 0;
        else zero = any_true(eq(std::get<Tensor>(b), si(0)));
        LUCID_CHECK(!zero, Generic, "[" << name << "] ZeroDivisionError: integer division by zero");
      }
      return r;
    }
    case B::Pow:
      LUCID_CHECK(r != Dtype::Bool, NotImplemented, "[pow] is not implemented for two bool operands");
      if (is_integral(r, false)) {
        if (const Scalar* s = std::get_if<Scalar>(&b))
          LUCID_CHECK(!(s->kind == DtypeCategory::Integral && s->i < 0), Generic,
                      "[pow] Integers to negative integer powers are not allowed.");
      }
      return r;
    case B::Atan2: case B::Copysign: case B::Xlogy:
      no_complex();
      return is_integral(r, true) ? default_dtype() : r;
    case B::Hypot: case B::LogAddExp: case B::LogAddExp2:
      if (op != B::LogAddExp || !is_complex(r)) no_complex();  // complex logaddexp: complex_logaddexp below
      LUCID_CHECK(is_floating(r) || is_complex(r), NotImplemented,
                  "[" << name << "] is not implemented for " << dtype_name(r) << " tensors (floating point only)");
      return r;
    case B::Maximum: case B::Minimum: case B::Fmax: case B::Fmin:
      no_complex();
      return r;
    case B::Heaviside: {
      const Tensor* ta = std::get_if<Tensor>(&a);
      const Tensor* tb = std::get_if<Tensor>(&b);
      LUCID_CHECK(!(ta && tb) || (*ta)->dtype() == (*tb)->dtype(), DtypeMismatch,
                  "[heaviside] is not yet implemented for tensors with different dtypes ("
                      << dtype_name((*ta)->dtype()) << " and " << dtype_name((*tb)->dtype()) << ")");
      no_complex();
      return r;
    }
    case B::BitAnd: case B::BitOr: case B::BitXor: case B::Shl: case B::Shr:
      LUCID_CHECK(is_integral(r, true), NotImplemented,
                  "[" << name << "] is only implemented for integer and bool tensors (got " << dtype_name(r) << ")");
      LUCID_CHECK(r != Dtype::Bool || (op != B::Shl && op != B::Shr), NotImplemented,
                  "[" << name << "] is not implemented for bool tensors");
      return r;
    default:
      return r;
  }
}

// Backward of out = op(a, b) for same-shape, same-dtype a and b (broadcasts and casts are recorded
// by expand() and to()); complex gradients take the conjugate of the derivative (PyTorch's convention).
void record_ext(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out, const Scalar* sa, const Scalar* sb) {
  using B = BinaryOp;
  using G = std::vector<Tensor>;
  using S = std::vector<SavedTensor>;
  const char* name = nullptr;
  switch (op) {
    case B::FloorDiv: case B::TruncDiv:  // piecewise constant: zero gradients
      record(op == B::FloorDiv ? "FloorDivideBackward0" : "DivBackward1", {&a, &b}, {&out}, {},
             [](Node&, G& g, G&) { return G{zeros_as(g[0]), zeros_as(g[0])}; });
      return;
    case B::Remainder: case B::Fmod:
      record(op == B::Remainder ? "RemainderBackward0" : "FmodBackward0", {&a, &b}, {&out},
             S{SavedTensor(a, false), SavedTensor(b, false)}, [op](Node& n, G& g, G& s) {
               Tensor gb;
               if (n.needs_input_grad(1))
                 gb = neg_(mul(g[0], binary(op == B::Remainder ? B::FloorDiv : B::TruncDiv, s[0], s[1])));
               return G{g[0], gb};
             });
      return;
    case B::Pow: {
      if (sb) {  // x ** c
        const Scalar c = *sb;
        record("PowBackward0", {&a, &b}, {&out}, S{SavedTensor(a, false)}, [c](Node&, G& g, G& s) {
          if (c.kind != DtypeCategory::Complex && c.re == 0) return G{zeros_as(g[0]), nullptr};
          Scalar cm1 = c;
          cm1.re -= 1, cm1.i -= 1;
          if (cm1.kind != DtypeCategory::Complex) cm1 = Scalar::from_double(c.re - 1);
          Tensor d = mul(pow(s[0], cm1), c);
          return G{mul(g[0], conj(d)), nullptr};
        });
        return;
      }
      record("PowBackward1", {&a, &b}, {&out}, S{SavedTensor(a, false), SavedTensor(b, false), SavedTensor(out, true)},
             [](Node& n, G& g, G& s) {
               const Scalar zero = si(0);
               Tensor ga, gb;
               if (n.needs_input_grad(0)) {
                 Tensor d = mul(pow(s[0], sub(s[1], si(1))), s[1]);
                 ga = mul(g[0], conj(where(eq(s[1], zero), zero, d)));
               }
               if (n.needs_input_grad(1)) {
                 Tensor d = mul(s[2], unary(UnaryOp::Log, s[0]));
                 // PyTorch: 0 where base == 0 and the exponent is real and >= 0
                 Tensor real_ge0 = is_complex(s[1]->dtype())
                                       ? logical_and(eq(imag(s[1]), zero), ge(real(s[1]), zero))
                                       : ge(s[1], zero);
                 Tensor mask = logical_and(eq(s[0], zero), real_ge0);
                 gb = mul(g[0], conj(where(mask, zero, d)));
               }
               return G{ga, gb};
             });
      return;
    }
    case B::Atan2:
      record("Atan2Backward0", {&a, &b}, {&out}, S{SavedTensor(a, false), SavedTensor(b, false)}, [](Node& n, G& g, G& s) {
        Tensor r = div(g[0], add(mul(s[0], s[0]), mul(s[1], s[1])));
        return G{n.needs_input_grad(0) ? mul(r, s[1]) : nullptr, n.needs_input_grad(1) ? neg_(mul(r, s[0])) : nullptr};
      });
      return;
    case B::Hypot:
      record("HypotBackward0", {&a, &b}, {&out}, S{SavedTensor(a, false), SavedTensor(b, false), SavedTensor(out, true)},
             [](Node& n, G& g, G& s) {
               Tensor r = div(g[0], s[2]);
               return G{n.needs_input_grad(0) ? mul(r, s[0]) : nullptr, n.needs_input_grad(1) ? mul(r, s[1]) : nullptr};
             });
      return;
    case B::Maximum: case B::Minimum:
      // PyTorch: ties split the gradient in half; a NaN sends the full gradient to both.
      record(op == B::Maximum ? "MaximumBackward0" : "MinimumBackward0", {&a, &b}, {&out},
             S{SavedTensor(a, false), SavedTensor(b, false)}, [op](Node& n, G& g, G& s) {
               const Scalar zero = si(0);
               Tensor tie = eq(s[0], s[1]);
               Tensor half = where(tie, mul(g[0], sc(0.5)), g[0]);
               Tensor a_loses = op == B::Maximum ? lt(s[0], s[1]) : gt(s[0], s[1]);
               Tensor b_loses = op == B::Maximum ? gt(s[0], s[1]) : lt(s[0], s[1]);
               return G{n.needs_input_grad(0) ? where(a_loses, zero, half) : nullptr,
                        n.needs_input_grad(1) ? where(b_loses, zero, half) : nullptr};
             });
      return;
    case B::Fmax: case B::Fmin:
      record(op == B::Fmax ? "FmaxBackward0" : "FminBackward0", {&a, &b}, {&out},
             S{SavedTensor(a, false), SavedTensor(b, false)}, [op](Node& n, G& g, G& s) {
               const Scalar zero = si(0);
               Tensor a_wins = logical_or(op == B::Fmax ? ge(s[0], s[1]) : le(s[0], s[1]), ne(s[1], s[1]));
               return G{n.needs_input_grad(0) ? where(a_wins, g[0], zero) : nullptr,
                        n.needs_input_grad(1) ? where(a_wins, zero, g[0]) : nullptr};
             });
      return;
    case B::LogAddExp: case B::LogAddExp2: {
      const bool two = op == B::LogAddExp2;
      record(two ? "LogAddExp2Backward0" : "LogAddExpBackward0", {&a, &b}, {&out},
             S{SavedTensor(a, false), SavedTensor(b, false)}, [two](Node& n, G& g, G& s) {
               const UnaryOp e = two ? UnaryOp::Exp2 : UnaryOp::Exp;
               Tensor ga, gb;
               if (n.needs_input_grad(0)) ga = div(g[0], conj(add(unary(e, sub(s[1], s[0])), si(1))));
               if (n.needs_input_grad(1)) gb = div(g[0], conj(add(unary(e, sub(s[0], s[1])), si(1))));
               return G{ga, gb};
             });
      return;
    }
    case B::Copysign:
      record("CopysignBackward0", {&a, &b}, {&out}, S{SavedTensor(a, false), SavedTensor(out, true)},
             [](Node& n, G& g, G& s) {
               const Scalar zero = si(0);
               Tensor ga = n.needs_input_grad(0) ? mul(g[0], where(eq(s[0], zero), zero, div(s[1], s[0]))) : nullptr;
               return G{ga, n.needs_input_grad(1) ? zeros_as(g[0]) : nullptr};
             });
      return;
    case B::Xlogy:
      record("XlogyBackward0", {&a, &b}, {&out}, S{SavedTensor(a, false), SavedTensor(b, false)}, [](Node& n, G& g, G& s) {
        const Scalar zero = si(0);
        Tensor ga, gb;
        if (n.needs_input_grad(0))
          ga = where(logical_and(eq(s[0], zero), le(s[1], zero)), zero, xlogy(g[0], s[1]));
        if (n.needs_input_grad(1)) gb = div(mul(g[0], s[0]), s[1]);
        return G{ga, gb};
      });
      return;
    case B::Heaviside:
      name = "HeavisideBackward0";
      record(name, {&a, &b}, {&out}, {}, [](Node&, G&, G&) -> G {
        LUCID_FAIL(NotImplemented, "[heaviside] the derivative of heaviside is not implemented");
      });
      return;
    default:
      return;  // integer results (bitwise ops): no gradient
  }
  (void)sa;
}

// Complex logaddexp (PyTorch's helper): the operands ordered by real part, max + log1p(exp(min - max));
// a NaN anywhere gives NaN; equal infinite real parts: -inf gives the smaller operand, +inf
// log(exp(min) + exp(max)). Same-shape, same-dtype operands; no autograd (record_ext records it).
Tensor complex_logaddexp(const Tensor& a, const Tensor& b) {
  autograd::GradModeGuard no_grad(false);
  Tensor ra = real(a), rb = real(b);
  Tensor a_lt = lt(ra, rb);
  Tensor mn = where(a_lt, a, b), mx = where(a_lt, b, a);
  Tensor rmn = real(mn), rmx = real(mx);
  // part by part, as std::complex adds (lucid's add/sub go through a + alpha * b: inf * 0 = NaN)
  auto cadd = [](const Tensor& x, const Tensor& y, int64_t sign) {
    return complex(add(real(x), real(y), si(sign)), add(imag(x), imag(y), si(sign)));
  };
  Tensor e = unary(UnaryOp::Exp, cadd(mn, mx, -1));
  Tensor out = cadd(unary(UnaryOp::Log, add(e, si(1))), mx, 1);
  Tensor both_inf = logical_and(eq(rmn, rmx), isinf(rmn));
  Tensor pos = add(unary(UnaryOp::Exp, mn), unary(UnaryOp::Exp, mx));
  out = where(both_inf, where(lt(rmn, si(0)), mn, unary(UnaryOp::Log, pos)), out);
  Tensor nan = logical_or(isnan(a), isnan(b));
  const double qn = std::numeric_limits<double>::quiet_NaN();
  return where(nan, Scalar::from_complex(qn, qn), out);
}

}  // namespace binary_detail

Tensor div(const Operand& a, const Operand& b, const std::optional<std::string>& mode) {
  if (!mode) return binary(BinaryOp::Div, a, b);
  if (*mode == "trunc") return binary(BinaryOp::TruncDiv, a, b);
  if (*mode == "floor") return binary(BinaryOp::FloorDiv, a, b);
  LUCID_FAIL(Value, "[div] expected rounding_mode to be one of None, 'trunc', or 'floor' but found '" << *mode << "'");
}

Tensor float_power(const Operand& a, const Operand& b) {
  auto cplx = [](const Operand& x) {
    if (const Tensor* t = std::get_if<Tensor>(&x)) return is_complex((*t)->dtype());
    return std::get<Scalar>(x).kind == DtypeCategory::Complex;
  };
  const Dtype dt = cplx(a) || cplx(b) ? Dtype::C128 : Dtype::F64;
  auto wide = [dt](const Operand& x) -> Operand {
    if (const Tensor* t = std::get_if<Tensor>(&x)) return cast(*t, dt);
    return x;
  };
  LUCID_CHECK(!is_scalar_operand(a) || !is_scalar_operand(b), Type, "[float_power] expected at least one tensor operand");
  return pow(wide(a), wide(b));
}

namespace {

Dtype result_type3(const Tensor& a, const Tensor& b, const Tensor& c) {
  ResultTypeState st;
  for (const Tensor* t : {&a, &b, &c}) st.add_tensor((*t)->dtype(), (*t)->dim() == 0);
  return st.result();
}

// value as PyTorch reads it for the computation's dtype (an integral computation truncates a float).
Scalar value_for(Dtype dt, const Scalar& v, const char* name) {
  LUCID_CHECK(v.kind != DtypeCategory::Complex || is_complex(dt), Type,
              "[" << name << "] for non-complex input tensors, argument value must not be a complex number");
  if (is_integral(dt, false) && v.kind == DtypeCategory::Floating) return Scalar::from_int(int64_t(v.re));
  return v;
}

}  // namespace

namespace {

// The fused three-input ops: broadcast, one kernel, and their vjps (all tensor inputs get gradients).
Tensor ternary(TernaryOp op, const char* name, const Tensor& a, const Tensor& b, const Operand& c, Dtype dt,
               const Scalar& value) {
  const Device dev = binary_detail::pick_device(a, b, name);
  if (const Tensor* tc = std::get_if<Tensor>(&c)) binary_detail::pick_device(a, *tc, name);
  const Shape shape =
      broadcast_shapes(broadcast_shapes(a->shape(), b->shape(), name), binary_detail::shape_of(c), name);
  Tensor out = TensorImpl::empty(shape, dt, dev);
  Tensor ta = binary_detail::materialize(a, dt, dev, shape);
  Tensor tb = binary_detail::materialize(b, dt, dev, shape);
  Tensor tc = binary_detail::materialize(c, dt, dev, shape);
  ternary_kernel(dev)(op, *out, *ta, *tb, *tc, value);
  if (!should_record({&ta, &tb, &tc})) return out;
  using G = std::vector<Tensor>;
  const bool cplx = is_complex(dt);
  auto cj = [cplx](const Tensor& t) { return cplx ? conj(t) : t; };
  switch (op) {
    case TernaryOp::Lerp:
      record("LerpBackward1", {&ta, &tb, &tc}, {&out},
             {SavedTensor(ta, false), SavedTensor(tb, false), SavedTensor(tc, false)}, [cj](Node& n, G& g, G& s) {
               return G{n.needs_input_grad(0) ? mul(g[0], cj(sub(si(1), s[2]))) : nullptr,
                        n.needs_input_grad(1) ? mul(g[0], cj(s[2])) : nullptr,
                        n.needs_input_grad(2) ? mul(g[0], cj(sub(s[1], s[0]))) : nullptr};
             });
      break;
    case TernaryOp::Addcmul:
      record("AddcmulBackward0", {&ta, &tb, &tc}, {&out}, {SavedTensor(tb, false), SavedTensor(tc, false)},
             [cj, value](Node& n, G& g, G& s) {
               return G{g[0], n.needs_input_grad(1) ? mul(g[0], cj(mul(s[1], value))) : nullptr,
                        n.needs_input_grad(2) ? mul(g[0], cj(mul(s[0], value))) : nullptr};
             });
      break;
    case TernaryOp::Addcdiv:
      record("AddcdivBackward0", {&ta, &tb, &tc}, {&out}, {SavedTensor(tb, false), SavedTensor(tc, false)},
             [cj, value](Node& n, G& g, G& s) {
               Tensor g1 = n.needs_input_grad(1) ? mul(g[0], cj(div(value, s[1]))) : nullptr;
               Tensor g2 = n.needs_input_grad(2)
                               ? neg_(mul(g[0], cj(div(div(mul(s[0], value), s[1]), s[1]))))
                               : nullptr;
               return G{g[0], g1, g2};
             });
      break;
  }
  return out;
}

}  // namespace

Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  const Dtype dt = result_type3(self, t1, t2);
  LUCID_CHECK(dt != Dtype::Bool, NotImplemented, "[addcmul] is not implemented for bool tensors");
  return ternary(TernaryOp::Addcmul, "addcmul", self, t1, t2, dt, value_for(dt, value, "addcmul"));
}

Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  LUCID_CHECK(!is_integral(t1->dtype(), true) || !is_integral(t2->dtype(), true), Type,
              "[addcdiv] Integer division with addcdiv is no longer supported (got "
                  << dtype_name(t1->dtype()) << " and " << dtype_name(t2->dtype())
                  << "); use addcmul(self, tensor1, 1 / tensor2) or true division");
  const Dtype dt = result_type3(self, t1, t2);
  LUCID_CHECK(!is_integral(self->dtype(), true) || !is_integral(dt, true), Type,
              "[addcdiv] integer tensors are not supported (got " << dtype_name(dt) << ")");
  LUCID_CHECK(can_cast(dt, self->dtype()) || !is_integral(self->dtype(), true), DtypeMismatch,
              "[addcdiv] result type " << dtype_name(dt) << " can't be cast to the desired output type "
                                       << dtype_name(self->dtype()));
  return ternary(TernaryOp::Addcdiv, "addcdiv", self, t1, t2, dt, value_for(dt, value, "addcdiv"));
}

Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight) {
  const Dtype dt = start->dtype();
  LUCID_CHECK(end->dtype() == dt, DtypeMismatch,
              "[lerp] expected dtype " << dtype_name(dt) << " for `end` but got dtype " << dtype_name(end->dtype()));
  LUCID_CHECK(is_floating(dt) || is_complex(dt), NotImplemented,
              "[lerp] is only implemented for floating point and complex tensors (got " << dtype_name(dt) << ")");
  if (const Scalar* w = std::get_if<Scalar>(&weight)) {
    LUCID_CHECK(w->kind != DtypeCategory::Complex || is_complex(dt), Type,
                "[lerp] a complex weight needs complex tensors (got " << dtype_name(dt) << ")");
  } else {
    const Tensor& wt = std::get<Tensor>(weight);
    LUCID_CHECK(wt->dtype() == dt || wt->dim() == 0, DtypeMismatch,
                "[lerp] expected dtype " << dtype_name(dt) << " for `weight` but got dtype " << dtype_name(wt->dtype()));
  }
  return ternary(TernaryOp::Lerp, "lerp", start, end, weight, dt, si(1));
}

Tensor complex(const Tensor& re, const Tensor& im) {
  LUCID_CHECK(re->dtype() == im->dtype(), DtypeMismatch,
              "[complex] expected both inputs of one dtype, but got " << dtype_name(re->dtype()) << " and "
                                                                       << dtype_name(im->dtype()));
  const Dtype dt = re->dtype();
  LUCID_CHECK(dt == Dtype::F16 || dt == Dtype::F32 || dt == Dtype::F64, DtypeMismatch,
              "[complex] expected both inputs to be half, float or double tensors, but got " << dtype_name(dt));
  const Device dev = binary_detail::pick_device(re, im, "complex");
  const Shape shape = broadcast_shapes(re->shape(), im->shape(), "complex");
  Tensor out = TensorImpl::empty(shape, to_complex(dt), dev);
  Tensor r = expand(re, shape), i = expand(im, shape);
  if (out->numel()) {
    Tensor parts = view_as_real(out);
    copy_into(select(parts, -1, 0), r);
    copy_into(select(parts, -1, 1), i);
  }
  if (should_record({&r, &i}))
    record("ComplexBackward0", {&r, &i}, {&out}, {}, [dt](Node& n, std::vector<Tensor>& g, std::vector<Tensor>&) {
      Tensor parts = view_as_real(is_complex(g[0]->dtype()) ? g[0] : cast(g[0], to_complex(dt)));
      Tensor gr = n.needs_input_grad(0) ? cast(contiguous(select(parts, -1, 0)), dt) : nullptr;
      Tensor gi = n.needs_input_grad(1) ? cast(contiguous(select(parts, -1, 1)), dt) : nullptr;
      return std::vector<Tensor>{gr, gi};
    });
  return out;
}

Tensor polar(const Tensor& abs, const Tensor& angle) {
  LUCID_CHECK(abs->dtype() == angle->dtype(), DtypeMismatch,
              "[polar] expected both inputs of one dtype, but got " << dtype_name(abs->dtype()) << " and "
                                                                     << dtype_name(angle->dtype()));
  LUCID_CHECK(abs->dtype() == Dtype::F32 || abs->dtype() == Dtype::F64, DtypeMismatch,
              "[polar] expected float or double tensors, but got " << dtype_name(abs->dtype()));
  return complex(mul(abs, unary(UnaryOp::Cos, angle)), mul(abs, unary(UnaryOp::Sin, angle)));
}

}  // namespace lucid
