// CPU kernels of the fused SGD and Adam(W) updates (backend/kernels/optim.h): one pass per parameter,
// split over threads for large parameters. The arithmetic follows PyTorch's single-tensor paths.
#include <algorithm>
#include <cmath>

#include "backend/cpu/optim_util.h"

namespace lucid::cpu {

namespace {

using namespace optim;

void sgd(const OptimOperands& o, const SgdArgs& a) {
  dispatch_param(o.param().dtype(), "sgd", [&]<typename T>() {
    using M = typename OpMath<T>::type;
    T* p = operand<T>(o, 0);
    const T* g = operand<T>(o, 1);
    T* b = operand<T>(o, 2);
    const M lr = M(a.lr), mom = M(a.momentum), damp = M(1 - a.dampening), wd = M(a.weight_decay);
    parallel_for(0, o.param().numel(), kGrainSize, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        M d = M(g[i]);
        if (a.maximize) d = -d;
        const M pv = M(p[i]);
        if (a.weight_decay != 0) d += wd * pv;
        if (b) {
          M bv = a.first_step ? d : mom * M(b[i]) + damp * d;
          b[i] = T(bv);
          bv = M(b[i]);
          d = a.nesterov ? d + mom * bv : bv;
        }
        p[i] = T(pv - lr * d);
      }
    });
  });
}

void adam(const OptimOperands& o, const AdamArgs& a) {
  dispatch_param(o.param().dtype(), "adam", [&]<typename T>() {
    using M = typename OpMath<T>::type;
    T* p = operand<T>(o, 0);
    const T* g = operand<T>(o, 1);
    T* m = operand<T>(o, 2);
    T* v = operand<T>(o, 3);
    T* vm = operand<T>(o, 4);
    const double bc1 = 1 - std::pow(a.beta1, double(a.step)), bc2 = 1 - std::pow(a.beta2, double(a.step));
    const M step_size = M(a.lr / bc1), bc2_sqrt = M(std::sqrt(bc2)), eps = M(a.eps);
    const M b1 = M(1 - a.beta1), b2 = M(a.beta2), ob2 = M(1 - a.beta2), wd = M(a.weight_decay);
    const M decay = M(1 - a.lr * a.weight_decay);
    parallel_for(0, o.param().numel(), kGrainSize, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        M gi = M(g[i]);
        if (a.maximize) gi = -gi;
        M pv = M(p[i]);
        if (a.weight_decay != 0) {
          if (a.decoupled_weight_decay) pv = M(T(pv * decay));
          else gi += wd * pv;
        }
        const M mi = lerp(M(m[i]), gi, b1);
        const M vi = b2 * M(v[i]) + ob2 * gi * gi;
        m[i] = T(mi);
        v[i] = T(vi);
        M vden = M(v[i]);
        if (vm) {
          vden = std::max(M(vm[i]), vden);
          vm[i] = T(vden);
        }
        const M denom = std::sqrt(vden) / bc2_sqrt + eps;
        p[i] = T(pv - step_size * M(m[i]) / denom);
      }
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(sgd_kernel, CPU, &sgd)
LUCID_REGISTER_KERNEL(adam_kernel, CPU, &adam)

}  // namespace lucid::cpu
