// CPU kernels of 2-D max pooling with indices and its backward (backend/kernels/nn.h): float32 and float64.
// Parallel over the N * C planes. A contiguous input takes loops without per-tap bounds checks (the valid
// taps of each window are computed once per row / column), with a branch-free row loop for the common
// 2x2 stride-2 window; the backward clears and scatters each plane in one pass while it is in cache (no
// separate zero fill of the whole gradient).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/nn.h"

namespace lucid::cpu {

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LUCID_POOL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LUCID_POOL_CLONES
#endif

// v replaces the running best when larger or NaN: PyTorch's rule (NaN propagates; the window's last NaN
// gives the index).
template <typename T>
inline bool takes(T v, T best) {
  return (v > best) | (v != v);
}

// A plane of 2x2 stride-2 windows without padding (OH, OW outputs; the input rows W wide, 2 * OH <= H,
// 2 * OW <= W), all rows in one function so short rows still run the vector loop of the ISA's clone.
template <typename T>
LUCID_POOL_CLONES void plane_2x2(T* __restrict o, int64_t* __restrict idx, const T* __restrict xp, int64_t OH,
                                 int64_t OW, int64_t W) {
  for (int64_t oh = 0; oh < OH; ++oh, o += OW, idx += OW) {
    const T* __restrict r0 = xp + 2 * oh * W;
    const T* __restrict r1 = r0 + W;
    const int64_t base = 2 * oh * W;
    for (int64_t ow = 0; ow < OW; ++ow) {
      const T a = r0[2 * ow], b = r0[2 * ow + 1], c = r1[2 * ow], d = r1[2 * ow + 1];
      T best = a;
      int64_t bi = base + 2 * ow;
      bool t = takes(b, best);
      best = t ? b : best;
      bi = t ? base + 2 * ow + 1 : bi;
      t = takes(c, best);
      best = t ? c : best;
      bi = t ? base + W + 2 * ow : bi;
      t = takes(d, best);
      best = t ? d : best;
      bi = t ? base + W + 2 * ow + 1 : bi;
      o[ow] = best;
      idx[ow] = bi;
    }
  }
}

// [first, last) of the taps k (position start + k * step) that fall inside [0, extent).
inline void valid_taps(int64_t start, int64_t step, int64_t taps, int64_t extent, int64_t& first, int64_t& last) {
  first = start >= 0 ? 0 : (-start + step - 1) / step;
  last = start >= extent ? 0 : std::min<int64_t>(taps, (extent - 1 - start) / step + 1);
  if (last < first) last = first;
}

// One tap over output columns [lo, hi): candidate x[ow * sw + off] (flat index base + ow * sw + off).
template <typename T>
LUCID_POOL_CLONES void taps_row(T* __restrict o, int64_t* __restrict idx, const T* __restrict xr, int64_t base,
                                int64_t off, int64_t sw, int64_t lo, int64_t hi) {
  for (int64_t ow = lo; ow < hi; ++ow) {
    const int64_t at = ow * sw + off;
    const T v = xr[at];
    const bool t = (v > o[ow]) | (v != v) | (idx[ow] < 0);
    o[ow] = t ? v : o[ow];
    idx[ow] = t ? base + at : idx[ow];
  }
}

template <typename T>
void plane_contiguous(T* o, int64_t* idx, const T* xp, int64_t H, int64_t W, const Window2d& w) {
  if (w.kh == 2 && w.kw == 2 && w.sh == 2 && w.sw == 2 && w.ph == 0 && w.pw == 0 && w.dh == 1 && w.dw == 1 &&
      2 * w.oh <= H && 2 * w.ow <= W) {
    plane_2x2<T>(o, idx, xp, w.oh, w.ow, W);
    return;
  }
  // Row by row: for each valid tap (i, j) in scan order, one pass over the output columns it reaches
  // (a strided vector loop); the scan order is PyTorch's per window, so ties and NaNs resolve the same.
  for (int64_t oh = 0; oh < w.oh; ++oh) {
    const int64_t h0 = oh * w.sh - w.ph;
    int64_t i0, i1;
    valid_taps(h0, w.dh, w.kh, H, i0, i1);
    T* orow = o + oh * w.ow;
    int64_t* irow = idx + oh * w.ow;
    for (int64_t ow = 0; ow < w.ow; ++ow) {
      orow[ow] = -std::numeric_limits<T>::infinity();
      irow[ow] = -1;
    }
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t row = (h0 + i * w.dh) * W;
      for (int64_t j = 0; j < w.kw; ++j) {
        const int64_t off = j * w.dw - w.pw;  // input column of output column ow: ow * sw + off
        int64_t lo, hi;  // the output columns for which it lies in [0, W)
        valid_taps(off, w.sw, w.ow, W, lo, hi);
        taps_row<T>(orow, irow, xp + row, row, off, w.sw, lo, hi);
      }
    }
  }
}

void max_pool2d(const TensorImpl& out, const TensorImpl& indices, const TensorImpl& x, const Window2d& w) {
  const int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  const auto& xs = x.strides();
  const int64_t L = w.oh * w.ow;
  const bool rows_contiguous = xs[3] == 1 && xs[2] == W;
  dispatch_float(x.dtype(), "max_pool2d", [&]<typename T>() {
    const T* X = x.data<T>();
    T* O = out.data<T>();
    int64_t* I = indices.data<int64_t>();
    parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, L * w.kh * w.kw)),
                 [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) {
        const T* plane = X + (p / C) * xs[0] + (p % C) * xs[1];
        if (rows_contiguous) {
          plane_contiguous<T>(O + p * L, I + p * L, plane, H, W, w);
          continue;
        }
        for (int64_t oh = 0; oh < w.oh; ++oh) {
          for (int64_t ow = 0; ow < w.ow; ++ow) {
            T best = -std::numeric_limits<T>::infinity();
            int64_t arg = -1;
            for (int64_t i = 0; i < w.kh; ++i) {
              const int64_t ih = oh * w.sh - w.ph + i * w.dh;
              if (ih < 0 || ih >= H) continue;
              for (int64_t j = 0; j < w.kw; ++j) {
                const int64_t iw = ow * w.sw - w.pw + j * w.dw;
                if (iw < 0 || iw >= W) continue;
                const T v = plane[ih * xs[2] + iw * xs[3]];
                if (arg < 0 || takes(v, best)) {
                  best = v;
                  arg = ih * W + iw;
                }
              }
            }
            O[p * L + oh * w.ow + ow] = best;
            I[p * L + oh * w.ow + ow] = arg;
          }
        }
      }
    });
  });
}

void max_pool2d_backward(const TensorImpl& gx, const TensorImpl& g, const TensorImpl& indices) {
  const int64_t N = gx.shape()[0], C = gx.shape()[1], HW = gx.shape()[2] * gx.shape()[3];
  const int64_t L = g.shape()[2] * g.shape()[3];
  dispatch_float(gx.dtype(), "max_pool2d_backward", [&]<typename T>() {
    T* GX = gx.data<T>();
    const T* G = g.data<T>();
    const int64_t* I = indices.data<int64_t>();
    parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, HW + L)), [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) {
        T* gp = GX + p * HW;
        const T* g0 = G + p * L;
        const int64_t* i0 = I + p * L;
        std::memset(static_cast<void*>(gp), 0, size_t(HW) * sizeof(T));
        for (int64_t o = 0; o < L; ++o) {
          const int64_t idx = i0[o];
          if (idx >= 0 && idx < HW) gp[idx] += g0[o];
        }
      }
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(max_pool2d_kernel, CPU, &max_pool2d)
LUCID_REGISTER_KERNEL(max_pool2d_backward_kernel, CPU, &max_pool2d_backward)

}  // namespace lucid::cpu
