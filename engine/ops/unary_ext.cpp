// The unary family beyond UnaryOp's math: predicates, clamp, nan_to_num, logit, round(decimals),
// polygamma, sgn, and the complex parts (real, imag, angle).
#include <cfloat>
#include <cmath>

#include "ops/binary.h"
#include "ops/compare.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/unary.h"
#include "ops/view_track.h"
#include "ops/view.h"

namespace lucid {

namespace {

const char* pred_name(PredOp op) {
  switch (op) {
    case PredOp::IsNan: return "isnan";
    case PredOp::IsInf: return "isinf";
    case PredOp::IsFinite: return "isfinite";
    case PredOp::IsNegInf: return "isneginf";
    case PredOp::IsPosInf: return "isposinf";
    case PredOp::SignBit: return "signbit";
    case PredOp::LogicalNot: return "logical_not";
    case PredOp::IsReal: return "isreal";
  }
  return "?";
}

Scalar sc(double v) { return Scalar::from_double(v); }

// The floating dtype an integer/bool input computes in (PyTorch's int -> float promotion).
Dtype floating_of(Dtype d) { return is_integral(d, true) ? default_dtype() : d; }

// Largest finite value of a floating dtype (complex: of its parts).
double finite_max(Dtype d) {
  switch (to_real(d)) {
    case Dtype::F16: return 65504.0;
    case Dtype::BF16: return 3.3895313892515355e38;
    case Dtype::F32: return double(FLT_MAX);
    default: return DBL_MAX;
  }
}

const Shape kScalarShape{};
const Shape& operand_shape(const Operand& x) {
  const Tensor* t = std::get_if<Tensor>(&x);
  return t ? (*t)->shape() : kScalarShape;
}

// A bound of clamp as a tensor of dtype dt on dev, expanded to shape.
Tensor bound_tensor(const Operand& b, Dtype dt, Device dev, const Shape& shape, const char* name) {
  if (const Tensor* t = std::get_if<Tensor>(&b)) {
    LUCID_CHECK((*t)->device() == dev || ((*t)->dim() == 0 && (*t)->device().is_cpu()), DeviceMismatch,
                "[" << name << "] expected all tensors to be on the same device, but found " << dev << " and "
                    << (*t)->device());
    return expand(to(*t, dt, dev), shape);
  }
  Tensor s = TensorImpl::empty({}, dt, dev);
  fill_kernel(dev)(*s, std::get<Scalar>(b));
  return expand(s, shape);
}

bool is_complex_operand(const Operand& x) {
  if (const Tensor* t = std::get_if<Tensor>(&x)) return is_complex((*t)->dtype());
  return std::get<Scalar>(x).kind == DtypeCategory::Complex;
}

}  // namespace

Tensor pred(PredOp op, const Tensor& x) {
  const char* name = pred_name(op);
  if (op == PredOp::IsNegInf || op == PredOp::IsPosInf || op == PredOp::SignBit)
    LUCID_CHECK(!is_complex(x->dtype()), Value, "[" << name << "] does not support complex inputs");
  Tensor out = TensorImpl::empty(x->shape(), Dtype::Bool, x->device());
  if (out->numel()) unary_pred_kernel(x->device())(op, *out, *x);
  return out;
}

Tensor clamp(const Tensor& x, std::optional<Operand> lo, std::optional<Operand> hi) {
  LUCID_CHECK(lo || hi, Generic, "[clamp] At least one of 'min' or 'max' must not be None");
  LUCID_CHECK(!is_complex(x->dtype()) && !(lo && is_complex_operand(*lo)) && !(hi && is_complex_operand(*hi)),
              NotImplemented, "[clamp] clamp is not supported for complex types");
  ResultTypeState st;
  st.add_tensor(x->dtype(), x->dim() == 0);
  Shape shape = x->shape();
  for (const auto* b : {&lo, &hi}) {
    if (!*b) continue;
    if (const Tensor* t = std::get_if<Tensor>(&**b)) st.add_tensor((*t)->dtype(), (*t)->dim() == 0);
    else st.add_scalar(std::get<Scalar>(**b).kind);
    shape = broadcast_shapes(shape, operand_shape(**b), "clamp");
  }
  const Dtype dt = st.result();
  LUCID_CHECK(dt != Dtype::Bool, NotImplemented, "[clamp] is not implemented for bool tensors");
  const Device dev = x->device();
  Tensor xv = expand(to(x, dt, dev), shape);
  Tensor tlo = lo ? bound_tensor(*lo, dt, dev, shape, "clamp") : nullptr;
  Tensor thi = hi ? bound_tensor(*hi, dt, dev, shape, "clamp") : nullptr;
  Tensor out = TensorImpl::empty(shape, dt, dev);
  if (out->numel()) clamp_kernel(dev)(*out, *xv, tlo ? tlo.get() : nullptr, thi ? thi.get() : nullptr);
  // PyTorch's clamp_backward_min_max: x gets g inside [min, max]; a tensor bound gets g where it won.
  if (should_record({&xv, tlo ? &tlo : nullptr, thi ? &thi : nullptr})) {
    const bool has_lo = bool(tlo), has_hi = bool(thi);
    record("ClampBackward1", {&xv, has_lo ? &tlo : nullptr, has_hi ? &thi : nullptr}, {&out},
           {SavedTensor(xv, false), has_lo ? SavedTensor(tlo, false) : SavedTensor(),
            has_hi ? SavedTensor(thi, false) : SavedTensor()},
           [has_lo, has_hi](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             const Tensor &x = s[0], &l = s[1], &h = s[2];
             const Scalar zero = Scalar::from_int(0);
             Tensor gx, gl, gh;
             if (has_lo && has_hi) {
               if (n.needs_input_grad(0)) gx = where(logical_and(ge(x, l), le(x, h)), g[0], zero);
               if (n.needs_input_grad(1)) gl = where(logical_and(lt(x, l), lt(l, h)), g[0], zero);
               if (n.needs_input_grad(2)) gh = where(logical_or(gt(x, h), lt(h, l)), g[0], zero);
             } else if (has_lo) {
               if (n.needs_input_grad(0)) gx = where(ge(x, l), g[0], zero);
               if (n.needs_input_grad(1)) gl = where(lt(x, l), g[0], zero);
             } else {
               if (n.needs_input_grad(0)) gx = where(le(x, h), g[0], zero);
               if (n.needs_input_grad(2)) gh = where(gt(x, h), g[0], zero);
             }
             return std::vector<Tensor>{gx, gl, gh};
           });
  }
  return out;
}

Tensor nan_to_num(const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (!is_floating(x->dtype()) && !is_complex(x->dtype())) return clone(x);
  const double m = finite_max(x->dtype());
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  if (out->numel())
    nan_to_num_kernel(x->device())(*out, *x, nan.value_or(0.0), posinf.value_or(m), neginf.value_or(-m));
  record("NanToNumBackward0", {&x}, {&out}, {SavedTensor(x, false)},
         [](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{mul(g[0], isfinite(s[0]))};
         });
  return out;
}

Tensor logit(const Tensor& x_in, std::optional<double> eps) {
  LUCID_CHECK(!is_complex(x_in->dtype()), NotImplemented, "[logit] is not implemented for complex tensors");
  Tensor x = cast(x_in, floating_of(x_in->dtype()));
  const double e = eps && *eps >= 0 ? *eps : -1.0;
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  if (out->numel()) logit_kernel(x->device())(*out, *x, e);
  // g / (x (1 - x)); with eps: 0 where x was clamped; without: NaN outside [0, 1] (as PyTorch)
  record("LogitBackward0", {&x}, {&out}, {SavedTensor(x, false)}, [e](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
    const Tensor& xs = s[0];
    Tensor d = div(g[0], mul(xs, sub(sc(1.0), xs)));
    if (e < 0) return std::vector<Tensor>{where(logical_or(lt(xs, sc(0.0)), gt(xs, sc(1.0))), sc(NAN), d)};
    return std::vector<Tensor>{where(logical_or(lt(xs, sc(e)), gt(xs, sc(1.0 - e))), sc(0.0), d)};
  });
  return out;
}

Tensor round(const Tensor& x, int64_t decimals) {
  if (decimals == 0) return unary(UnaryOp::Round, x);
  LUCID_CHECK(is_floating(x->dtype()), NotImplemented,
              "[round] with decimals is not implemented for " << dtype_name(x->dtype()) << " tensors");
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  if (out->numel()) round_decimals_kernel(x->device())(*out, *x, decimals);
  record("RoundBackward1", {&x}, {&out}, {}, [](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{zeros(g[0]->shape(), g[0]->dtype(), g[0]->device())};
  });
  return out;
}

Tensor polygamma(int64_t n, const Tensor& x_in) {
  LUCID_CHECK(n >= 0, Generic, "[polygamma] polygamma(n, x) does not support negative n.");
  LUCID_CHECK(!is_complex(x_in->dtype()), NotImplemented, "[polygamma] is not implemented for complex tensors");
  if (n == 0) return unary(UnaryOp::Digamma, x_in);
  Tensor x = cast(x_in, floating_of(x_in->dtype()));
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  if (out->numel()) polygamma_kernel(x->device())(*out, *x, n);
  record("PolygammaBackward0", {&x}, {&out}, {SavedTensor(x, false)}, [n](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
    return std::vector<Tensor>{mul(g[0], polygamma(n + 1, s[0]))};
  });
  return out;
}

Tensor sgn(const Tensor& x) {
  if (!is_complex(x->dtype())) return unary(UnaryOp::Sign, x);
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  if (out->numel()) unary_misc_kernel(x->device())(MiscOp::Sgn, *out, *x);
  // d sgn: (g - conj(g) * sgn^2) / (2 |z|) (PyTorch's sgn_backward)
  record("SgnBackward0", {&x}, {&out}, {SavedTensor(x, false), SavedTensor(out, true)},
         [](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           Tensor a = unary(UnaryOp::Abs, s[0]);
           Tensor num = sub(g[0], mul(conj(g[0]), mul(s[1], s[1])));
           return std::vector<Tensor>{where(eq(a, sc(0.0)), sc(0.0), div(num, mul(a, sc(2.0))))};
         });
  return out;
}

namespace {
// The real (part 0) or imaginary (part 1) numbers of a complex tensor, as a view.
Tensor complex_part(const Tensor& x, int part) {
  Strides st = x->strides();
  for (auto& v : st) v *= 2;
  Tensor out = std::make_shared<TensorImpl>(x->storage(), to_real(x->dtype()), x->shape(), st,
                                            x->storage_offset() * 2 + part);
  const Dtype cdt = x->dtype();
  record(part ? "ImagBackward0" : "RealBackward0", {&x}, {&out}, {},
         [cdt, part](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
           Tensor gc = cast(g[0], cdt);
           return std::vector<Tensor>{part ? mul(gc, Scalar::from_complex(0.0, 1.0)) : gc};
         });
  return track_part_view(x, out);
}
}  // namespace

Tensor real(const Tensor& x) { return is_complex(x->dtype()) ? complex_part(x, 0) : x; }

Tensor imag(const Tensor& x) {
  LUCID_CHECK(is_complex(x->dtype()), Generic, "[imag] imag is not implemented for tensors with non-complex dtypes.");
  return complex_part(x, 1);
}

Tensor angle(const Tensor& x_in) {
  Tensor x = cast(x_in, floating_of(x_in->dtype()));
  Tensor out = TensorImpl::empty(x->shape(), to_real(x->dtype()), x->device());
  if (out->numel()) unary_misc_kernel(x->device())(MiscOp::Angle, *out, *x);
  if (!is_complex(x->dtype())) {
    record("AngleBackward0", {&x}, {&out}, {}, [](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
      return std::vector<Tensor>{zeros(g[0]->shape(), g[0]->dtype(), g[0]->device())};
    });
    return out;
  }
  // d angle: i * g * z / |z|^2
  record("AngleBackward0", {&x}, {&out}, {SavedTensor(x, false)}, [](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
    Tensor a = unary(UnaryOp::Abs, s[0]);
    Tensor d = mul(div(mul(g[0], s[0]), mul(a, a)), Scalar::from_complex(0.0, 1.0));
    return std::vector<Tensor>{where(eq(a, sc(0.0)), sc(0.0), d)};
  });
  return out;
}

}  // namespace lucid
