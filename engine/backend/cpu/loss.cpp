// CPU kernels of the pointwise losses (backend/kernels/loss.h): float32 and float64. Each loss
// defines its value and derivatives D_ij (i + j <= 2) once; one strided loop (contiguous fast path,
// parallel_for) maps them over the tensors.
#include <cmath>

#include "backend/common/iter.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/loss.h"

namespace lucid::cpu {

namespace {

template <typename T>
inline T sgn(T d) { return T((d > T(0)) - (d < T(0))); }

template <typename T>
inline T sigm(T x) { return x >= T(0) ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x)); }

// D_ij L(x, t): the (i, j)-th partial derivative (i in x, j in t); I = J = 0 is the loss itself.
template <LossOp OP, int I, int J, typename T>
inline T D(T x, T t, T a) {
  using L = LossOp;
  constexpr int K = I + J;
  constexpr T s = (J % 2) ? T(-1) : T(1);  // d/dt = -d/dx for functions of x - t
  if constexpr (OP == L::Mse) {
    const T d = x - t;
    if constexpr (K == 0) return d * d;
    else if constexpr (K == 1) return s * T(2) * d;
    else return s * T(2);
  } else if constexpr (OP == L::L1) {
    const T d = x - t;
    if constexpr (K == 0) return std::abs(d);
    else if constexpr (K == 1) return s * sgn(d);
    else return T(0);
  } else if constexpr (OP == L::SmoothL1) {
    const T d = x - t, z = std::abs(d);
    if (a == T(0)) {  // the L1 loss
      if constexpr (K == 0) return z;
      else if constexpr (K == 1) return s * sgn(d);
      else return T(0);
    }
    if constexpr (K == 0) return z < a ? T(0.5) * d * d / a : z - T(0.5) * a;
    else if constexpr (K == 1) return s * (d < -a ? T(-1) : (d > a ? T(1) : d / a));
    else return (d < -a || d > a) ? T(0) : s / a;
  } else if constexpr (OP == L::Huber) {
    const T d = x - t, z = std::abs(d);
    if constexpr (K == 0) return z < a ? T(0.5) * d * d : a * (z - T(0.5) * a);
    else if constexpr (K == 1) return s * (d < -a ? -a : (d > a ? a : d));
    else return (d < -a || d > a) ? T(0) : s;
  } else if constexpr (OP == L::Bce) {
    constexpr T eps = T(1e-12);
    if constexpr (I == 0 && J == 0) {
      const T lx = std::max(std::log(x), T(-100)), l1x = std::max(std::log1p(-x), T(-100));
      return -(t * lx + (T(1) - t) * l1x);
    } else if constexpr (I == 1 && J == 0) {
      return (x - t) / std::max((T(1) - x) * x, eps);
    } else if constexpr (I == 0 && J == 1) {
      return std::max(std::log1p(-x), T(-100)) - std::max(std::log(x), T(-100));
    } else if constexpr (I == 2 && J == 0) {
      const T v = std::max((T(1) - x) * x, eps);
      return (x * x - T(2) * x * t + t) / (v * v);
    } else if constexpr (I == 1 && J == 1) {
      return T(-1) / std::max((T(1) - x) * x, eps);
    } else {
      return T(0);
    }
  } else if constexpr (OP == L::SoftMargin) {  // softplus(-t x); sv = sigmoid(-t x)
    const T u = -t * x;
    if constexpr (I == 0 && J == 0) return (u > T(0) ? u : T(0)) + std::log1p(std::exp(-std::abs(u)));
    const T sv = sigm(u);
    if constexpr (I == 1 && J == 0) return -t * sv;
    else if constexpr (I == 0 && J == 1) return -x * sv;
    else if constexpr (I == 2 && J == 0) return t * t * sv * (T(1) - sv);
    else if constexpr (I == 1 && J == 1) return -sv + t * x * sv * (T(1) - sv);
    else return x * x * sv * (T(1) - sv);
  } else {  // BceWithLogits
    if constexpr (I == 0 && J == 0) {
      const T m = x < T(0) ? -x : T(0);
      return (T(1) - t) * x + m + std::log1p(std::exp(-std::abs(x)));
    } else if constexpr (I == 1 && J == 0) {
      return sigm(x) - t;
    } else if constexpr (I == 0 && J == 1) {
      return -x;
    } else if constexpr (I == 2 && J == 0) {
      const T sv = sigm(x);
      return sv * (T(1) - sv);
    } else if constexpr (I == 1 && J == 1) {
      return T(-1);
    } else {
      return T(0);
    }
  }
}

template <typename T, typename F>
void map4(const TensorImpl& out, const TensorImpl& g, const TensorImpl& x, const TensorImpl& t, F f) {
  const Iter<4> it = Iter<4>::make({&out, &g, &x, &t});
  if (it.numel == 0) return;
  if (it.contiguous) {
    T* o = reinterpret_cast<T*>(it.base[0]);
    const T* gp = reinterpret_cast<const T*>(it.base[1]);
    const T* xp = reinterpret_cast<const T*>(it.base[2]);
    const T* tp = reinterpret_cast<const T*>(it.base[3]);
    parallel_for(0, it.numel, kGrainSize, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) o[i] = f(gp[i], xp[i], tp[i]);
    });
    return;
  }
  parallel_for(0, it.numel, kGrainSize, [&](int64_t lo, int64_t hi) {
    it.for_range(lo, hi, [&](char** p, const int64_t* s, int64_t n) {
      for (int64_t k = 0; k < n; ++k)
        *reinterpret_cast<T*>(p[0] + k * s[0]) = f(*reinterpret_cast<const T*>(p[1] + k * s[1]),
                                                   *reinterpret_cast<const T*>(p[2] + k * s[2]),
                                                   *reinterpret_cast<const T*>(p[3] + k * s[3]));
    });
  });
}

template <LossOp OP, typename T>
void run_op(const LossParams& p, int i, int j, const TensorImpl& out, const TensorImpl* g, const TensorImpl& x,
            const TensorImpl& t) {
  const T a = T(p.a);
  const TensorImpl& gg = g ? *g : x;
  auto go = [&](auto fn) { map4<T>(out, gg, x, t, fn); };
  if (i == 0 && j == 0) go([a](T, T xv, T tv) { return D<OP, 0, 0, T>(xv, tv, a); });
  else if (i == 1 && j == 0) go([a](T gv, T xv, T tv) { return gv * D<OP, 1, 0, T>(xv, tv, a); });
  else if (i == 0 && j == 1) go([a](T gv, T xv, T tv) { return gv * D<OP, 0, 1, T>(xv, tv, a); });
  else if (i == 2 && j == 0) go([a](T gv, T xv, T tv) { return gv * D<OP, 2, 0, T>(xv, tv, a); });
  else if (i == 1 && j == 1) go([a](T gv, T xv, T tv) { return gv * D<OP, 1, 1, T>(xv, tv, a); });
  else go([a](T gv, T xv, T tv) { return gv * D<OP, 0, 2, T>(xv, tv, a); });
}

template <typename T>
void run(LossOp op, const LossParams& p, int i, int j, const TensorImpl& out, const TensorImpl* g, const TensorImpl& x,
         const TensorImpl& t) {
  switch (op) {
    case LossOp::Mse: return run_op<LossOp::Mse, T>(p, i, j, out, g, x, t);
    case LossOp::L1: return run_op<LossOp::L1, T>(p, i, j, out, g, x, t);
    case LossOp::SmoothL1: return run_op<LossOp::SmoothL1, T>(p, i, j, out, g, x, t);
    case LossOp::Huber: return run_op<LossOp::Huber, T>(p, i, j, out, g, x, t);
    case LossOp::Bce: return run_op<LossOp::Bce, T>(p, i, j, out, g, x, t);
    case LossOp::BceWithLogits: return run_op<LossOp::BceWithLogits, T>(p, i, j, out, g, x, t);
    case LossOp::SoftMargin: return run_op<LossOp::SoftMargin, T>(p, i, j, out, g, x, t);
  }
}

void loss(LossOp op, const LossParams& p, int i, int j, const TensorImpl& out, const TensorImpl* g,
          const TensorImpl& x, const TensorImpl& t) {
  if (x.dtype() == Dtype::F64) run<double>(op, p, i, j, out, g, x, t);
  else run<float>(op, p, i, j, out, g, x, t);
}

}  // namespace

LUCID_REGISTER_KERNEL(loss_kernel, CPU, &loss)

}  // namespace lucid::cpu
