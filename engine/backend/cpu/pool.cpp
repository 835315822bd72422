// CPU kernels of the generic pooling ops (backend/kernels/pool.h): float32 and float64.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/pool.h"

namespace lucid::cpu {

namespace {

// float32/float64 and the integer dtypes (max / average pooling of integers as PyTorch: integer division).
template <typename F>
void dispatch_real(Dtype d, const char* op, F&& f) {
  switch (d) {
    case Dtype::F32: f.template operator()<float>(); break;
    case Dtype::F64: f.template operator()<double>(); break;
    case Dtype::U8: f.template operator()<uint8_t>(); break;
    case Dtype::I8: f.template operator()<int8_t>(); break;
    case Dtype::I16: f.template operator()<int16_t>(); break;
    case Dtype::I32: f.template operator()<int32_t>(); break;
    case Dtype::I64: f.template operator()<int64_t>(); break;
    default: LUCID_FAIL(NotImplemented, "[" << op << "] does not support " << dtype_name(d) << " tensors");
  }
}

template <typename T>
constexpr bool nan_of(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

template <typename T>
using acc_of = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;

int64_t divisor_of(const PoolGeom& g, int64_t od, int64_t oh, int64_t ow, bool cip, int64_t override_) {
  if (override_ > 0) return override_;
  const auto& a = g.ax;
  if (cip) return a[0].span[size_t(od)] * a[1].span[size_t(oh)] * a[2].span[size_t(ow)];
  return a[0].taps[size_t(od)] * a[1].taps[size_t(oh)] * a[2].taps[size_t(ow)];
}

void pool_max(const TensorImpl& out, const TensorImpl& indices, const TensorImpl& x, const PoolGeom& g) {
  const auto& a = g.ax;
  const int64_t P = x.shape()[0], H = a[1].in, W = a[2].in, plane = a[0].in * H * W;
  const int64_t OD = a[0].out, OH = a[1].out, OW = a[2].out, L = OD * OH * OW;
  dispatch_real(x.dtype(), "max_pool", [&]<typename T>() {
    const T* X = x.data<T>();
    T* O = out.data<T>();
    int64_t* I = indices.data<int64_t>();
    parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, L * 4)), [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) {
        const T* xp = X + p * plane;
        int64_t o = p * L;
        for (int64_t od = 0; od < OD; ++od)
          for (int64_t oh = 0; oh < OH; ++oh)
            for (int64_t ow = 0; ow < OW; ++ow, ++o) {
              T best = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                            : std::numeric_limits<T>::lowest();
              int64_t bi = -1;
              bool nan = false;
              const int64_t d0 = a[0].begin[size_t(od)], nd = a[0].taps[size_t(od)], sd = a[0].step;
              const int64_t h0 = a[1].begin[size_t(oh)], nh = a[1].taps[size_t(oh)], sh = a[1].step;
              const int64_t w0 = a[2].begin[size_t(ow)], nw = a[2].taps[size_t(ow)], sw = a[2].step;
              for (int64_t i = 0; i < nd && !nan; ++i)
                for (int64_t j = 0; j < nh && !nan; ++j) {
                  const int64_t base = ((d0 + i * sd) * H + (h0 + j * sh)) * W;
                  for (int64_t k = 0; k < nw; ++k) {
                    const int64_t at = base + w0 + k * sw;
                    const T v = xp[at];
                    if (bi < 0 || v > best || nan_of(v)) {
                      best = v;
                      bi = at;
                      if (nan_of(v)) {
                        nan = true;
                        break;
                      }
                    }
                  }
                }
              O[o] = best;
              I[o] = bi;
            }
      }
    });
  });
}

void pool_avg(const TensorImpl& out, const TensorImpl& x, const PoolGeom& g, bool cip, int64_t div) {
  const auto& a = g.ax;
  const int64_t P = x.shape()[0], H = a[1].in, W = a[2].in, plane = a[0].in * H * W;
  const int64_t OD = a[0].out, OH = a[1].out, OW = a[2].out, L = OD * OH * OW;
  dispatch_real(x.dtype(), "avg_pool", [&]<typename T>() {
    const T* X = x.data<T>();
    T* O = out.data<T>();
    parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, L * 4)), [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) {
        const T* xp = X + p * plane;
        int64_t o = p * L;
        for (int64_t od = 0; od < OD; ++od)
          for (int64_t oh = 0; oh < OH; ++oh) {
            const int64_t d0 = a[0].begin[size_t(od)], nd = a[0].taps[size_t(od)];
            const int64_t h0 = a[1].begin[size_t(oh)], nh = a[1].taps[size_t(oh)];
            const int64_t* wb = a[2].begin.data();
            const int64_t* wt = a[2].taps.data();
            for (int64_t ow = 0; ow < OW; ++ow, ++o) {
              const int64_t w0 = wb[ow], nw = wt[ow];
              if (nd <= 0 || nh <= 0 || nw <= 0) {
                O[o] = T(0);
                continue;
              }
              acc_of<T> s = 0;
              for (int64_t i = 0; i < nd; ++i)
                for (int64_t j = 0; j < nh; ++j) {
                  const T* row = xp + ((d0 + i) * H + (h0 + j)) * W + w0;
                  for (int64_t k = 0; k < nw; ++k) s += row[k];
                }
              O[o] = T(s / acc_of<T>(divisor_of(g, od, oh, ow, cip, div)));
            }
          }
      }
    });
  });
}

void pool_avg_backward(const TensorImpl& gx, const TensorImpl& gy, const PoolGeom& g, bool cip, int64_t div) {
  const auto& a = g.ax;
  const int64_t P = gx.shape()[0], H = a[1].in, W = a[2].in, plane = a[0].in * H * W;
  const int64_t OD = a[0].out, OH = a[1].out, OW = a[2].out, L = OD * OH * OW;
  dispatch_float(gx.dtype(), "avg_pool_backward", [&]<typename T>() {
    T* GX = gx.data<T>();
    const T* G = gy.data<T>();
    parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, L * 4)), [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) {
        T* xp = GX + p * plane;
        int64_t o = p * L;
        for (int64_t od = 0; od < OD; ++od)
          for (int64_t oh = 0; oh < OH; ++oh)
            for (int64_t ow = 0; ow < OW; ++ow, ++o) {
              const int64_t d0 = a[0].begin[size_t(od)], nd = a[0].taps[size_t(od)];
              const int64_t h0 = a[1].begin[size_t(oh)], nh = a[1].taps[size_t(oh)];
              const int64_t w0 = a[2].begin[size_t(ow)], nw = a[2].taps[size_t(ow)];
              if (nd <= 0 || nh <= 0 || nw <= 0) continue;
              const T v = G[o] / T(divisor_of(g, od, oh, ow, cip, div));
              for (int64_t i = 0; i < nd; ++i)
                for (int64_t j = 0; j < nh; ++j) {
                  T* row = xp + ((d0 + i) * H + (h0 + j)) * W + w0;
                  for (int64_t k = 0; k < nw; ++k) row[k] += v;
                }
            }
      }
    });
  });
}

template <typename T>
void intervals(std::vector<int64_t>& seq, T sample, int64_t in, int64_t out, int64_t k) {
  seq.assign(size_t(out), 0);
  if (out > 1) {
    const T alpha = static_cast<T>(in - k) / static_cast<T>(out - 1);
    for (int64_t i = 0; i < out - 1; ++i)
      seq[size_t(i)] = int64_t(static_cast<int>((T(i) + sample) * alpha) - static_cast<int>(sample * alpha));
  }
  if (out > 0) seq[size_t(out - 1)] = in - k;
}

void pool_fractional_max(const TensorImpl& out, const TensorImpl& indices, const TensorImpl& x,
                         const TensorImpl& samples, const std::array<int64_t, 3>& k) {
  const int64_t P = x.shape()[0], D = x.shape()[1], H = x.shape()[2], W = x.shape()[3], plane = D * H * W;
  const int64_t OD = out.shape()[1], OH = out.shape()[2], OW = out.shape()[3], L = OD * OH * OW;
  dispatch_float(x.dtype(), "fractional_max_pool", [&]<typename T>() {
    const T* X = x.data<T>();
    const T* S = samples.data<T>();
    T* O = out.data<T>();
    int64_t* I = indices.data<int64_t>();
    parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, L * 4)), [&](int64_t lo, int64_t hi) {
      std::vector<int64_t> sd, sh, sw;
      for (int64_t p = lo; p < hi; ++p) {
        intervals<T>(sd, S[p * 3 + 0], D, OD, k[0]);
        intervals<T>(sh, S[p * 3 + 1], H, OH, k[1]);
        intervals<T>(sw, S[p * 3 + 2], W, OW, k[2]);
        const T* xp = X + p * plane;
        int64_t o = p * L;
        for (int64_t od = 0; od < OD; ++od)
          for (int64_t oh = 0; oh < OH; ++oh)
            for (int64_t ow = 0; ow < OW; ++ow, ++o) {
              T best = -std::numeric_limits<T>::infinity();
              int64_t bi = -1;
              bool nan = false;
              for (int64_t i = 0; i < k[0] && !nan; ++i)
                for (int64_t j = 0; j < k[1] && !nan; ++j) {
                  const int64_t base = ((sd[size_t(od)] + i) * H + sh[size_t(oh)] + j) * W + sw[size_t(ow)];
                  for (int64_t t = 0; t < k[2]; ++t) {
                    const T v = xp[base + t];
                    if (bi < 0 || v > best || std::isnan(v)) {
                      best = v;
                      bi = base + t;
                      if (std::isnan(v)) {
                        nan = true;
                        break;
                      }
                    }
                  }
                }
              O[o] = best;
              I[o] = bi;
            }
      }
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(pool_fractional_max_kernel, CPU, &pool_fractional_max)
LUCID_REGISTER_KERNEL(pool_max_kernel, CPU, &pool_max)
LUCID_REGISTER_KERNEL(pool_avg_kernel, CPU, &pool_avg)
LUCID_REGISTER_KERNEL(pool_avg_backward_kernel, CPU, &pool_avg_backward)

}  // namespace lucid::cpu
