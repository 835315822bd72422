#pragma once
// Scalar math of the binary family beyond add/sub/mul/div (floor division, remainder, pow,
// maximum, bitwise, ...), with PyTorch's semantics. M is the arithmetic type: float for
// half/bfloat16, the storage type otherwise. The op layer only asks for pairs that
// binary_supported() accepts, and has already refused integer division by zero.
#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>

#include "backend/kernels/elementwise.h"
#include "core/complex.h"

namespace lucid {

namespace bm {

template <typename M>
constexpr bool is_cplx = std::is_same_v<M, c64> || std::is_same_v<M, c128>;
template <typename M>
constexpr bool is_flt = std::is_floating_point_v<M>;
template <typename M>
constexpr bool is_int = std::is_integral_v<M> && !std::is_same_v<M, bool>;

// Integer ops wrap like two's complement (INT_MIN // -1 == INT_MIN, as PyTorch) without UB.
template <typename M>
inline M neg_wrap(M a) {
  using U = std::make_unsigned_t<M>;
  return M(U(0) - U(a));
}

template <typename M>
inline M floor_div(M a, M b) {
  if constexpr (is_int<M>) {
    if (b == 0) return M(0);
    if constexpr (std::is_signed_v<M>) {
      if (b == M(-1)) return neg_wrap(a);
      M q = M(a / b), r = M(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) --q;
      return q;
    } else {
      return M(a / b);
    }
  } else {
    if (b == M(0)) return a / b;
    M mod = std::fmod(a, b);
    M div = (a - mod) / b;
    if (mod != M(0) && ((b < M(0)) != (mod < M(0)))) div -= M(1);
    if (div == M(0)) return std::copysign(M(0), a / b);
    M fl = std::floor(div);
    if (div - fl > M(0.5)) fl += M(1);
    return fl;
  }
}

template <typename M>
inline M trunc_div(M a, M b) {
  if constexpr (is_int<M>) {
    if (b == 0) return M(0);
    if constexpr (std::is_signed_v<M>) {
      if (b == M(-1)) return neg_wrap(a);
    }
    return M(a / b);
  } else {
    return std::trunc(a / b);
  }
}

template <typename M>
inline M fmod_(M a, M b) {
  if constexpr (is_int<M>) {
    if (b == 0) return M(0);
    if constexpr (std::is_signed_v<M>) {
      if (b == M(-1)) return M(0);
    }
    return M(a % b);
  } else {
    return std::fmod(a, b);
  }
}

// Python's sign convention: the result takes the divisor's sign.
template <typename M>
inline M remainder(M a, M b) {
  M r = fmod_(a, b);
  if constexpr (is_int<M>) {
    if constexpr (std::is_signed_v<M>) {
      if (r != 0 && ((r < 0) != (b < 0))) r = M(r + b);
    }
    return r;
  } else {
    if (r != M(0) && ((b < M(0)) != (r < M(0)))) r += b;
    return r;
  }
}

template <typename M>
inline M pow_(M a, M b) {
  if constexpr (is_int<M>) {
    if constexpr (std::is_signed_v<M>) {
      if (b < 0) {
        if (a == 1) return M(1);
        if (a == -1) return (b & 1) ? M(-1) : M(1);
        return M(0);
      }
    }
    uint64_t r = 1, base = uint64_t(int64_t(a));
    uint64_t e = uint64_t(b);
    while (e) {
      if (e & 1) r *= base;
      e >>= 1;
      base *= base;
    }
    return M(r);
  } else if constexpr (is_cplx<M>) {
    using std::complex;
    const complex<double> x(a.re, a.im), y(b.re, b.im);
    if (y == complex<double>(0, 0)) return M(1, 0);
    if (x == complex<double>(0, 0)) {
      if (y.imag() == 0 && y.real() > 0) return M(0, 0);
    }
    complex<double> r;
    if (y.imag() == 0 && y.real() == std::round(y.real()) && std::fabs(y.real()) <= 64) {
      // small integer exponents by repeated squaring (exact for Gaussian integers, as PyTorch's z * z)
      int64_t e = int64_t(std::fabs(y.real()));
      complex<double> base = x;
      r = complex<double>(1, 0);
      while (e) {
        if (e & 1) r *= base;
        e >>= 1;
        base *= base;
      }
      if (y.real() < 0) r = complex<double>(1, 0) / r;
    } else {
      r = std::pow(x, y);
    }
    using R = decltype(M().re);
    return M(R(r.real()), R(r.imag()));
  } else {
    return std::pow(a, b);
  }
}

template <typename M>
inline bool isnan_(M v) {
  if constexpr (is_flt<M>) return v != v;
  else return false;
}

template <typename M>
inline M logaddexp(M a, M b) {
  if (std::isinf(a) && a == b) return a;
  const M m = a > b ? a : b;
  if (isnan_(a) || isnan_(b)) return a + b;
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

template <typename M>
inline M logaddexp2(M a, M b) {
  if (std::isinf(a) && a == b) return a;
  const M m = a > b ? a : b;
  if (isnan_(a) || isnan_(b)) return a + b;
  return m + std::log1p(std::exp2(-std::fabs(a - b))) / M(0.693147180559945309417232121458176568);
}

template <typename M>
inline M shl(M a, M b) {
  constexpr int64_t bits = int64_t(sizeof(M)) * 8;
  using U = std::make_unsigned_t<M>;
  if (int64_t(b) < 0 || int64_t(b) >= bits) return M(0);
  return M(U(a) << U(b));
}

template <typename M>
inline M shr(M a, M b) {
  constexpr int64_t bits = int64_t(sizeof(M)) * 8;
  if (int64_t(b) < 0 || int64_t(b) >= bits) {
    if constexpr (std::is_signed_v<M>) return a < 0 ? M(-1) : M(0);
    else return M(0);
  }
  return M(a >> b);
}

}  // namespace bm

// Which (op, arithmetic type) pairs have a kernel. The op layer checks dtypes with PyTorch's
// messages first; this only keeps the loop tables from instantiating meaningless pairs.
template <BinaryOp Op, typename M>
constexpr bool binary_supported() {
  using B = BinaryOp;
  constexpr bool b = std::is_same_v<M, bool>, i = bm::is_int<M>, f = bm::is_flt<M>, c = bm::is_cplx<M>;
  switch (Op) {
    case B::Add: case B::Sub: case B::Mul: case B::Div: return true;
    case B::FloorDiv: case B::TruncDiv: case B::Remainder: case B::Fmod: return i || f;
    case B::Pow: return i || f || c;
    case B::Atan2: case B::Hypot: case B::LogAddExp: case B::LogAddExp2: case B::Copysign: case B::Xlogy: return f;
    case B::Maximum: case B::Minimum: case B::Fmax: case B::Fmin: case B::Heaviside: return b || i || f;
    case B::BitAnd: case B::BitOr: case B::BitXor: return b || i;
    case B::Shl: case B::Shr: return i;
  }
  return false;
}

// The family's ops beyond Add..Div (only called for supported pairs).
template <BinaryOp Op, typename M>
inline M apply_binary_ext(M a, M b) {
  using B = BinaryOp;
  if constexpr (!binary_supported<Op, M>()) {
    return a;
  } else if constexpr (Op == B::FloorDiv) {
    return bm::floor_div(a, b);
  } else if constexpr (Op == B::TruncDiv) {
    return bm::trunc_div(a, b);
  } else if constexpr (Op == B::Remainder) {
    return bm::remainder(a, b);
  } else if constexpr (Op == B::Fmod) {
    return bm::fmod_(a, b);
  } else if constexpr (Op == B::Pow) {
    return bm::pow_(a, b);
  } else if constexpr (Op == B::Atan2) {
    return std::atan2(a, b);
  } else if constexpr (Op == B::Hypot) {
    return std::hypot(a, b);
  } else if constexpr (Op == B::Maximum) {
    return (bm::isnan_(a) || a > b) ? a : b;
  } else if constexpr (Op == B::Minimum) {
    return (bm::isnan_(a) || a < b) ? a : b;
  } else if constexpr (Op == B::Fmax) {
    if (bm::isnan_(a)) return b;
    return (bm::isnan_(b) || a > b) ? a : b;
  } else if constexpr (Op == B::Fmin) {
    if (bm::isnan_(a)) return b;
    return (bm::isnan_(b) || a < b) ? a : b;
  } else if constexpr (Op == B::LogAddExp) {
    return bm::logaddexp(a, b);
  } else if constexpr (Op == B::LogAddExp2) {
    return bm::logaddexp2(a, b);
  } else if constexpr (Op == B::Copysign) {
    return std::copysign(a, b);
  } else if constexpr (Op == B::Xlogy) {
    if (b != b) return b;
    if (a == M(0)) return M(0);
    return a * std::log(b);
  } else if constexpr (Op == B::Heaviside) {
    if constexpr (std::is_same_v<M, bool>) return a ? a : b;
    else return a == M(0) ? b : M(a > M(0));
  } else if constexpr (Op == B::BitAnd) {
    if constexpr (std::is_same_v<M, bool>) return a && b;
    else return M(a & b);
  } else if constexpr (Op == B::BitOr) {
    if constexpr (std::is_same_v<M, bool>) return a || b;
    else return M(a | b);
  } else if constexpr (Op == B::BitXor) {
    if constexpr (std::is_same_v<M, bool>) return a != b;
    else return M(a ^ b);
  } else if constexpr (Op == B::Shl) {
    return bm::shl(a, b);
  } else if constexpr (Op == B::Shr) {
    return bm::shr(a, b);
  } else {
    return a;
  }
}

}  // namespace lucid
