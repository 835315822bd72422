// CPU kernels of the products family that are not GEMMs: cross and cdist (mirrors a later
// cuda/products.cu). The GEMM-shaped products compose matmul and reach OpenBLAS there.
#include <cmath>

#include "backend/common/iter.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/products.h"

namespace lucid::cpu {

namespace {

template <typename T>
void cross_t(const TensorImpl& out, const TensorImpl& a, const TensorImpl& b, int64_t dim) {
  using M = std::conditional_t<std::is_integral_v<T>, T, typename OpMath<T>::type>;
  Shape s;
  Strides so, sa, sb;
  for (int64_t i = 0; i < out.dim(); ++i) {
    if (i == dim) continue;
    s.push_back(out.shape()[size_t(i)]);
    so.push_back(out.strides()[size_t(i)]);
    sa.push_back(a.strides()[size_t(i)]);
    sb.push_back(b.strides()[size_t(i)]);
  }
  // The three components are reached through the `dim` stride; the iteration walks the rest.
  Tensor ov = out.as_view(s, so, out.storage_offset());
  Tensor av = a.as_view(s, sa, a.storage_offset());
  Tensor bv = b.as_view(s, sb, b.storage_offset());
  const auto it = Iter<3>::make({ov.get(), av.get(), bv.get()});
  const int64_t esz = int64_t(sizeof(T));
  const int64_t dO = out.strides()[size_t(dim)] * esz, dA = a.strides()[size_t(dim)] * esz,
                dB = b.strides()[size_t(dim)] * esz;
  parallel_for(0, it.numel, kGrainSize / 4, [&](int64_t lo, int64_t hi) {
    it.for_range(lo, hi, [&](char** p, const int64_t* st, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        char* o = p[0] + i * st[0];
        const char* x = p[1] + i * st[1];
        const char* y = p[2] + i * st[2];
        auto ld = [](const char* q) { return M(*reinterpret_cast<const T*>(q)); };
        const M a0 = ld(x), a1 = ld(x + dA), a2 = ld(x + 2 * dA);
        const M b0 = ld(y), b1 = ld(y + dB), b2 = ld(y + 2 * dB);
        *reinterpret_cast<T*>(o) = T(a1 * b2 - a2 * b1);
        *reinterpret_cast<T*>(o + dO) = T(a2 * b0 - a0 * b2);
        *reinterpret_cast<T*>(o + 2 * dO) = T(a0 * b1 - a1 * b0);
      }
    });
  });
}

void cross(const TensorImpl& out, const TensorImpl& a, const TensorImpl& b, int64_t dim) {
  if (out.numel() == 0) return;
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    if constexpr (std::is_same_v<T, bool>) LUCID_FAIL(NotImplemented, "[cross] not implemented for bool");
    else cross_t<T>(out, a, b, dim);
  });
}

enum class Norm { Zero, One, Two, Inf, P };

template <Norm N, typename T>
T row_dist(const T* __restrict__ x, const T* __restrict__ y, int64_t m, T p) {
  T acc = T(0);
  if constexpr (N == Norm::Zero) {
    for (int64_t k = 0; k < m; ++k) acc += T(x[k] != y[k]);
    return acc;
  } else if constexpr (N == Norm::One) {
    for (int64_t k = 0; k < m; ++k) acc += std::abs(x[k] - y[k]);
    return acc;
  } else if constexpr (N == Norm::Two) {
    for (int64_t k = 0; k < m; ++k) { const T d = x[k] - y[k]; acc += d * d; }
    return std::sqrt(acc);
  } else if constexpr (N == Norm::Inf) {
    for (int64_t k = 0; k < m; ++k) acc = std::max(acc, T(std::abs(x[k] - y[k])));
    return acc;
  } else {
    for (int64_t k = 0; k < m; ++k) acc += std::pow(std::abs(x[k] - y[k]), p);
    return std::pow(acc, T(1) / p);
  }
}

template <Norm N, typename T>
void cdist_t(const TensorImpl& out, const TensorImpl& x1, const TensorImpl& x2, double p) {
  const int64_t B = out.shape()[0], P = out.shape()[1], R = out.shape()[2], M = x1.shape()[2];
  const T* X1 = x1.data<T>();
  const T* X2 = x2.data<T>();
  T* O = out.data<T>();
  const T pp = T(p);
  parallel_for(0, B * P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, R * M)), [&](int64_t lo, int64_t hi) {
    for (int64_t bp = lo; bp < hi; ++bp) {
      const T* xi = X1 + bp * M;
      const T* ys = X2 + (bp / P) * R * M;
      T* o = O + bp * R;
      for (int64_t j = 0; j < R; ++j) o[j] = row_dist<N, T>(xi, ys + j * M, M, pp);
    }
  });
}

void cdist(const TensorImpl& out, const TensorImpl& x1, const TensorImpl& x2, double p) {
  if (out.numel() == 0) return;
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (p == 0) cdist_t<Norm::Zero, T>(out, x1, x2, p);
      else if (p == 1) cdist_t<Norm::One, T>(out, x1, x2, p);
      else if (p == 2) cdist_t<Norm::Two, T>(out, x1, x2, p);
      else if (std::isinf(p)) cdist_t<Norm::Inf, T>(out, x1, x2, p);
      else cdist_t<Norm::P, T>(out, x1, x2, p);
    } else {
      LUCID_FAIL(NotImplemented, "[cdist] not implemented for " << dtype_name(out.dtype()));
    }
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(cross_kernel, CPU, &cross)
LUCID_REGISTER_KERNEL(cdist_kernel, CPU, &cdist)

}  // namespace lucid::cpu
