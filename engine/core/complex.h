#pragma once
// A complex number usable on host and device, layout-compatible with std::complex<T>.
#include <cmath>

#include "core/macros.h"

namespace lucid {

template <typename T>
struct alignas(2 * sizeof(T)) Complex {
  T re, im;
  Complex() = default;
  LUCID_HD constexpr Complex(T r, T i = T(0)) : re(r), im(i) {}
  template <typename U>
  LUCID_HD explicit constexpr Complex(const Complex<U>& o) : re(T(o.re)), im(T(o.im)) {}
  LUCID_HD constexpr T real() const { return re; }
  LUCID_HD constexpr T imag() const { return im; }
  LUCID_HD friend Complex operator+(Complex a, Complex b) { return {a.re + b.re, a.im + b.im}; }
  LUCID_HD friend Complex operator-(Complex a, Complex b) { return {a.re - b.re, a.im - b.im}; }
  LUCID_HD friend Complex operator-(Complex a) { return {-a.re, -a.im}; }
  LUCID_HD friend Complex operator*(Complex a, Complex b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  LUCID_HD friend Complex operator/(Complex a, Complex b) {
    // Smith's algorithm: avoids overflow for large |b|.
    if (std::fabs(b.re) >= std::fabs(b.im)) {
      if (b.re == T(0) && b.im == T(0)) return {a.re / std::fabs(b.re), a.im / std::fabs(b.im)};
      T r = b.im / b.re, d = b.re + b.im * r;
      return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
    }
    T r = b.re / b.im, d = b.im + b.re * r;
    return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
  }
  LUCID_HD Complex& operator+=(Complex b) { re += b.re; im += b.im; return *this; }
  LUCID_HD Complex& operator*=(Complex b) { return *this = *this * b; }
  LUCID_HD friend bool operator==(Complex a, Complex b) { return a.re == b.re && a.im == b.im; }
  LUCID_HD friend bool operator!=(Complex a, Complex b) { return !(a == b); }
};

using c64 = Complex<float>;
using c128 = Complex<double>;

}  // namespace lucid
