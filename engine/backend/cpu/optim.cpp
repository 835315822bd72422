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

// Adam's loop with its options as template parameters, so that the common cases have no branch in
// the loop and vectorise (the file is built without errno for sqrt). WD: 0 none, 1 L2 (added to the
// gradient), 2 decoupled (the parameter decays). maximize is a multiplication by -1 (exact).
template <typename T, int WD, bool AMS>
void adam_loop(const OptimOperands& o, const AdamArgs& a, int64_t lo, int64_t hi) {
  using M = typename OpMath<T>::type;
  T* __restrict p = operand<T>(o, 0);
  const T* __restrict g = operand<T>(o, 1);
  T* __restrict m = operand<T>(o, 2);
  T* __restrict v = operand<T>(o, 3);
  T* __restrict vm = operand<T>(o, 4);
  const double bc1 = 1 - std::pow(a.beta1, double(a.step)), bc2 = 1 - std::pow(a.beta2, double(a.step));
  const M step_size = M(a.lr / bc1), bc2_sqrt = M(std::sqrt(bc2)), eps = M(a.eps), sign = M(a.maximize ? -1 : 1);
  const M b1 = M(1 - a.beta1), b2 = M(a.beta2), ob2 = M(1 - a.beta2), wd = M(a.weight_decay);
  const M decay = M(1 - a.lr * a.weight_decay);
  const bool upper = std::abs(b1) >= M(0.5);  // lerp's second formula
  for (int64_t i = lo; i < hi; ++i) {
    M gi = M(g[i]) * sign;
    M pv = M(p[i]);
    if constexpr (WD == 1) gi += wd * pv;
    if constexpr (WD == 2) pv = M(T(pv * decay));
    const M mo = M(m[i]);
    const M mi = upper ? gi - (gi - mo) * (M(1) - b1) : mo + b1 * (gi - mo);
    const T vt = T(b2 * M(v[i]) + ob2 * gi * gi);
    const T mt = T(mi);
    m[i] = mt;
    v[i] = vt;
    M vden = M(vt);
    if constexpr (AMS) {
      vden = std::max(M(vm[i]), vden);
      vm[i] = T(vden);
    }
    const M denom = std::sqrt(vden) / bc2_sqrt + eps;
    p[i] = T(pv - step_size * M(mt) / denom);
  }
}

void adam(const OptimOperands& o, const AdamArgs& a) {
  dispatch_param(o.param().dtype(), "adam", [&]<typename T>() {
    const int wd = a.weight_decay == 0 ? 0 : (a.decoupled_weight_decay ? 2 : 1);
    const bool ams = o.t[4] != nullptr;
    auto loop = ams ? (wd == 0 ? &adam_loop<T, 0, true> : wd == 1 ? &adam_loop<T, 1, true> : &adam_loop<T, 2, true>)
                    : (wd == 0 ? &adam_loop<T, 0, false> : wd == 1 ? &adam_loop<T, 1, false> : &adam_loop<T, 2, false>);
    parallel_for(0, o.param().numel(), kGrainSize, [&](int64_t lo, int64_t hi) { loop(o, a, lo, hi); });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(sgd_kernel, CPU, &sgd)
LUCID_REGISTER_KERNEL(adam_kernel, CPU, &adam)

}  // namespace lucid::cpu
