#pragma once
// A Python-style scalar: bool, int, float or complex, with its category for weak-type promotion.
#include <cstdint>

#include "core/dtype.h"

namespace lucid {

struct Scalar {
  DtypeCategory kind = DtypeCategory::Integral;
  bool b = false;
  int64_t i = 0;
  double re = 0, im = 0;

  Scalar() = default;
  static Scalar from_bool(bool v) { Scalar s; s.kind = DtypeCategory::Bool; s.b = v; s.i = v; s.re = v; return s; }
  static Scalar from_int(int64_t v) { Scalar s; s.kind = DtypeCategory::Integral; s.i = v; s.re = double(v); s.b = v != 0; return s; }
  static Scalar from_double(double v) { Scalar s; s.kind = DtypeCategory::Floating; s.re = v; s.i = int64_t(v); s.b = v != 0; return s; }
  static Scalar from_complex(double r, double m) { Scalar s; s.kind = DtypeCategory::Complex; s.re = r; s.im = m; s.i = int64_t(r); s.b = r != 0 || m != 0; return s; }

  // Value converted to T, the way a cast kernel would.
  template <typename T> T to() const {
    if constexpr (std::is_same_v<T, bool>) return b;
    else if constexpr (std::is_same_v<T, c64>) return c64(float(re), float(im));
    else if constexpr (std::is_same_v<T, c128>) return c128(re, im);
    else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return T(float(re));
    else if constexpr (std::is_integral_v<T>) return kind == DtypeCategory::Integral || kind == DtypeCategory::Bool ? T(i) : T(int64_t(re));
    else return T(kind == DtypeCategory::Integral ? double(i) : re);
  }
};

}  // namespace lucid
