// CPU random fills (mirrors cuda/random.cu); both draw through common/philox.h.
#include <cmath>

#include "backend/common/philox.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/random.h"

namespace lucid::cpu {

namespace {

template <typename T>
void fill_random(T* out, int64_t n, const RandomParams& p) {
  parallel_for(0, n, 8192, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      double u1, u2;
      philox_uniform2(p.seed, p.offset, uint64_t(i), &u1, &u2);
      double v;
      switch (p.dist) {
        case RandomDist::Uniform: v = p.a + (p.b - p.a) * u1; break;
        case RandomDist::Normal: v = p.a + p.b * std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(6.283185307179586 * u2); break;
        case RandomDist::Bernoulli: v = u1 < p.a ? 1.0 : 0.0; break;
        default: v = std::floor(p.a + (p.b - p.a) * u1); break;
      }
      if constexpr (std::is_same_v<T, c64> || std::is_same_v<T, c128>) {
        // Complex draws as PyTorch: uniform parts each in [a, b); a normal's parts each carry half
        // the variance (the cosine and sine branches of one Box-Muller pair).
        using R = decltype(T().re);
        double im = 0;
        if (p.dist == RandomDist::Uniform) {
          im = p.a + (p.b - p.a) * u2;
        } else if (p.dist == RandomDist::Normal) {
          const double r = std::sqrt(-2.0 * std::log1p(-u1)) * p.b * 0.7071067811865476;
          v = p.a + r * std::cos(6.283185307179586 * u2);
          im = r * std::sin(6.283185307179586 * u2);
        }
        out[i] = T(R(v), R(im));
      } else if constexpr (std::is_floating_point_v<typename OpMath<T>::type>) {
        // Uniform draws never reach the upper bound after rounding to a narrow type.
        T x = T(typename OpMath<T>::type(v));
        if (p.dist == RandomDist::Uniform && double(typename OpMath<T>::type(x)) >= p.b) x = T(typename OpMath<T>::type(p.a));
        out[i] = x;
      } else {
        out[i] = convert<T>(int64_t(v));
      }
    }
  });
}

void random(const TensorImpl& out, const RandomParams& p) {
  dispatch_dtype(out.dtype(), [&]<typename T>() { fill_random<T>(out.data<T>(), out.numel(), p); });
}

}  // namespace

LUCID_REGISTER_KERNEL(random_kernel, CPU, &random)

}  // namespace lucid::cpu
