// CPU kernels of the fused RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop updates
// (backend/kernels/optim.h): one pass per parameter, split over threads for large parameters. Each
// follows PyTorch's single-tensor path op by op, rounding through the storage type where that path
// stores an intermediate tensor (so float16/bfloat16 match too).
#include <algorithm>
#include <cmath>

#include "backend/cpu/optim_util.h"

namespace lucid::cpu {

namespace {

using namespace optim;

#define LUCID_OPTIM_INLINE __attribute__((always_inline))

// The gradient as the update reads it: maximize negates it (a multiplication by -1: exact, no branch).
template <typename M>
inline M load_grad(M g, M sign) {
  return g * sign;
}

// Runs f(i) over the parameter's elements, split over threads (f is inlined into the loop).
template <typename F>
void for_range(const OptimOperands& o, F&& f) {
  parallel_for(0, o.param().numel(), kGrainSize, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) f(i);
  });
}

// Calls f.template operator()<B...>() with the runtime flags as compile-time constants, so the loops
// built inside carry no branch on them and vectorise (sqrt and division too: this file is built
// without errno).
template <bool... Bs, typename F>
void with_flags(F&& f) {
  f.template operator()<Bs...>();
}
template <bool... Bs, typename F, typename... R>
void with_flags(F&& f, bool b, R... rest) {
  if (b) with_flags<Bs..., true>(f, rest...);
  else with_flags<Bs..., false>(f, rest...);
}

void rmsprop(const OptimOperands& o, const RmspropArgs& a) {
  dispatch_param(o.param().dtype(), "rmsprop", [&]<typename T>() {
    using M = typename OpMath<T>::type;
    const M sign = M(a.maximize ? -1 : 1);
    T *p = operand<T>(o, 0), *sa = operand<T>(o, 2), *ga = operand<T>(o, 3), *buf = operand<T>(o, 4);
    const T* g = operand<T>(o, 1);
    const M lr = M(a.lr), alpha = M(a.alpha), oa = M(1 - a.alpha), eps = M(a.eps), wd = M(a.weight_decay),
            mom = M(a.momentum);
    with_flags([&]<bool WD, bool CEN, bool MOM>() {
      for_range(o, [&](int64_t i) LUCID_OPTIM_INLINE {
        M gi = load_grad(M(g[i]), sign);
        M pv = M(p[i]);
        if constexpr (WD) gi = rnd<T>(gi + wd * pv);
        const M s = rnd<T>(rnd<T>(M(sa[i]) * alpha) + oa * gi * gi);
        sa[i] = T(s);
        M avg;
        if constexpr (CEN) {
          const M gav = rnd<T>(lerp(M(ga[i]), gi, oa));
          ga[i] = T(gav);
          avg = rnd<T>(std::sqrt(rnd<T>(s - gav * gav)));
        } else {
          avg = rnd<T>(std::sqrt(s));
        }
        avg = rnd<T>(avg + eps);
        if constexpr (MOM) {
          const M b = rnd<T>(rnd<T>(M(buf[i]) * mom) + gi / avg);
          buf[i] = T(b);
          p[i] = T(pv - lr * b);
        } else {
          p[i] = T(pv + (-lr * gi) / avg);
        }
      });
    }, a.weight_decay != 0, ga != nullptr, buf != nullptr);
  });
}

void adagrad(const OptimOperands& o, const AdagradArgs& a) {
  dispatch_param(o.param().dtype(), "adagrad", [&]<typename T>() {
    using M = typename OpMath<T>::type;
    const M sign = M(a.maximize ? -1 : 1);
    T *p = operand<T>(o, 0), *sum = operand<T>(o, 2);
    const T* g = operand<T>(o, 1);
    const M nclr = M(-a.clr), eps = M(a.eps), wd = M(a.weight_decay);
    with_flags([&]<bool WD>() {
      for_range(o, [&](int64_t i) LUCID_OPTIM_INLINE {
        M gi = load_grad(M(g[i]), sign);
        const M pv = M(p[i]);
        if constexpr (WD) gi = rnd<T>(gi + wd * pv);
        const M s = rnd<T>(M(sum[i]) + gi * gi);
        sum[i] = T(s);
        const M std_ = rnd<T>(rnd<T>(std::sqrt(s)) + eps);
        p[i] = T(pv + (nclr * gi) / std_);
      });
    }, a.weight_decay != 0);
  });
}

void adadelta(const OptimOperands& o, const AdadeltaArgs& a) {
  dispatch_param(o.param().dtype(), "adadelta", [&]<typename T>() {
    using M = typename OpMath<T>::type;
    const M sign = M(a.maximize ? -1 : 1);
    T *p = operand<T>(o, 0), *sa = operand<T>(o, 2), *ad = operand<T>(o, 3);
    const T* g = operand<T>(o, 1);
    const M lr = M(a.lr), rho = M(a.rho), orho = M(1 - a.rho), eps = M(a.eps), wd = M(a.weight_decay);
    with_flags([&]<bool WD>() {
      for_range(o, [&](int64_t i) LUCID_OPTIM_INLINE {
        M gi = load_grad(M(g[i]), sign);
        const M pv = M(p[i]);
        if constexpr (WD) gi = rnd<T>(gi + wd * pv);
        const M s = rnd<T>(rnd<T>(M(sa[i]) * rho) + orho * gi * gi);
        sa[i] = T(s);
        const M std_ = rnd<T>(std::sqrt(rnd<T>(s + eps)));
        const M adv = M(ad[i]);
        M delta = rnd<T>(std::sqrt(rnd<T>(adv + eps)));
        delta = rnd<T>(rnd<T>(delta / std_) * gi);
        ad[i] = T(rnd<T>(adv * rho) + orho * delta * delta);
        p[i] = T(pv - lr * delta);
      });
    }, a.weight_decay != 0);
  });
}

void adamax(const OptimOperands& o, const AdamaxArgs& a) {
  dispatch_param(o.param().dtype(), "adamax", [&]<typename T>() {
    using M = typename OpMath<T>::type;
    const M sign = M(a.maximize ? -1 : 1);
    T *p = operand<T>(o, 0), *m = operand<T>(o, 2), *ei = operand<T>(o, 3);
    const T* g = operand<T>(o, 1);
    const M nclr = M(-a.clr), ob1 = M(1 - a.beta1), b2 = M(a.beta2), eps = M(a.eps), wd = M(a.weight_decay);
    with_flags([&]<bool WD>() {
      for_range(o, [&](int64_t i) LUCID_OPTIM_INLINE {
        M gi = load_grad(M(g[i]), sign);
        const M pv = M(p[i]);
        if constexpr (WD) gi = rnd<T>(gi + wd * pv);
        const M mi = rnd<T>(lerp(M(m[i]), gi, ob1));
        m[i] = T(mi);
        const M inf = std::max(rnd<T>(M(ei[i]) * b2), rnd<T>(rnd<T>(std::abs(gi)) + eps));
        ei[i] = T(inf);
        p[i] = T(pv + (nclr * mi) / inf);
      });
    }, a.weight_decay != 0);
  });
}

void nadam(const OptimOperands& o, const NadamArgs& a) {
  dispatch_param(o.param().dtype(), "nadam", [&]<typename T>() {
    using M = typename OpMath<T>::type;
    const M sign = M(a.maximize ? -1 : 1);
    T *p = operand<T>(o, 0), *m = operand<T>(o, 2), *v = operand<T>(o, 3);
    const T* g = operand<T>(o, 1);
    const M ob1 = M(1 - a.beta1), b2 = M(a.beta2), ob2 = M(1 - a.beta2), eps = M(a.eps), wd = M(a.weight_decay),
            bc2 = M(a.bias_correction2), decay = M(1 - a.lr * a.weight_decay), c1 = M(a.grad_coef),
            c2 = M(a.avg_coef);
    with_flags([&]<bool WD, bool DEC>() {
      for_range(o, [&](int64_t i) LUCID_OPTIM_INLINE {
        M gi = load_grad(M(g[i]), sign);
        M pv = M(p[i]);
        if constexpr (WD) {
          if constexpr (DEC) pv = rnd<T>(pv * decay);
          else gi = rnd<T>(gi + wd * pv);
        }
        const M mi = rnd<T>(lerp(M(m[i]), gi, ob1));
        m[i] = T(mi);
        const M vi = rnd<T>(rnd<T>(M(v[i]) * b2) + ob2 * gi * gi);
        v[i] = T(vi);
        const M denom = rnd<T>(rnd<T>(std::sqrt(rnd<T>(vi / bc2))) + eps);
        pv = rnd<T>(pv + (c1 * gi) / denom);
        p[i] = T(pv + (c2 * mi) / denom);
      });
    }, a.weight_decay != 0, a.decoupled_weight_decay);
  });
}

void radam(const OptimOperands& o, const RadamArgs& a) {
  dispatch_param(o.param().dtype(), "radam", [&]<typename T>() {
    using M = typename OpMath<T>::type;
    const M sign = M(a.maximize ? -1 : 1);
    T *p = operand<T>(o, 0), *m = operand<T>(o, 2), *v = operand<T>(o, 3);
    const T* g = operand<T>(o, 1);
    const M ob1 = M(1 - a.beta1), b2 = M(a.beta2), ob2 = M(1 - a.beta2), eps = M(a.eps), wd = M(a.weight_decay),
            lr = M(a.lr), decay = M(1 - a.lr * a.weight_decay), bc1 = M(a.bias_correction1),
            bc2s = M(a.bias_correction2_sqrt), rect = M(a.rect);
    with_flags([&]<bool WD, bool DEC, bool RECT>() {
      for_range(o, [&](int64_t i) LUCID_OPTIM_INLINE {
        M gi = load_grad(M(g[i]), sign);
        M pv = M(p[i]);
        if constexpr (WD) {
          if constexpr (DEC) pv = rnd<T>(pv * decay);
          else gi = rnd<T>(gi + wd * pv);
        }
        const M mi = rnd<T>(lerp(M(m[i]), gi, ob1));
        m[i] = T(mi);
        const M vi = rnd<T>(rnd<T>(M(v[i]) * b2) + ob2 * gi * gi);
        v[i] = T(vi);
        M upd = rnd<T>(rnd<T>(mi / bc1) * lr);
        if constexpr (RECT) {
          const M adaptive = rnd<T>(rnd<T>(M(1) / rnd<T>(rnd<T>(std::sqrt(vi)) + eps)) * bc2s);  // scalar / tensor
          upd = rnd<T>(rnd<T>(upd * adaptive) * rect);
        }
        p[i] = T(pv - upd);
      });
    }, a.weight_decay != 0, a.decoupled_weight_decay, a.rectified);
  });
}

void asgd(const OptimOperands& o, const AsgdArgs& a) {
  dispatch_param(o.param().dtype(), "asgd", [&]<typename T>() {
    using M = typename OpMath<T>::type;
    const M sign = M(a.maximize ? -1 : 1);
    T *p = operand<T>(o, 0), *ax = operand<T>(o, 2);
    const T* g = operand<T>(o, 1);
    const M decay = M(1 - a.lambd * a.eta), neta = M(-a.eta), mu = M(a.mu), wd = M(a.weight_decay);
    const bool average = a.mu != 1;
    with_flags([&]<bool WD, bool AVG>() {
      for_range(o, [&](int64_t i) LUCID_OPTIM_INLINE {
        M gi = load_grad(M(g[i]), sign);
        M pv = M(p[i]);
        if constexpr (WD) gi = rnd<T>(gi + wd * pv);
        pv = rnd<T>(pv * decay);
        pv = rnd<T>(pv + neta * gi);
        p[i] = T(pv);
        if constexpr (AVG) {
          const M axv = M(ax[i]);
          ax[i] = T(axv + rnd<T>(rnd<T>(pv - axv) * mu));
        } else {
          ax[i] = T(pv);
        }
      });
    }, a.weight_decay != 0, average);
  });
}

void rprop(const OptimOperands& o, const RpropArgs& a) {
  dispatch_param(o.param().dtype(), "rprop", [&]<typename T>() {
    using M = typename OpMath<T>::type;
    const M sign = M(a.maximize ? -1 : 1);
    T *p = operand<T>(o, 0), *prev = operand<T>(o, 2), *ss = operand<T>(o, 3);
    const T* g = operand<T>(o, 1);
    const M etaminus = M(T(a.etaminus)), etaplus = M(T(a.etaplus)), lo_ = M(T(a.step_size_min)),
            hi_ = M(T(a.step_size_max));
    for_range(o, [&](int64_t i) LUCID_OPTIM_INLINE {
      M gi = load_grad(M(g[i]), sign);
      const M s = rnd<T>(gi * M(prev[i]));
      const M factor = s > 0 ? etaplus : (s < 0 ? etaminus : M(1));
      M size = rnd<T>(M(ss[i]) * factor);
      size = std::min(std::max(size, lo_), hi_);  // clamp_(min, max)
      ss[i] = T(size);
      if (factor == etaminus) gi = M(0);
      const M dir = M((gi > 0) - (gi < 0));
      p[i] = T(M(p[i]) - dir * size);
      prev[i] = T(gi);
    });
  });
}

void sparse_adam(const OptimOperands& o, const SparseAdamArgs& a) {
  dispatch_param(o.param().dtype(), "sparse_adam", [&]<typename T>() {
    using M = typename OpMath<T>::type;
    const M sign = M(a.maximize ? -1 : 1);
    T *p = operand<T>(o, 0), *m = operand<T>(o, 2), *v = operand<T>(o, 3);
    const T* g = operand<T>(o, 1);
    const M ob1 = M(1 - a.beta1), ob2 = M(1 - a.beta2), eps = M(a.eps), nss = M(-a.step_size);
    const int64_t n = o.param().numel();
    const int64_t rows = o.param().dim() == 0 ? 1 : o.param().shape()[0];
    const int64_t len = rows ? n / rows : 0;
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, len)), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const int64_t b = r * len, e = b + len;
        bool present = false;
        for (int64_t i = b; i < e && !present; ++i) present = M(g[i]) != M(0);
        if (!present) continue;
        for (int64_t i = b; i < e; ++i) {
          const M gi = M(g[i]) * sign;
          // PyTorch's sparse path: old + (1 - b) * (new - old), on the rows present
          const M mv = M(m[i]), vv = M(v[i]);
          const M mi = rnd<T>(mv + rnd<T>((gi - mv) * ob1));
          const M vi = rnd<T>(vv + rnd<T>((rnd<T>(gi * gi) - vv) * ob2));
          m[i] = T(mi);
          v[i] = T(vi);
          const M denom = rnd<T>(rnd<T>(std::sqrt(vi)) + eps);
          p[i] = T(M(p[i]) + rnd<T>(nss * rnd<T>(mi / denom)));
        }
      }
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(sparse_adam_kernel, CPU, &sparse_adam)
LUCID_REGISTER_KERNEL(rmsprop_kernel, CPU, &rmsprop)
LUCID_REGISTER_KERNEL(adagrad_kernel, CPU, &adagrad)
LUCID_REGISTER_KERNEL(adadelta_kernel, CPU, &adadelta)
LUCID_REGISTER_KERNEL(adamax_kernel, CPU, &adamax)
LUCID_REGISTER_KERNEL(nadam_kernel, CPU, &nadam)
LUCID_REGISTER_KERNEL(radam_kernel, CPU, &radam)
LUCID_REGISTER_KERNEL(asgd_kernel, CPU, &asgd)
LUCID_REGISTER_KERNEL(rprop_kernel, CPU, &rprop)

}  // namespace lucid::cpu
