// The special functions (ops/special.h): forward and, right under it, the backward in lucid ops.
#include "ops/special.h"

#include <cmath>
#include <string>

#include "ops/compare.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/out.h"
#include "ops/unary.h"

namespace lucid {

namespace {

Scalar sc(double v) { return Scalar::from_double(v); }

// The floating dtype of the computation: integers/bool -> the default float dtype; complex refused.
Dtype special_dtype(Dtype d, const char* name) {
  LUCID_CHECK(!is_complex(d), NotImplemented, "[" << name << "] is not implemented for " << dtype_name(d) << " tensors");
  return is_integral(d, true) ? default_dtype() : d;
}

// The gradient of one special function, given its input x and output y. Airy Ai, the Bessel J, Y, K
// and the spherical j0 have none (as in PyTorch): their backward raises.
Tensor special_grad(SpecialOp op, const Tensor& g, const Tensor& x, const Tensor& y) {
  constexpr double kSqrt2Pi = 2.50662827463100050242, k2OverSqrtPi = 1.12837916709551257390;
  switch (op) {
    case SpecialOp::I0: return mul(g, special(SpecialOp::I1, x));  // I0' = I1
    case SpecialOp::I0e:  // (e^-|x| I0)' = I1e - sgn(x) I0e
      return mul(g, sub(special(SpecialOp::I1e, x), mul(unary(UnaryOp::Sign, x), y)));
    case SpecialOp::I1:  // I1' = I0 - I1 / x, 1/2 at 0
      return mul(g, where(eq(x, sc(0.0)), sc(0.5), sub(special(SpecialOp::I0, x), div(y, x))));
    case SpecialOp::I1e:  // (e^-|x| I1)' = I0e - I1e (sgn(x) + 1/x), 1/2 at 0
      return mul(g, where(eq(x, sc(0.0)), sc(0.5),
                          sub(special(SpecialOp::I0e, x),
                              mul(y, add(unary(UnaryOp::Sign, x), unary(UnaryOp::Reciprocal, x))))));
    case SpecialOp::Erfcx:  // 2 x erfcx(x) - 2 / sqrt(pi)
      return mul(g, sub(mul(mul(x, y), sc(2.0)), sc(k2OverSqrtPi)));
    case SpecialOp::Ndtri:  // sqrt(2 pi) e^{y^2 / 2}
      return mul(g, mul(unary(UnaryOp::Exp, mul(mul(y, y), sc(0.5))), sc(kSqrt2Pi)));
    case SpecialOp::LogNdtr:  // phi(x) / Phi(x) = e^{-x^2/2 - y} / sqrt(2 pi)
      return mul(g, div(unary(UnaryOp::Exp, neg(add(mul(mul(x, x), sc(0.5)), y))), sc(kSqrt2Pi)));
    default: LUCID_FAIL(NotImplemented, "the derivative for '" << special_name(op) << "' is not implemented.");
  }
  return g;
}

}  // namespace

const char* grad_name(SpecialOp op) {
  switch (op) {
    case SpecialOp::I0: return "I0Backward0";
    case SpecialOp::I0e: return "SpecialI0EBackward0";
    case SpecialOp::I1: return "SpecialI1Backward0";
    case SpecialOp::I1e: return "SpecialI1EBackward0";
    case SpecialOp::Erfcx: return "SpecialErfcxBackward0";
    case SpecialOp::Ndtri: return "SpecialNdtriBackward0";
    case SpecialOp::LogNdtr: return "SpecialLogNdtrBackward0";
    case SpecialOp::AiryAi: return "SpecialAiryAiBackward0";
    case SpecialOp::BesselJ0: return "SpecialBesselJ0Backward0";
    case SpecialOp::BesselJ1: return "SpecialBesselJ1Backward0";
    case SpecialOp::BesselY0: return "SpecialBesselY0Backward0";
    case SpecialOp::BesselY1: return "SpecialBesselY1Backward0";
    case SpecialOp::ModifiedBesselK0: return "SpecialModifiedBesselK0Backward0";
    case SpecialOp::ModifiedBesselK1: return "SpecialModifiedBesselK1Backward0";
    case SpecialOp::ScaledModifiedBesselK0: return "SpecialScaledModifiedBesselK0Backward0";
    case SpecialOp::ScaledModifiedBesselK1: return "SpecialScaledModifiedBesselK1Backward0";
    case SpecialOp::SphericalBesselJ0: return "SpecialSphericalBesselJ0Backward0";
  }
  return "?";
}

const char* grad_name(SpecialBinaryOp op) {
  switch (op) {
    case SpecialBinaryOp::Igamma: return "IgammaBackward0";
    case SpecialBinaryOp::Igammac: return "IgammacBackward0";
    case SpecialBinaryOp::Zeta: return "SpecialZetaBackward0";
    case SpecialBinaryOp::ChebyshevT: return "SpecialChebyshevPolynomialTBackward0";
    case SpecialBinaryOp::ChebyshevU: return "SpecialChebyshevPolynomialUBackward0";
    case SpecialBinaryOp::ChebyshevV: return "SpecialChebyshevPolynomialVBackward0";
    case SpecialBinaryOp::ChebyshevW: return "SpecialChebyshevPolynomialWBackward0";
    case SpecialBinaryOp::ShiftedChebyshevT: return "SpecialShiftedChebyshevPolynomialTBackward0";
    case SpecialBinaryOp::ShiftedChebyshevU: return "SpecialShiftedChebyshevPolynomialUBackward0";
    case SpecialBinaryOp::ShiftedChebyshevV: return "SpecialShiftedChebyshevPolynomialVBackward0";
    case SpecialBinaryOp::ShiftedChebyshevW: return "SpecialShiftedChebyshevPolynomialWBackward0";
    case SpecialBinaryOp::HermiteH: return "SpecialHermitePolynomialHBackward0";
    case SpecialBinaryOp::HermiteHe: return "SpecialHermitePolynomialHeBackward0";
    case SpecialBinaryOp::LaguerreL: return "SpecialLaguerrePolynomialLBackward0";
    case SpecialBinaryOp::LegendreP: return "SpecialLegendrePolynomialPBackward0";
  }
  return "?";
}

Tensor special(SpecialOp op, const Tensor& x_in) {
  const char* name = special_name(op);
  const Tensor x = cast(x_in, special_dtype(x_in->dtype(), name));
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  if (out->numel()) special_kernel(x->device())(op, *out, *x);
  record(grad_name(op), {&x}, {&out}, {SavedTensor(x, false), SavedTensor(out, true)},
         [op](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{special_grad(op, g[0], s[0], s[1])};
         });
  return out;
}

Tensor special_(SpecialOp op, const Tensor& self) {
  return write_result_(self, special(op, self), (std::string(special_name(op)) + "_").c_str());
}

Tensor special_binary(SpecialBinaryOp op, const Operand& a, const Operand& b) {
  const char* name = special_name(op);
  LUCID_CHECK(std::holds_alternative<Tensor>(a) || std::holds_alternative<Tensor>(b), Type,
              "[" << name << "] expected at least one tensor operand");
  const Device dev = binary_detail::pick_device(a, b, name);
  const Dtype dt = special_dtype(result_type(a, b), name);
  const Shape shape = broadcast_shapes(binary_detail::shape_of(a), binary_detail::shape_of(b), name);
  const Tensor ta = binary_detail::materialize(a, dt, dev, shape);
  const Tensor tb = binary_detail::materialize(b, dt, dev, shape);
  Tensor out = TensorImpl::empty(shape, dt, dev);
  if (out->numel()) special_binary_kernel(dev)(op, *out, *ta, *tb);
  // igamma/igammac: d/dx = +-x^(a-1) e^-x / Gamma(a); zeta: d/dq = -x zeta(x + 1, q). The first
  // operand has no derivative (as in PyTorch: its backward raises), nor have the polynomials.
  if (op > SpecialBinaryOp::Zeta) {
    record(grad_name(op), {&ta, &tb}, {&out}, {}, [name](Node&, std::vector<Tensor>&, std::vector<Tensor>&) {
      LUCID_FAIL(NotImplemented, "the derivative for '" << name << "' is not implemented.");
      return std::vector<Tensor>{};
    });
    return out;
  }
  record(grad_name(op), {&ta, &tb}, {&out}, {SavedTensor(ta, false), SavedTensor(tb, false)},
         [op, name](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           LUCID_CHECK(!n.needs_input_grad(0), NotImplemented,
                       "the derivative for '" << name << ": input' is not implemented.");
           const Tensor& a = s[0];
           const Tensor& x = s[1];
           Tensor d;
           if (op == SpecialBinaryOp::Zeta) {
             d = neg(mul(a, special_binary(SpecialBinaryOp::Zeta, add(a, sc(1.0)), x)));
           } else {
             d = unary(UnaryOp::Exp, sub(sub(mul(sub(a, sc(1.0)), unary(UnaryOp::Log, x)), x), unary(UnaryOp::Lgamma, a)));
             if (op == SpecialBinaryOp::Igammac) d = neg(d);
           }
           return std::vector<Tensor>{nullptr, mul(g[0], d)};
         });
  return out;
}

Tensor special_binary_(SpecialBinaryOp op, const Tensor& self, const Operand& other) {
  return write_result_(self, special_binary(op, self, other), (std::string(special_name(op)) + "_").c_str());
}

}  // namespace lucid
