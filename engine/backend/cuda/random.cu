// CUDA random fills (mirrors cpu/random.cpp); both draw through common/philox.h, so element i
// gets the same uniforms on every device. Uniform, Bernoulli and Integer draws are bit-identical
// to the CPU's (the arithmetic below is written with explicit rounding so nvcc cannot contract it
// into an FMA the CPU build does not use); Normal draws agree within float rounding (device log1p
// and cos may differ from glibc's in the last bit of a double).
#include <cmath>

#include "backend/common/philox.h"
#include "backend/cuda/loops.cuh"
#include "backend/kernels/random.h"

namespace lucid::cuda {

namespace {

template <typename T>
__global__ void random_kernel_impl(T* __restrict__ out, int64_t n, RandomParams p) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    double u1, u2;
    philox_uniform2(p.seed, p.offset, uint64_t(i), &u1, &u2);
    double v;
    switch (p.dist) {
      case RandomDist::Uniform: v = __dadd_rn(p.a, __dmul_rn(p.b - p.a, u1)); break;
      case RandomDist::Normal: {
        const double r = sqrt(__dmul_rn(-2.0, log1p(-u1)));
        v = __dadd_rn(p.a, __dmul_rn(__dmul_rn(p.b, r), cos(__dmul_rn(6.283185307179586, u2))));
        break;
      }
      case RandomDist::Bernoulli: v = u1 < p.a ? 1.0 : 0.0; break;
      default: v = floor(__dadd_rn(p.a, __dmul_rn(p.b - p.a, u1))); break;
    }
    if constexpr (is_complex_v<T>) {
      // Complex draws as cpu/random.cpp: uniform parts each in [a, b); normal parts with half the
      // variance each (cosine and sine branches of one Box-Muller pair).
      using R = decltype(T().re);
      double im = 0;
      if (p.dist == RandomDist::Uniform) {
        im = __dadd_rn(p.a, __dmul_rn(p.b - p.a, u2));
      } else if (p.dist == RandomDist::Normal) {
        const double r = __dmul_rn(__dmul_rn(sqrt(__dmul_rn(-2.0, log1p(-u1))), p.b), 0.7071067811865476);
        v = __dadd_rn(p.a, __dmul_rn(r, cos(__dmul_rn(6.283185307179586, u2))));
        im = __dmul_rn(r, sin(__dmul_rn(6.283185307179586, u2)));
      }
      out[i] = T(R(v), R(im));
    } else if constexpr (std::is_floating_point_v<typename OpMath<T>::type>) {
      // Uniform draws never reach the upper bound after rounding to a narrow type.
      using M = typename OpMath<T>::type;
      T x = T(M(v));
      if (p.dist == RandomDist::Uniform && double(M(x)) >= p.b) x = T(M(p.a));
      out[i] = x;
    } else {
      out[i] = convert<T>(int64_t(v));
    }
  }
}

void random(const TensorImpl& out, const RandomParams& p) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const int dev = out.device().index;
  DeviceGuard guard(dev);
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    random_kernel_impl<T><<<blocks_for(n), kThreads, 0, stream(dev)>>>(out.data<T>(), n, p);
    LUCID_CUDA_LAUNCH_CHECK();
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(random_kernel, CUDA, &random)

}  // namespace lucid::cuda
