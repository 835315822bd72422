// CPU kernels of the special functions (kernels/special.h): each element through the double-precision
// scalar functions of special_math.h / special_math2.h, rounded once to the tensor's dtype.
#include <type_traits>

#include "backend/common/iter.h"
#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/special_math.h"
#include "backend/cpu/special_math2.h"
#include "backend/kernels/special.h"

namespace lucid::cpu {

namespace {

template <typename T>
double in_double(T v) {
  if constexpr (std::is_same_v<T, double>) return v;
  else return double(float(v));
}
template <typename T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) return T(v);
  else return T(float(v));
}

// The special functions are long scalar code: a small grain still splits a few thousand elements.
constexpr int64_t kGrain = 1024;

template <SpecialOp Op>
double special_fn(double x) {
  if constexpr (Op == SpecialOp::I0) return sm::i0(x);
  else if constexpr (Op == SpecialOp::I0e) return sm::i0e(x);
  else if constexpr (Op == SpecialOp::I1) return sm::i1(x);
  else if constexpr (Op == SpecialOp::I1e) return sm::i1e(x);
  else if constexpr (Op == SpecialOp::Erfcx) return sm::erfcx(x);
  else if constexpr (Op == SpecialOp::Ndtri) return sm::ndtri(x);
  else if constexpr (Op == SpecialOp::LogNdtr) return sm::log_ndtr(x);
  else if constexpr (Op == SpecialOp::AiryAi) return sm::airy_ai(x);
  else if constexpr (Op == SpecialOp::BesselJ0) return sm::bessel_j0(x);
  else if constexpr (Op == SpecialOp::BesselJ1) return sm::bessel_j1(x);
  else if constexpr (Op == SpecialOp::BesselY0) return sm::bessel_y0(x);
  else if constexpr (Op == SpecialOp::BesselY1) return sm::bessel_y1(x);
  else if constexpr (Op == SpecialOp::ModifiedBesselK0) return sm::bessel_k0<false>(x);
  else if constexpr (Op == SpecialOp::ModifiedBesselK1) return sm::bessel_k1<false>(x);
  else if constexpr (Op == SpecialOp::ScaledModifiedBesselK0) return sm::bessel_k0<true>(x);
  else if constexpr (Op == SpecialOp::ScaledModifiedBesselK1) return sm::bessel_k1<true>(x);
  else return sm::spherical_bessel_j0(x);
}

template <SpecialOp Op>
void special_run(const TensorImpl& out, const TensorImpl& in) {
  dispatch_floating(in.dtype(), special_name(Op), [&]<typename T>() {
    auto it = Iter<2>::make({&out, &in});
    parallel_for(0, it.numel, kGrain, [&](int64_t b, int64_t e) {
      it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<T*>(p[0] + i * s[0]) =
              from_double<T>(special_fn<Op>(in_double(*reinterpret_cast<const T*>(p[1] + i * s[1]))));
      });
    });
  });
}

void special(SpecialOp op, const TensorImpl& out, const TensorImpl& in) {
  if (out.numel() == 0) return;
  switch (op) {
    case SpecialOp::I0: return special_run<SpecialOp::I0>(out, in);
    case SpecialOp::I0e: return special_run<SpecialOp::I0e>(out, in);
    case SpecialOp::I1: return special_run<SpecialOp::I1>(out, in);
    case SpecialOp::I1e: return special_run<SpecialOp::I1e>(out, in);
    case SpecialOp::Erfcx: return special_run<SpecialOp::Erfcx>(out, in);
    case SpecialOp::Ndtri: return special_run<SpecialOp::Ndtri>(out, in);
    case SpecialOp::LogNdtr: return special_run<SpecialOp::LogNdtr>(out, in);
    case SpecialOp::AiryAi: return special_run<SpecialOp::AiryAi>(out, in);
    case SpecialOp::BesselJ0: return special_run<SpecialOp::BesselJ0>(out, in);
    case SpecialOp::BesselJ1: return special_run<SpecialOp::BesselJ1>(out, in);
    case SpecialOp::BesselY0: return special_run<SpecialOp::BesselY0>(out, in);
    case SpecialOp::BesselY1: return special_run<SpecialOp::BesselY1>(out, in);
    case SpecialOp::ModifiedBesselK0: return special_run<SpecialOp::ModifiedBesselK0>(out, in);
    case SpecialOp::ModifiedBesselK1: return special_run<SpecialOp::ModifiedBesselK1>(out, in);
    case SpecialOp::ScaledModifiedBesselK0: return special_run<SpecialOp::ScaledModifiedBesselK0>(out, in);
    case SpecialOp::ScaledModifiedBesselK1: return special_run<SpecialOp::ScaledModifiedBesselK1>(out, in);
    case SpecialOp::SphericalBesselJ0: return special_run<SpecialOp::SphericalBesselJ0>(out, in);
  }
}

// The polynomials' order from its floating operand (sm::poly_order); Hermite's NaN above order 512
// in float64 and 128 in the narrower dtypes (PyTorch's limits for double and float).
template <SpecialBinaryOp Op, typename T>
double special_binary_fn(double x, double y) {
  using B = SpecialBinaryOp;
  constexpr int64_t kHermiteLimit = std::is_same_v<T, double> ? 512 : 128;
  if constexpr (Op == B::Igamma) return sm::igamma(x, y);
  else if constexpr (Op == B::Igammac) return sm::igammac(x, y);
  else if constexpr (Op == B::Zeta) return sm::zeta(x, y);
  else {
    const int64_t n = sm::poly_order(y);
    if constexpr (Op == B::ChebyshevT) return sm::chebyshev_t(x, n);
    else if constexpr (Op == B::ChebyshevU) return sm::chebyshev_u(x, n);
    else if constexpr (Op == B::ChebyshevV) return sm::chebyshev_v(x, n);
    else if constexpr (Op == B::ChebyshevW) return sm::chebyshev_w(x, n);
    else if constexpr (Op == B::ShiftedChebyshevT) return sm::shifted_chebyshev_t(x, n);
    else if constexpr (Op == B::ShiftedChebyshevU) return sm::shifted_chebyshev_u(x, n);
    else if constexpr (Op == B::ShiftedChebyshevV) return sm::shifted_chebyshev_v(x, n);
    else if constexpr (Op == B::ShiftedChebyshevW) return sm::shifted_chebyshev_w(x, n);
    else if constexpr (Op == B::HermiteH) return sm::hermite_h(x, n, kHermiteLimit);
    else if constexpr (Op == B::HermiteHe) return sm::hermite_he(x, n, kHermiteLimit);
    else if constexpr (Op == B::LaguerreL) return sm::laguerre_l(x, n);
    else return sm::legendre_p(x, n);
  }
}

template <SpecialBinaryOp Op>
void special_binary_run(const TensorImpl& out, const TensorImpl& a, const TensorImpl& b) {
  dispatch_floating(a.dtype(), special_name(Op), [&]<typename T>() {
    auto it = Iter<3>::make({&out, &a, &b});
    parallel_for(0, it.numel, kGrain, [&](int64_t lo, int64_t hi) {
      it.for_range(lo, hi, [&](char** p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          const double x = in_double(*reinterpret_cast<const T*>(p[1] + i * s[1]));
          const double y = in_double(*reinterpret_cast<const T*>(p[2] + i * s[2]));
          *reinterpret_cast<T*>(p[0] + i * s[0]) = from_double<T>(special_binary_fn<Op, T>(x, y));
        }
      });
    });
  });
}

void special_binary(SpecialBinaryOp op, const TensorImpl& out, const TensorImpl& a, const TensorImpl& b) {
  if (out.numel() == 0) return;
  switch (op) {
    case SpecialBinaryOp::Igamma: return special_binary_run<SpecialBinaryOp::Igamma>(out, a, b);
    case SpecialBinaryOp::Igammac: return special_binary_run<SpecialBinaryOp::Igammac>(out, a, b);
    case SpecialBinaryOp::Zeta: return special_binary_run<SpecialBinaryOp::Zeta>(out, a, b);
    case SpecialBinaryOp::ChebyshevT: return special_binary_run<SpecialBinaryOp::ChebyshevT>(out, a, b);
    case SpecialBinaryOp::ChebyshevU: return special_binary_run<SpecialBinaryOp::ChebyshevU>(out, a, b);
    case SpecialBinaryOp::ChebyshevV: return special_binary_run<SpecialBinaryOp::ChebyshevV>(out, a, b);
    case SpecialBinaryOp::ChebyshevW: return special_binary_run<SpecialBinaryOp::ChebyshevW>(out, a, b);
    case SpecialBinaryOp::ShiftedChebyshevT: return special_binary_run<SpecialBinaryOp::ShiftedChebyshevT>(out, a, b);
    case SpecialBinaryOp::ShiftedChebyshevU: return special_binary_run<SpecialBinaryOp::ShiftedChebyshevU>(out, a, b);
    case SpecialBinaryOp::ShiftedChebyshevV: return special_binary_run<SpecialBinaryOp::ShiftedChebyshevV>(out, a, b);
    case SpecialBinaryOp::ShiftedChebyshevW: return special_binary_run<SpecialBinaryOp::ShiftedChebyshevW>(out, a, b);
    case SpecialBinaryOp::HermiteH: return special_binary_run<SpecialBinaryOp::HermiteH>(out, a, b);
    case SpecialBinaryOp::HermiteHe: return special_binary_run<SpecialBinaryOp::HermiteHe>(out, a, b);
    case SpecialBinaryOp::LaguerreL: return special_binary_run<SpecialBinaryOp::LaguerreL>(out, a, b);
    case SpecialBinaryOp::LegendreP: return special_binary_run<SpecialBinaryOp::LegendreP>(out, a, b);
  }
}

}  // namespace

LUCID_REGISTER_KERNEL(special_kernel, CPU, &special)
LUCID_REGISTER_KERNEL(special_binary_kernel, CPU, &special_binary)

}  // namespace lucid::cpu
