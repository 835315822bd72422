// CPU kernels of the unary family beyond UnaryOp's math (kernels/unary_ext.h): complex math,
// predicates, clamp, nan_to_num, logit, round with decimals, polygamma.
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "backend/common/iter.h"
#include "backend/common/unary_math.h"
#include "backend/cpu/arith_loops.h"
#include "backend/cpu/dispatch.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/special_math.h"
#include "backend/cpu/vec_rows.h"
#include "backend/kernels/unary_ext.h"

namespace lucid::cpu {

namespace {

template <typename T>
constexpr bool is_cplx = std::is_same_v<T, c64> || std::is_same_v<T, c128>;

// out[i] = f(in[i]): a contiguous run the compiler can vectorise, else strided.
template <typename Out, typename In, typename F>
void map1(const TensorImpl& out, const TensorImpl& in, F f, int64_t grain = kGrainSize) {
  if (out.numel() == 0) return;
  auto it = Iter<2>::make({&out, &in});
  parallel_for(0, it.numel, grain, [&](int64_t b, int64_t e) {
    it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
        Out* __restrict__ o = reinterpret_cast<Out*>(p[0]);
        const In* __restrict__ x = reinterpret_cast<const In*>(p[1]);
        for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
      } else {
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const In*>(p[1] + i * s[1]));
      }
    });
  });
}

// float32: contiguous runs through a vectorised per-ISA row kernel (vec_rows.h), others through f
// (the same operations, so the same bits).
template <typename Row, typename F>
void map1_f32(const TensorImpl& out, const TensorImpl& in, Row row, F f) {
  if (out.numel() == 0) return;
  auto it = Iter<2>::make({&out, &in});
  parallel_for(0, it.numel, kGrainSize, [&](int64_t b, int64_t e) {
    it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(float) && s[1] == sizeof(float)) {
        row(reinterpret_cast<float*>(p[0]), reinterpret_cast<const float*>(p[1]), n);
      } else {
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<float*>(p[0] + i * s[0]) = f(*reinterpret_cast<const float*>(p[1] + i * s[1]));
      }
    });
  });
}

// ---- predicates

// The sign bit read from the storage bits (std::signbit on bfloat16 -> float trips a GCC 12 ICE).
template <typename T>
inline bool sign_bit(T v) {
  if constexpr (sizeof(T) == 2) {
    uint16_t b;
    std::memcpy(&b, &v, 2);
    return b >> 15;
  } else if constexpr (sizeof(T) == 4) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b >> 31;
  } else {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b >> 63;
  }
}

template <PredOp Op, typename T>
inline bool pred_fn(T v) {
  if constexpr (is_cplx<T>) {
    if constexpr (Op == PredOp::IsNan) return std::isnan(v.re) || std::isnan(v.im);
    else if constexpr (Op == PredOp::IsInf) return std::isinf(v.re) || std::isinf(v.im);
    else if constexpr (Op == PredOp::IsFinite) return std::isfinite(v.re) && std::isfinite(v.im);
    else if constexpr (Op == PredOp::LogicalNot) return v.re == 0 && v.im == 0;
    else if constexpr (Op == PredOp::IsReal) return v.im == 0;
    else return false;  // refused by the op
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (Op == PredOp::IsFinite || Op == PredOp::IsReal) return true;
    else if constexpr (Op == PredOp::LogicalNot) return !v;
    else if constexpr (Op == PredOp::SignBit) {
      if constexpr (std::is_signed_v<T>) return v < 0;
      else return false;
    } else return false;
  } else {
    using M = typename OpMath<T>::type;
    const M m = M(v);
    if constexpr (Op == PredOp::IsNan) return std::isnan(m);
    else if constexpr (Op == PredOp::IsInf) return std::isinf(m);
    else if constexpr (Op == PredOp::IsFinite) return std::isfinite(m);
    else if constexpr (Op == PredOp::IsNegInf) return std::isinf(m) && m < 0;
    else if constexpr (Op == PredOp::IsPosInf) return std::isinf(m) && m > 0;
    else if constexpr (Op == PredOp::SignBit) return sign_bit(v);
    else if constexpr (Op == PredOp::LogicalNot) return m == M(0);
    else return true;  // IsReal
  }
}

void pred(PredOp op, const TensorImpl& out, const TensorImpl& in) {
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    auto go = [&]<PredOp Op>() { map1<bool, T>(out, in, [](T v) { return pred_fn<Op, T>(v); }); };
    switch (op) {
      case PredOp::IsNan: return go.template operator()<PredOp::IsNan>();
      case PredOp::IsInf: return go.template operator()<PredOp::IsInf>();
      case PredOp::IsFinite: return go.template operator()<PredOp::IsFinite>();
      case PredOp::IsNegInf: return go.template operator()<PredOp::IsNegInf>();
      case PredOp::IsPosInf: return go.template operator()<PredOp::IsPosInf>();
      case PredOp::SignBit: return go.template operator()<PredOp::SignBit>();
      case PredOp::LogicalNot: return go.template operator()<PredOp::LogicalNot>();
      case PredOp::IsReal: return go.template operator()<PredOp::IsReal>();
    }
  });
}

// ---- complex math (std::complex, as PyTorch's CPU kernels)

template <typename R>
std::complex<R> c_expm1(std::complex<R> z) {  // accurate near 0 (PyTorch's c10 expm1)
  const R x = z.real(), y = z.imag();
  const R s = std::sin(y / 2);
  return {std::expm1(x) * std::cos(y) - 2 * s * s, std::exp(x) * std::sin(y)};
}

template <typename R>
std::complex<R> c_log1p(std::complex<R> z) {  // accurate near 0 (PyTorch's c10 log1p)
  const R x = z.real(), y = z.imag();
  const R zabs = std::abs(z);
  const R theta = std::atan2(y, x + R(1));
  if (zabs < R(0.5)) {
    const R r = x * (R(2) + x) + y * y;
    if (r == 0) return {x, theta};
    return {R(0.5) * std::log1p(r), theta};
  }
  return {std::log(std::hypot(x + R(1), y)), theta};
}

template <UnaryOp Op, typename R>
inline std::complex<R> complex_fn(std::complex<R> z) {
  using U = UnaryOp;
  using C = std::complex<R>;
  if constexpr (Op == U::Exp) return std::exp(z);
  else if constexpr (Op == U::Exp2) return std::exp(R(0.693147180559945309417232121458176568) * z);
  else if constexpr (Op == U::Expm1) return c_expm1(z);
  else if constexpr (Op == U::Log) return std::log(z);
  else if constexpr (Op == U::Log2) return std::log(z) / R(0.693147180559945309417232121458176568);
  else if constexpr (Op == U::Log10) return std::log10(z);
  else if constexpr (Op == U::Log1p) return c_log1p(z);
  else if constexpr (Op == U::Sqrt) return std::sqrt(z);
  else if constexpr (Op == U::Rsqrt) return C(R(1)) / std::sqrt(z);
  else if constexpr (Op == U::Reciprocal) return C(R(1)) / z;
  else if constexpr (Op == U::Sin) return std::sin(z);
  else if constexpr (Op == U::Cos) return std::cos(z);
  else if constexpr (Op == U::Tan) return std::tan(z);
  else if constexpr (Op == U::Asin) return std::asin(z);
  else if constexpr (Op == U::Acos) return std::acos(z);
  else if constexpr (Op == U::Atan) return std::atan(z);
  else if constexpr (Op == U::Sinh) return std::sinh(z);
  else if constexpr (Op == U::Cosh) return std::cosh(z);
  else if constexpr (Op == U::Tanh) return std::tanh(z);
  else if constexpr (Op == U::Asinh) return std::asinh(z);
  else if constexpr (Op == U::Acosh) return std::acosh(z);
  else if constexpr (Op == U::Atanh) return std::atanh(z);
  else if constexpr (Op == U::Sigmoid) return C(R(1)) / (C(R(1)) + std::exp(-z));
  else if constexpr (Op == U::Square) return z * z;
  else if constexpr (Op == U::Neg) return -z;
  else if constexpr (Op == U::Sinc) {
    if (z == C(R(0))) return C(R(1));
    const C p = R(um::kPi) * z;
    return std::sin(p) / p;
  } else return z;  // refused by the op
}

template <typename T>
inline std::complex<decltype(T().re)> to_std(T v) { return {v.re, v.im}; }
template <typename T, typename R>
inline T from_std(std::complex<R> v) { return T(v.real(), v.imag()); }

void unary_complex(UnaryOp op, const TensorImpl& out, const TensorImpl& in) {
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    if constexpr (is_cplx<T>) {
      dispatch_unary(op, [&]<UnaryOp Op>() {
        map1<T, T>(out, in, [](T v) { return from_std<T>(complex_fn<Op>(to_std(v))); }, 4096);
      });
    } else {
      LUCID_FAIL(NotImplemented, "[unary] complex kernel got " << dtype_name(in.dtype()));
    }
  });
}

void misc(MiscOp op, const TensorImpl& out, const TensorImpl& in) {
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    if constexpr (is_cplx<T>) {
      using R = decltype(T().re);
      if (op == MiscOp::Sgn) {
        map1<T, T>(out, in, [](T v) {
          if (v.re == 0 && v.im == 0) return T(R(0), R(0));
          const R a = std::abs(to_std(v));
          return T(v.re / a, v.im / a);
        });
      } else if (op == MiscOp::Abs) {
        map1<R, T>(out, in, [](T v) { return std::abs(to_std(v)); });
      } else {
        map1<R, T>(out, in, [](T v) { return std::atan2(v.im, v.re); });
      }
    } else if constexpr (std::is_floating_point_v<typename OpMath<T>::type> && !std::is_integral_v<T>) {
      LUCID_CHECK(op == MiscOp::Angle, NotImplemented, "[unary] real kernel only for angle");
      using M = typename OpMath<T>::type;
      map1<T, T>(out, in, [](T v) {
        const M m = M(v);
        if (std::isnan(m)) return v;
        return T(m < M(0) ? M(um::kPi) : M(0));
      });
    } else {
      LUCID_FAIL(NotImplemented, "[unary] misc kernel got " << dtype_name(in.dtype()));
    }
  });
}

// ---- clamp, nan_to_num, logit, round(decimals), polygamma

void clamp(const TensorImpl& out, const TensorImpl& in, const TensorImpl* lo, const TensorImpl* hi) {
  const bool has_lo = lo != nullptr, has_hi = hi != nullptr;
  const ClampLoop loop = clamp_loop_for(out.dtype());  // per ISA (arith_simd.h)
  LUCID_CHECK(loop, NotImplemented, "[clamp] dtype " << dtype_name(out.dtype()) << " is not supported");
  auto it = Iter<4>::make({&out, &in, lo ? lo : &in, hi ? hi : &in});
  parallel_for(0, it.numel, kGrainSize, [&](int64_t b, int64_t e) {
    it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) { loop(p, s, n, has_lo, has_hi); });
  });
}

// Selects, no branches (the contiguous loop vectorises).
template <typename M>
inline M nan_to_num_fn(M v, M nan, M pos, M neg) {
  constexpr M inf = std::numeric_limits<M>::infinity();
  const M r = v == inf ? pos : (v == -inf ? neg : v);
  return v != v ? nan : r;
}

void nan_to_num(const TensorImpl& out, const TensorImpl& in, double nan, double posinf, double neginf) {
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    if constexpr (is_cplx<T>) {
      using R = decltype(T().re);
      const R a = R(nan), p = R(posinf), q = R(neginf);
      map1<T, T>(out, in, [=](T v) { return T(nan_to_num_fn(v.re, a, p, q), nan_to_num_fn(v.im, a, p, q)); });
    } else if constexpr (std::is_integral_v<T>) {
      map1<T, T>(out, in, [](T v) { return v; });
    } else {
      using M = typename OpMath<T>::type;
      const M a = M(T(M(nan))), p = M(T(M(posinf))), q = M(T(M(neginf)));
      if constexpr (std::is_same_v<T, float>) {
        const auto row = row_kernels().nan_to_num_f32;
        map1_f32(out, in, [=](float* o, const float* x, int64_t n) { row(o, x, n, a, p, q); },
                 [=](float v) { return nan_to_num_fn(v, a, p, q); });
      } else {
        map1<T, T>(out, in, [=](T v) { return T(nan_to_num_fn(M(v), a, p, q)); });
      }
    }
  });
}

template <typename F>
void floating_map(const TensorImpl& out, const TensorImpl& in, const char* name, F&& make) {
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    if constexpr (is_cplx<T> || std::is_integral_v<T>) {
      LUCID_FAIL(NotImplemented, "[" << name << "] dtype " << dtype_name(in.dtype()) << " is not supported");
    } else {
      using M = typename OpMath<T>::type;
      auto f = make.template operator()<M>();
      map1<T, T>(out, in, [&](T v) { return T(f(M(v))); }, 4096);
    }
  });
}

void logit(const TensorImpl& out, const TensorImpl& in, double eps) {
  const bool clamp = eps >= 0;
  if (in.dtype() == Dtype::F32 || in.dtype() == Dtype::F64) {
    // log(x / (1 - x)): the quotients of a block into a buffer, then the vectorised per-ISA log loop
    // (the same log as lucid.log) from the buffer into out.
    dispatch_float(in.dtype(), "logit", [&]<typename T>() {
      const T lo = T(eps), hi = T(1) - T(eps);
      const UnaryLoop lg = unary_loop_for(UnaryOp::Log, in.dtype());
      auto it = Iter<2>::make({&out, &in});
      parallel_for(0, it.numel, kGrainSize, [&](int64_t b, int64_t e) {
        it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) {
          constexpr int64_t kBlock = 1024;
          alignas(64) T buf[kBlock];
          for (int64_t off = 0; off < n; off += kBlock) {
            const int64_t m = n - off < kBlock ? n - off : kBlock;
            const char* src = p[1] + off * s[1];
            for (int64_t i = 0; i < m; ++i) {
              T x = *reinterpret_cast<const T*>(src + i * s[1]);
              if (clamp) x = x < lo ? lo : (x > hi ? hi : x);
              buf[i] = x / (T(1) - x);  // x = 1: inf, whose log is inf
            }
            char* ptrs[2] = {p[0] + off * s[0], reinterpret_cast<char*>(buf)};
            const int64_t st[2] = {s[0], int64_t(sizeof(T))};
            lg(ptrs, st, m);
          }
        });
      });
    });
    return;
  }
  floating_map(out, in, "logit", [&]<typename M>() {
    const M lo = M(eps), hi = M(1) - M(eps);
    return [=](M x) {
      if (clamp) x = x < lo ? lo : (x > hi ? hi : x);
      return x == M(1) ? std::numeric_limits<M>::infinity() : std::log(x / (M(1) - x));
    };
  });
}

void round_decimals(const TensorImpl& out, const TensorImpl& in, int64_t decimals) {
  if (in.dtype() == Dtype::F32) {
    const bool neg = decimals < 0;
    const float ten = float(std::pow(10.0, double(neg ? -decimals : decimals)));
    const auto row = row_kernels().round_scaled_f32;
    map1_f32(out, in, [=](float* o, const float* x, int64_t n) { row(o, x, n, ten, neg); },
             [=](float x) { return neg ? std::nearbyint(x / ten) * ten : std::nearbyint(x * ten) / ten; });
    return;
  }
  floating_map(out, in, "round", [&]<typename M>() {
    const bool neg = decimals < 0;
    const M ten = M(std::pow(10.0, double(neg ? -decimals : decimals)));
    return [=](M x) { return neg ? std::nearbyint(x / ten) * ten : std::nearbyint(x * ten) / ten; };
  });
}

double trigamma(double x) {  // PyTorch's calc_trigamma
  double sign = +1, result = 0;
  if (x < 0.5) {
    sign = -1;
    const double s = std::sin(um::kPi * x);
    result -= (um::kPi * um::kPi) / (s * s);
    x = 1 - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += 1 / (x * x);
    x += 1;
  }
  const double ixx = 1 / (x * x);
  result += (1 + 1 / (2 * x) + ixx * (1. / 6 - ixx * (1. / 30 - ixx * (1. / 42)))) / x;
  return sign * result;
}

void polygamma(const TensorImpl& out, const TensorImpl& in, int64_t n) {
  floating_map(out, in, "polygamma", [&]<typename M>() {
    const double fact = std::exp(std::lgamma(double(n) + 1.0)) * ((n % 2) ? 1.0 : -1.0);
    return [=](M x) {
      if (n == 1) return M(trigamma(double(x)));
      return M(fact * sm::zeta(double(n + 1), double(x)));
    };
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(unary_pred_kernel, CPU, &pred)
LUCID_REGISTER_KERNEL(unary_complex_kernel, CPU, &unary_complex)
LUCID_REGISTER_KERNEL(unary_misc_kernel, CPU, &misc)
LUCID_REGISTER_KERNEL(clamp_kernel, CPU, &clamp)
LUCID_REGISTER_KERNEL(nan_to_num_kernel, CPU, &nan_to_num)
LUCID_REGISTER_KERNEL(logit_kernel, CPU, &logit)
LUCID_REGISTER_KERNEL(round_decimals_kernel, CPU, &round_decimals)
LUCID_REGISTER_KERNEL(polygamma_kernel, CPU, &polygamma)

}  // namespace lucid::cpu
