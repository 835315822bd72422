#pragma once
// Kernels of the special functions (ops/special.h): one-operand functions of a floating tensor and
// two-operand ones of same-dtype, same-shape operands (expanded by the op). Inputs arrive validated,
// outputs allocated; float16/bfloat16/float32 compute in double and round once.
#include <cstdint>

#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

enum class SpecialOp : uint8_t {
  I0, I0e, I1, I1e, Erfcx, Ndtri, LogNdtr,
  // without derivatives (as in PyTorch)
  AiryAi, BesselJ0, BesselJ1, BesselY0, BesselY1, ModifiedBesselK0, ModifiedBesselK1, ScaledModifiedBesselK0,
  ScaledModifiedBesselK1, SphericalBesselJ0
};
// The orthogonal polynomials take (x, n): n a floating order truncated toward zero (ops/special.h).
enum class SpecialBinaryOp : uint8_t {
  Igamma, Igammac, Zeta,
  ChebyshevT, ChebyshevU, ChebyshevV, ChebyshevW, ShiftedChebyshevT, ShiftedChebyshevU, ShiftedChebyshevV,
  ShiftedChebyshevW, HermiteH, HermiteHe, LaguerreL, LegendreP
};

// The names users see (messages, the profiler).
inline const char* special_name(SpecialOp op) {
  switch (op) {
    case SpecialOp::I0: return "i0";
    case SpecialOp::I0e: return "special.i0e";
    case SpecialOp::I1: return "special.i1";
    case SpecialOp::I1e: return "special.i1e";
    case SpecialOp::Erfcx: return "special.erfcx";
    case SpecialOp::Ndtri: return "special.ndtri";
    case SpecialOp::LogNdtr: return "special.log_ndtr";
    case SpecialOp::AiryAi: return "special.airy_ai";
    case SpecialOp::BesselJ0: return "special.bessel_j0";
    case SpecialOp::BesselJ1: return "special.bessel_j1";
    case SpecialOp::BesselY0: return "special.bessel_y0";
    case SpecialOp::BesselY1: return "special.bessel_y1";
    case SpecialOp::ModifiedBesselK0: return "special.modified_bessel_k0";
    case SpecialOp::ModifiedBesselK1: return "special.modified_bessel_k1";
    case SpecialOp::ScaledModifiedBesselK0: return "special.scaled_modified_bessel_k0";
    case SpecialOp::ScaledModifiedBesselK1: return "special.scaled_modified_bessel_k1";
    case SpecialOp::SphericalBesselJ0: return "special.spherical_bessel_j0";
  }
  return "?";
}
inline const char* special_name(SpecialBinaryOp op) {
  switch (op) {
    case SpecialBinaryOp::Igamma: return "igamma";
    case SpecialBinaryOp::Igammac: return "igammac";
    case SpecialBinaryOp::Zeta: return "special.zeta";
    case SpecialBinaryOp::ChebyshevT: return "special.chebyshev_polynomial_t";
    case SpecialBinaryOp::ChebyshevU: return "special.chebyshev_polynomial_u";
    case SpecialBinaryOp::ChebyshevV: return "special.chebyshev_polynomial_v";
    case SpecialBinaryOp::ChebyshevW: return "special.chebyshev_polynomial_w";
    case SpecialBinaryOp::ShiftedChebyshevT: return "special.shifted_chebyshev_polynomial_t";
    case SpecialBinaryOp::ShiftedChebyshevU: return "special.shifted_chebyshev_polynomial_u";
    case SpecialBinaryOp::ShiftedChebyshevV: return "special.shifted_chebyshev_polynomial_v";
    case SpecialBinaryOp::ShiftedChebyshevW: return "special.shifted_chebyshev_polynomial_w";
    case SpecialBinaryOp::HermiteH: return "special.hermite_polynomial_h";
    case SpecialBinaryOp::HermiteHe: return "special.hermite_polynomial_he";
    case SpecialBinaryOp::LaguerreL: return "special.laguerre_polynomial_l";
    case SpecialBinaryOp::LegendreP: return "special.legendre_polynomial_p";
  }
  return "?";
}

LUCID_DECLARE_KERNEL(special_kernel, void (*)(SpecialOp op, const TensorImpl& out, const TensorImpl& in))
LUCID_DECLARE_KERNEL(special_binary_kernel,
                     void (*)(SpecialBinaryOp op, const TensorImpl& out, const TensorImpl& a, const TensorImpl& b))

}  // namespace lucid
