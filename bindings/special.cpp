// The special functions (ops/special.h): i0, igamma, igammac as module functions and Tensor methods
// (with in-place variants), and the rest as _C.special_<name> for lucid.special.
#include <iterator>
#include <string>

#include "bindings/common.h"
#include "ops/special.h"

namespace lucid::py {

void init_special(nb::module_& m) {
  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  using S = SpecialOp;
  using B = SpecialBinaryOp;

  m.def("i0", [](const Tensor& x) { return special(S::I0, x); }, nb::arg("input"));
  cls.def("i0", [](const Tensor& x) { return special(S::I0, x); });
  cls.def("i0_", [](const Tensor& x) { return special_(S::I0, x); });
  struct Named {
    S op;
    const char* name;
    const char* doc;
  };
  static const Named unary_ops[] = {
      {S::I0e, "special_i0e", "Exponentially scaled modified Bessel function of the first kind, order 0: exp(-|x|) i0(x)."},
      {S::I1, "special_i1", "Modified Bessel function of the first kind, order 1."},
      {S::I1e, "special_i1e", "Exponentially scaled modified Bessel function of the first kind, order 1: exp(-|x|) i1(x)."},
      {S::Erfcx, "special_erfcx", "Scaled complementary error function exp(x^2) erfc(x)."},
      {S::Ndtri, "special_ndtri", "The inverse of the standard normal CDF (the x with ndtr(x) = input)."},
      {S::LogNdtr, "special_log_ndtr", "log of the standard normal CDF, accurate in the left tail."},
      {S::AiryAi, "special_airy_ai", "Airy function Ai(input). No derivative."},
      {S::BesselJ0, "special_bessel_j0", "Bessel function of the first kind, order 0. No derivative."},
      {S::BesselJ1, "special_bessel_j1", "Bessel function of the first kind, order 1. No derivative."},
      {S::BesselY0, "special_bessel_y0",
       "Bessel function of the second kind, order 0 (-inf at 0, NaN below). No derivative."},
      {S::BesselY1, "special_bessel_y1",
       "Bessel function of the second kind, order 1 (-inf at 0, NaN below). No derivative."},
      {S::ModifiedBesselK0, "special_modified_bessel_k0",
       "Modified Bessel function of the second kind, order 0 (inf at 0, NaN below). No derivative."},
      {S::ModifiedBesselK1, "special_modified_bessel_k1",
       "Modified Bessel function of the second kind, order 1 (inf at 0, NaN below). No derivative."},
      {S::ScaledModifiedBesselK0, "special_scaled_modified_bessel_k0",
       "Exponentially scaled modified Bessel function of the second kind, order 0: exp(x) k0(x). No derivative."},
      {S::ScaledModifiedBesselK1, "special_scaled_modified_bessel_k1",
       "Exponentially scaled modified Bessel function of the second kind, order 1: exp(x) k1(x). No derivative."},
      {S::SphericalBesselJ0, "special_spherical_bessel_j0",
       "Spherical Bessel function of the first kind, order 0: sin(x) / x. No derivative."}};
  for (const Named& u : unary_ops) {
    const S o = u.op;
    m.def(u.name, [o](const Tensor& x) { return special(o, x); }, nb::arg("input"), u.doc);
  }

  for (const auto& [op, name] : {std::pair{B::Igamma, "igamma"}, std::pair{B::Igammac, "igammac"}}) {
    const B o = op;
    m.def(name, [o](const Operand& a, const Operand& b) { return special_binary(o, a, b); }, nb::arg("input"),
          nb::arg("other"));
    cls.def(name, [o](const Tensor& a, const Operand& b) { return special_binary(o, a, b); }, nb::arg("other"));
    cls.def((std::string(name) + "_").c_str(), [o](const Tensor& a, const Operand& b) { return special_binary_(o, a, b); },
            nb::arg("other"));
  }
  m.def("special_zeta", [](const Operand& a, const Operand& b) { return special_binary(B::Zeta, a, b); },
        nb::arg("input"), nb::arg("other"), "Hurwitz zeta function sum_k (k + other)^-input.");

  // the orthogonal polynomials of (input, n): n truncated toward zero, 0 for a negative order
  struct Poly {
    B op;
    const char* name;
    const char* doc;
  };
  static const Poly polys[] = {
      {B::ChebyshevT, "special_chebyshev_polynomial_t", "Chebyshev polynomial of the first kind T_n(input)."},
      {B::ChebyshevU, "special_chebyshev_polynomial_u", "Chebyshev polynomial of the second kind U_n(input)."},
      {B::ChebyshevV, "special_chebyshev_polynomial_v", "Chebyshev polynomial of the third kind V_n(input)."},
      {B::ChebyshevW, "special_chebyshev_polynomial_w", "Chebyshev polynomial of the fourth kind W_n(input)."},
      {B::ShiftedChebyshevT, "special_shifted_chebyshev_polynomial_t",
       "Shifted Chebyshev polynomial of the first kind T_n(2 input - 1)."},
      {B::ShiftedChebyshevU, "special_shifted_chebyshev_polynomial_u",
       "Shifted Chebyshev polynomial of the second kind U_n(2 input - 1)."},
      {B::ShiftedChebyshevV, "special_shifted_chebyshev_polynomial_v",
       "Shifted Chebyshev polynomial of the third kind V_n(2 input - 1)."},
      {B::ShiftedChebyshevW, "special_shifted_chebyshev_polynomial_w",
       "Shifted Chebyshev polynomial of the fourth kind W_n(2 input - 1)."},
      {B::HermiteH, "special_hermite_polynomial_h",
       "Physicists' Hermite polynomial H_n(input) (NaN above order 512 in float64, 128 otherwise)."},
      {B::HermiteHe, "special_hermite_polynomial_he",
       "Probabilists' Hermite polynomial He_n(input) (NaN above order 512 in float64, 128 otherwise)."},
      {B::LaguerreL, "special_laguerre_polynomial_l", "Laguerre polynomial L_n(input)."},
      {B::LegendreP, "special_legendre_polynomial_p", "Legendre polynomial P_n(input)."}};
  static std::string docs[std::size(polys)];  // kept alive: the docstrings point into them
  for (size_t i = 0; i < std::size(polys); ++i) {
    const B o = polys[i].op;
    docs[i] = std::string(polys[i].doc) +
              " n (a tensor or a number, broadcast with input) is truncated toward zero; a negative order gives 0."
              " No derivative.";
    m.def(polys[i].name, [o](const Operand& x, const Operand& n) { return special_binary(o, x, n); },
          nb::arg("input"), nb::arg("n"), docs[i].c_str());
  }
}

LUCID_BINDINGS(init_special)

}  // namespace lucid::py
