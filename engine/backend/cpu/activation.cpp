// CPU kernels of the activation functions (backend/kernels/activation.h): float32 and float64.
// Each activation defines its value and first and second derivatives once (fwd, d1, d2); one
// strided loop (contiguous fast path, parallel_for) maps them over a tensor.
#include <cmath>
#include <cstring>
#include <limits>

#include "backend/common/iter.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/vec_rows.h"
#include "backend/cpu/vmath.h"
#include "backend/kernels/activation.h"

namespace lucid::cpu {

namespace {

template <typename T>
struct Prm {
  T a, b, c;
};

constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kBeta = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kKappa = 0.044715;

// ---- math: float32 uses branch-free versions the compiler vectorises (Cephes-style exp and tanh,
// an erfc with small relative error); float64 uses libm.

using namespace vmath;

// log1p(u) for u in [0, 1] (Cephes logf's polynomial on 1 + u, halved above sqrt 2: f is exact).
inline float vlog1p01(float u) {
  const bool big = u > 0.41421356237f;
  const float f = big ? (u - 1.0f) * 0.5f : u;
  const float e = big ? 1.0f : 0.0f;
  const float z = f * f;
  float y = 7.0376836292e-2f * f - 1.1514610310e-1f;
  y = y * f + 1.1676998740e-1f;
  y = y * f - 1.2420140846e-1f;
  y = y * f + 1.4249322787e-1f;
  y = y * f - 1.6668057665e-1f;
  y = y * f + 2.0000714765e-1f;
  y = y * f - 2.4999993993e-1f;
  y = y * f + 3.3333331174e-1f;
  y = y * f * z;
  y += e * -2.12194440e-4f;
  y += -0.5f * z;
  return (f + y) + e * 0.693359375f;
}

// The standard normal CDF Phi(x) = erfc(-x / sqrt 2) / 2 without cancellation in the lower tail.
// float: Numerical Recipes' erfc (fractional error below 1.2e-7 everywhere) on the branch-free exp.
inline float vphi(float x) {
  const float z = std::abs(x) * 0.70710678118654752f;
  const float t = 1.0f / (0.5f * z + 1.0f);
  const float q =
      -z * z - 1.26551223f +
      t * (1.00002368f +
           t * (0.37409196f +
                t * (0.09678418f +
                     t * (-0.18628806f +
                          t * (0.27886807f + t * (-1.13520398f + t * (1.48851587f + t * (-0.82215223f + t * 0.17087277f))))))));
  const float half_erfc = 0.5f * t * vexp(q);
  return x < 0.0f ? half_erfc : 1.0f - half_erfc;
}

template <typename T>
inline T m_phi(T x) {
  if constexpr (std::is_same_v<T, float>) return vphi(x);
  else return T(0.5) * std::erfc(-x * T(kSqrt1_2));
}

// log(1 + exp(-|v|)), the smooth part of softplus and log-sigmoid.
template <typename T>
inline T log1p_exp_neg_abs(T v) {
  if constexpr (std::is_same_v<T, float>) return vlog1p01(vexp(-std::abs(v)));
  else return std::log1p(std::exp(-std::abs(v)));
}

template <typename T>
inline T m_exp(T x) { if constexpr (std::is_same_v<T, float>) return vexp(x); else return std::exp(x); }
template <typename T>
inline T m_expm1(T x) { if constexpr (std::is_same_v<T, float>) return vexpm1(x); else return std::expm1(x); }
template <typename T>
inline T m_tanh(T x) { if constexpr (std::is_same_v<T, float>) return vtanh(x); else return std::tanh(x); }

template <typename T>
inline T sigm(T x) { return T(1) / (T(1) + m_exp(-x)); }

// tanh(softplus(x)) = (e^2x + 2e^x) / (e^2x + 2e^x + 2), 1 where that is 1 to rounding.
template <typename T>
inline T tanh_softplus(T x) {
  const T n = m_exp(x < T(15) ? x : T(15));
  const T q = n * n + T(2) * n;
  const T v = q / (q + T(2));
  if constexpr (std::is_same_v<T, float>) return x < T(15) ? v : T(1);
  else return x < T(15) ? v : std::tanh(std::log1p(std::exp(x)));
}


template <ActOp OP, typename T>
inline T fwd(T x, const Prm<T>& p) {
  using A = ActOp;
  if constexpr (OP == A::LeakyRelu) return x > T(0) ? x : x * p.a;
  else if constexpr (OP == A::Elu) return x <= T(0) ? m_expm1(x * p.c) * p.a * p.b : x * p.b;
  else if constexpr (OP == A::Gelu) return x * m_phi(x);
  else if constexpr (OP == A::GeluTanh) {
    const T inner = T(kBeta) * (x + T(kKappa) * x * x * x);
    return T(0.5) * x * (T(1) + m_tanh(inner));
  } else if constexpr (OP == A::Silu) return x / (T(1) + m_exp(-x));
  else if constexpr (OP == A::Mish) return x * tanh_softplus(x);
  else if constexpr (OP == A::Softplus) {
    const T v = x * p.a;
    return v > p.b ? x : ((v > T(0) ? v : T(0)) + log1p_exp_neg_abs(v)) / p.a;
  }
  else if constexpr (OP == A::Softsign) return x / (T(1) + std::abs(x));
  else if constexpr (OP == A::Softshrink) return x > p.a ? x - p.a : (x < -p.a ? x + p.a : T(0) * x);
  else if constexpr (OP == A::Hardshrink) return (x >= -p.a && x <= p.a) ? T(0) : x;
  else if constexpr (OP == A::Tanhshrink) return x - m_tanh(x);
  else if constexpr (OP == A::Hardtanh) return x < p.a ? p.a : (x > p.b ? p.b : x);
  else if constexpr (OP == A::Hardsigmoid) {
    const T v = x + T(3);
    return (v < T(0) ? T(0) : (v > T(6) ? T(6) : v)) / T(6);
  } else if constexpr (OP == A::Hardswish) {
    const T v = x + T(3);
    return x * (v < T(0) ? T(0) : (v > T(6) ? T(6) : v)) / T(6);
  } else if constexpr (OP == A::LogSigmoid) return (x < T(0) ? x : T(0)) - log1p_exp_neg_abs(x);
  else if constexpr (OP == A::Threshold) return x <= p.a ? p.b : x;
  else return x;
}

template <ActOp OP, typename T>
inline T d1(T x, const Prm<T>& p) {
  using A = ActOp;
  if constexpr (OP == A::LeakyRelu) return x > T(0) ? T(1) : p.a;
  else if constexpr (OP == A::Elu) return x <= T(0) ? p.c * p.a * p.b * m_exp(x * p.c) : p.b;
  else if constexpr (OP == A::Gelu) {
    const T cdf = m_phi(x);
    const T pdf = m_exp(T(-0.5) * x * x) * T(kInvSqrt2Pi);
    return cdf + x * pdf;
  } else if constexpr (OP == A::GeluTanh) {
    const T x2 = x * x;
    const T t = m_tanh(T(kBeta) * (x + T(kKappa) * x2 * x));
    return T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * T(kBeta) * (T(1) + T(3 * kKappa) * x2);
  } else if constexpr (OP == A::Silu) {
    const T s = sigm(x);
    return s * (T(1) + x * (T(1) - s));
  } else if constexpr (OP == A::Mish) {
    const T s = sigm(x), t = tanh_softplus(x);
    return t + x * s * (T(1) - t * t);
  } else if constexpr (OP == A::Softplus) {
    if (x * p.a > p.b) return T(1);
    const T z = m_exp(x * p.a);
    return z / (z + T(1));
  } else if constexpr (OP == A::Softsign) {
    const T d = T(1) + std::abs(x);
    return T(1) / (d * d);
  } else if constexpr (OP == A::Softshrink || OP == A::Hardshrink) return (x >= -p.a && x <= p.a) ? T(0) : T(1);
  else if constexpr (OP == A::Tanhshrink) {
    const T t = m_tanh(x);
    return t * t;
  } else if constexpr (OP == A::Hardtanh) return (x <= p.a || x >= p.b) ? T(0) : T(1);
  else if constexpr (OP == A::Hardsigmoid) return (x > T(-3) && x < T(3)) ? T(1.0f / 6.0f) : T(0);  // PyTorch's float constant
  else if constexpr (OP == A::Hardswish) return x < T(-3) ? T(0) : (x <= T(3) ? x / T(3) + T(0.5) : T(1));
  else if constexpr (OP == A::LogSigmoid) {
    const T z = m_exp(-std::abs(x));
    return x < T(0) ? T(1) / (T(1) + z) : z / (T(1) + z);
  } else if constexpr (OP == A::Threshold) return x <= p.a ? T(0) : T(1);
  else return T(1);
}

template <ActOp OP, typename T>
inline T d2(T x, const Prm<T>& p) {
  using A = ActOp;
  if constexpr (OP == A::Elu) return x <= T(0) ? p.c * p.c * p.a * p.b * m_exp(x * p.c) : T(0);
  else if constexpr (OP == A::Gelu) return m_exp(T(-0.5) * x * x) * T(kInvSqrt2Pi) * (T(2) - x * x);
  else if constexpr (OP == A::GeluTanh) {
    const T x2 = x * x;
    const T t = m_tanh(T(kBeta) * (x + T(kKappa) * x2 * x));
    const T u1 = T(kBeta) * (T(1) + T(3 * kKappa) * x2), u2 = T(6 * kBeta * kKappa) * x;
    return (T(1) - t * t) * (u1 + T(0.5) * x * (u2 - T(2) * t * u1 * u1));
  } else if constexpr (OP == A::Silu) {
    const T s = sigm(x);
    return s * (T(1) - s) * (T(2) + x * (T(1) - T(2) * s));
  } else if constexpr (OP == A::Mish) {
    const T s = sigm(x), t = tanh_softplus(x);
    return (T(1) - t * t) * (T(2) * s + x * s * (T(1) - s) - T(2) * x * t * s * s);
  } else if constexpr (OP == A::Softplus) {
    if (x * p.a > p.b) return T(0);
    const T s = sigm(x * p.a);
    return p.a * s * (T(1) - s);
  } else if constexpr (OP == A::Softsign) {
    const T d = T(1) + std::abs(x);
    return (x > T(0) ? T(-2) : (x < T(0) ? T(2) : T(0))) / (d * d * d);
  } else if constexpr (OP == A::Tanhshrink) {
    const T t = m_tanh(x);
    return T(2) * t * (T(1) - t * t);
  } else if constexpr (OP == A::Hardswish) return (x > T(-3) && x < T(3)) ? T(1) / T(3) : T(0);
  else if constexpr (OP == A::LogSigmoid) {
    const T s = sigm(x);
    return -s * (T(1) - s);
  } else return T(0);  // piecewise linear: LeakyRelu, shrinks, Hardtanh, Hardsigmoid, Threshold
}

// Per-ISA clones (AVX-512, AVX2, baseline) picked at load time; flatten inlines the math into each.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LUCID_ACT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), flatten))
#else
#define LUCID_ACT_CLONES __attribute__((flatten))
#endif

template <typename T, typename F>
LUCID_ACT_CLONES void contig_unary(T* __restrict o, const T* __restrict x, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
}
template <typename T, typename F>
LUCID_ACT_CLONES void contig_unary_inplace(T* o, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(o[i]);
}
template <typename T, typename F>
LUCID_ACT_CLONES void contig_binary(T* __restrict o, const T* __restrict g, const T* __restrict x, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(g[i], x[i]);
}

template <typename T, typename F>
LUCID_ACT_CLONES void contig_binary_bcast(T* __restrict o, T g, const T* __restrict x, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(g, x[i]);
}

template <typename T, typename F>
void map_unary(const TensorImpl& out, const TensorImpl& x, F f) {
  const Iter<2> it = Iter<2>::make({&out, &x});
  if (it.numel == 0) return;
  if (it.contiguous) {
    T* o = reinterpret_cast<T*>(it.base[0]);
    const T* xp = reinterpret_cast<const T*>(it.base[1]);
    parallel_for(0, it.numel, kGrainSize, [&](int64_t lo, int64_t hi) {
      if (o == xp) contig_unary_inplace<T>(o + lo, hi - lo, f);
      else contig_unary<T>(o + lo, xp + lo, hi - lo, f);
    });
    return;
  }
  parallel_for(0, it.numel, kGrainSize, [&](int64_t lo, int64_t hi) {
    it.for_range(lo, hi, [&](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T) && s[1] == sizeof(T) && p[0] != p[1]) {
        contig_unary<T>(reinterpret_cast<T*>(p[0]), reinterpret_cast<const T*>(p[1]), n, f);
        return;
      }
      for (int64_t k = 0; k < n; ++k)
        *reinterpret_cast<T*>(p[0] + k * s[0]) = f(*reinterpret_cast<const T*>(p[1] + k * s[1]));
    });
  });
}

template <typename T, typename F>
void map_binary(const TensorImpl& out, const TensorImpl& g, const TensorImpl& x, F f) {
  const Iter<3> it = Iter<3>::make({&out, &g, &x});
  if (it.numel == 0) return;
  if (it.contiguous) {
    T* o = reinterpret_cast<T*>(it.base[0]);
    const T* gp = reinterpret_cast<const T*>(it.base[1]);
    const T* xp = reinterpret_cast<const T*>(it.base[2]);
    parallel_for(0, it.numel, kGrainSize, [&](int64_t lo, int64_t hi) {
      if (o == gp || o == xp) {
        for (int64_t i = lo; i < hi; ++i) o[i] = f(gp[i], xp[i]);
      } else {
        contig_binary<T>(o + lo, gp + lo, xp + lo, hi - lo, f);
      }
    });
    return;
  }
  parallel_for(0, it.numel, kGrainSize, [&](int64_t lo, int64_t hi) {
    it.for_range(lo, hi, [&](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T) && s[2] == sizeof(T) && p[0] != p[1] && p[0] != p[2]) {
        if (s[1] == sizeof(T)) {
          contig_binary<T>(reinterpret_cast<T*>(p[0]), reinterpret_cast<const T*>(p[1]),
                           reinterpret_cast<const T*>(p[2]), n, f);
          return;
        }
        if (s[1] == 0) {  // a broadcast gradient (the backward of a sum)
          contig_binary_bcast<T>(reinterpret_cast<T*>(p[0]), *reinterpret_cast<const T*>(p[1]),
                                 reinterpret_cast<const T*>(p[2]), n, f);
          return;
        }
      }
      for (int64_t k = 0; k < n; ++k)
        *reinterpret_cast<T*>(p[0] + k * s[0]) = f(*reinterpret_cast<const T*>(p[1] + k * s[1]),
                                                   *reinterpret_cast<const T*>(p[2] + k * s[2]));
    });
  });
}

// Calls f.template operator()<OP>() for the runtime op.
template <typename F>
void dispatch_op(ActOp op, F&& f) {
  using A = ActOp;
  switch (op) {
    case A::LeakyRelu: f.template operator()<A::LeakyRelu>(); break;
    case A::Elu: f.template operator()<A::Elu>(); break;
    case A::Gelu: f.template operator()<A::Gelu>(); break;
    case A::GeluTanh: f.template operator()<A::GeluTanh>(); break;
    case A::Silu: f.template operator()<A::Silu>(); break;
    case A::Mish: f.template operator()<A::Mish>(); break;
    case A::Softplus: f.template operator()<A::Softplus>(); break;
    case A::Softsign: f.template operator()<A::Softsign>(); break;
    case A::Softshrink: f.template operator()<A::Softshrink>(); break;
    case A::Hardshrink: f.template operator()<A::Hardshrink>(); break;
    case A::Tanhshrink: f.template operator()<A::Tanhshrink>(); break;
    case A::Hardtanh: f.template operator()<A::Hardtanh>(); break;
    case A::Hardsigmoid: f.template operator()<A::Hardsigmoid>(); break;
    case A::Hardswish: f.template operator()<A::Hardswish>(); break;
    case A::LogSigmoid: f.template operator()<A::LogSigmoid>(); break;
    case A::Threshold: f.template operator()<A::Threshold>(); break;
  }
}

template <typename F>
void dispatch_float(Dtype d, F&& f) {
  if (d == Dtype::F32) f.template operator()<float>();
  else if (d == Dtype::F64) f.template operator()<double>();
  else LUCID_FAIL(NotImplemented, "[activation] supports float32 and float64 tensors, got " << dtype_name(d));
}

void activation(ActOp op, const ActParams& ap, const TensorImpl& out, const TensorImpl& x) {
  dispatch_float(x.dtype(), [&]<typename T>() {
    const Prm<T> p{T(ap.a), T(ap.b), T(ap.c)};
    if constexpr (std::is_same_v<T, float>) {  // gelu and silu: the per-ISA vector loops (vec_rows.h)
      if (op == ActOp::Gelu || op == ActOp::Silu) {
        const Iter<2> it = Iter<2>::make({&out, &x});
        if (it.contiguous && it.numel > 0) {
          const auto k = op == ActOp::Gelu ? row_kernels().gelu_f32 : row_kernels().silu_f32;
          float* o = reinterpret_cast<float*>(it.base[0]);
          const float* xp = reinterpret_cast<const float*>(it.base[1]);
          parallel_for(0, it.numel, kGrainSize, [&](int64_t lo, int64_t hi) { k(o + lo, xp + lo, hi - lo); });
          return;
        }
      }
    }
    dispatch_op(op, [&]<ActOp OP>() { map_unary<T>(out, x, [p](T v) { return fwd<OP, T>(v, p); }); });
  });
}

// The first derivative of the erf gelu in float32 on the per-ISA vector loop (vec_rows.h) when out
// and x are dense and alike and g is too or is one broadcast value (the backward of a sum).
bool gelu_backward_rows(const TensorImpl& out, const TensorImpl& g, const TensorImpl& x) {
  if (!out.is_contiguous() || !x.is_contiguous() || out.shape() != x.shape() || x.numel() == 0) return false;
  int64_t gs = 1;
  if (!(g.is_contiguous() && g.shape() == x.shape())) {
    for (int64_t st : g.strides())
      if (st != 0) return false;
    gs = 0;
  }
  const auto k = row_kernels().gelu_backward_f32;
  float* o = out.data<float>();
  const float* gp = g.data<float>();
  const float* xp = x.data<float>();
  parallel_for(0, x.numel(), kGrainSize, [&](int64_t lo, int64_t hi) { k(o + lo, gp + lo * gs, gs, xp + lo, hi - lo); });
  return true;
}

void activation_backward(ActOp op, const ActParams& ap, int order, const TensorImpl& out, const TensorImpl& g,
                         const TensorImpl& x) {
  LUCID_CHECK(order == 1 || order == 2, NotImplemented,
              "[activation_backward] derivatives of order " << order << " are not implemented");
  dispatch_float(x.dtype(), [&]<typename T>() {
    const Prm<T> p{T(ap.a), T(ap.b), T(ap.c)};
    dispatch_op(op, [&]<ActOp OP>() {
      if constexpr (OP == ActOp::Threshold) {  // a select, as torch's threshold_backward (0 even where g is inf/NaN)
        if (order == 1) {
          map_binary<T>(out, g, x, [p](T gv, T v) { return v <= p.a ? T(0) : gv; });
          return;
        }
      }
      if constexpr (OP == ActOp::Gelu && std::is_same_v<T, float>) {
        if (order == 1 && gelu_backward_rows(out, g, x)) return;
      }
      if (order == 1) map_binary<T>(out, g, x, [p](T gv, T v) { return gv * d1<OP, T>(v, p); });
      else map_binary<T>(out, g, x, [p](T gv, T v) { return gv * d2<OP, T>(v, p); });
    });
  });
}

void rrelu(const TensorImpl& out, const TensorImpl& noise, const TensorImpl& x) {
  dispatch_float(x.dtype(), [&]<typename T>() {
    const Iter<3> it = Iter<3>::make({&out, &noise, &x});
    parallel_for(0, it.numel, kGrainSize, [&](int64_t lo, int64_t hi) {
      it.for_range(lo, hi, [&](char** p, const int64_t* s, int64_t n) {
        for (int64_t k = 0; k < n; ++k) {
          T& r = *reinterpret_cast<T*>(p[1] + k * s[1]);
          const T v = *reinterpret_cast<const T*>(p[2] + k * s[2]);
          if (v > T(0)) r = T(1);
          *reinterpret_cast<T*>(p[0] + k * s[0]) = v * r;
        }
      });
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(activation_kernel, CPU, &activation)
LUCID_REGISTER_KERNEL(activation_backward_kernel, CPU, &activation_backward)
LUCID_REGISTER_KERNEL(rrelu_kernel, CPU, &rrelu)

}  // namespace lucid::cpu
