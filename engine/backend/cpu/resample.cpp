// CPU kernels of separable interpolation (backend/kernels/resample.h): float32 and float64. Each output
// element sums its taps' products of per-axis weights (innermost axis first, as PyTorch's generic
// upsampling kernel); the backward kernel is the exact adjoint, one plane per task (no write races).
#include <algorithm>
#include <vector>

#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/resample.h"

namespace lucid::cpu {

namespace {

template <typename T>
struct AxisT {
  int64_t out, K;
  std::vector<int64_t> off;  // idx * stride
  std::vector<T> w;
};

template <typename T>
AxisT<T> typed(const ResampleAxis& a, int64_t stride) {
  AxisT<T> r{a.out, a.K, {}, {}};
  r.off.resize(a.idx.size());
  r.w.resize(a.w.size());
  for (size_t i = 0; i < a.idx.size(); ++i) r.off[i] = a.idx[i] * stride, r.w[i] = T(a.w[i]);
  return r;
}

int64_t grain_for(int64_t per_plane) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, per_plane * 4)); }

void interp(const TensorImpl& out, const TensorImpl& x, const ResampleGeom& g) {
  const int64_t P = x.shape()[0], H = g.ax[1].in, W = g.ax[2].in, plane = g.ax[0].in * H * W;
  const int64_t L = g.ax[0].out * g.ax[1].out * g.ax[2].out;
  dispatch_float(x.dtype(), "interpolate", [&]<typename T>() {
    const AxisT<T> ad = typed<T>(g.ax[0], H * W), ah = typed<T>(g.ax[1], W), aw = typed<T>(g.ax[2], 1);
    const T* X = x.data<T>();
    T* O = out.data<T>();
    parallel_for(0, P, grain_for(L * ad.K * ah.K * aw.K), [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) {
        const T* xp = X + p * plane;
        T* o = O + p * L;
        for (int64_t od = 0; od < ad.out; ++od)
          for (int64_t oh = 0; oh < ah.out; ++oh)
            for (int64_t ow = 0; ow < aw.out; ++ow) {
              T sd = 0;
              for (int64_t i = 0; i < ad.K; ++i) {
                const T* xd = xp + ad.off[size_t(od * ad.K + i)];
                T sh = 0;
                for (int64_t j = 0; j < ah.K; ++j) {
                  const T* xh = xd + ah.off[size_t(oh * ah.K + j)];
                  T sw = 0;
                  for (int64_t k = 0; k < aw.K; ++k) sw += aw.w[size_t(ow * aw.K + k)] * xh[aw.off[size_t(ow * aw.K + k)]];
                  sh += ah.w[size_t(oh * ah.K + j)] * sw;
                }
                sd += ad.w[size_t(od * ad.K + i)] * sh;
              }
              *o++ = sd;
            }
      }
    });
  });
}

void interp_backward(const TensorImpl& gx, const TensorImpl& gy, const ResampleGeom& g) {
  const int64_t P = gx.shape()[0], H = g.ax[1].in, W = g.ax[2].in, plane = g.ax[0].in * H * W;
  const int64_t L = g.ax[0].out * g.ax[1].out * g.ax[2].out;
  dispatch_float(gx.dtype(), "interpolate_backward", [&]<typename T>() {
    const AxisT<T> ad = typed<T>(g.ax[0], H * W), ah = typed<T>(g.ax[1], W), aw = typed<T>(g.ax[2], 1);
    T* GX = gx.data<T>();
    const T* G = gy.data<T>();
    parallel_for(0, P, grain_for(L * ad.K * ah.K * aw.K), [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) {
        T* xp = GX + p * plane;
        const T* gp = G + p * L;
        for (int64_t od = 0; od < ad.out; ++od)
          for (int64_t oh = 0; oh < ah.out; ++oh)
            for (int64_t ow = 0; ow < aw.out; ++ow) {
              const T v = *gp++;
              for (int64_t i = 0; i < ad.K; ++i) {
                T* xd = xp + ad.off[size_t(od * ad.K + i)];
                const T vd = v * ad.w[size_t(od * ad.K + i)];
                for (int64_t j = 0; j < ah.K; ++j) {
                  T* xh = xd + ah.off[size_t(oh * ah.K + j)];
                  const T vh = vd * ah.w[size_t(oh * ah.K + j)];
                  for (int64_t k = 0; k < aw.K; ++k) xh[aw.off[size_t(ow * aw.K + k)]] += vh * aw.w[size_t(ow * aw.K + k)];
                }
              }
            }
      }
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(resample_interp_kernel, CPU, &interp)
LUCID_REGISTER_KERNEL(resample_interp_backward_kernel, CPU, &interp_backward)

}  // namespace lucid::cpu
