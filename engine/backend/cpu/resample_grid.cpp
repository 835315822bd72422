// CPU kernels of grid sampling (backend/kernels/resample.h): float32 and float64. Each output position
// becomes a short list of taps (input offset, weight, weight's derivative along x / y / z), built with
// PyTorch's GridSampler.h coordinate rules (unnormalize, border clip, reflection, the chain-rule factor
// of each); the forward sums taps over channels, the backward scatters into the input (one batch item
// per task: no write races) and contracts the derivative weights for the grid gradient.
#include <algorithm>
#include <cmath>

#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/resample.h"

namespace lucid::cpu {

namespace {

template <typename T>
struct Tap {
  int64_t off;
  T w, d[3];  // weight and its derivative along the (unnormalized) x, y, z coordinate
  T h[3][3];  // second derivatives (filled for the double backward only)
};

template <typename T>
struct Point {
  Tap<T> taps[16];
  int n = 0;
  T mult[3] = {0, 0, 0};  // d(unnormalized, padded coordinate) / d(grid coordinate)
};

template <typename T>
T unnormalize(T c, int64_t size, bool ac, T& m) {
  if (ac) {
    m = T(size - 1) / T(2);
    return (c + T(1)) / T(2) * T(size - 1);
  }
  m = T(size) / T(2);
  return ((c + T(1)) * T(size) - T(1)) / T(2);
}

template <typename T>
T clip(T in, int64_t size, T& g) {
  if (in < T(0)) {
    g = 0;
    return 0;
  }
  const T mx = T(size - 1);
  if (in > mx) {
    g = 0;
    return mx;
  }
  g = 1;
  return in;
}

template <typename T>
T reflect(T in, int64_t twice_low, int64_t twice_high, T& g) {
  if (twice_low == twice_high) {
    g = 0;
    return 0;
  }
  const T mn = T(twice_low) / T(2), span = T(twice_high - twice_low) / T(2);
  in = in - mn;
  T s = 1;
  if (in < T(0)) s = -1, in = -in;
  const T extra = std::fmod(in, span);
  const int64_t flips = int64_t(std::floor(in / span));
  if (flips % 2 == 0) {
    g = s;
    return extra + mn;
  }
  g = -s;
  return span - extra + mn;
}

// The padding-mode mapping of an unnormalized coordinate, multiplying m by its derivative.
template <typename T>
T pad_coord(T c, int64_t size, const GridOpts& o, T& m) {
  T g = 1;
  if (o.padding == GridPadding::Border) {
    c = clip(c, size, g);
    m *= g;
  } else if (o.padding == GridPadding::Reflection) {
    c = o.align_corners ? reflect(c, 0, 2 * (size - 1), g) : reflect(c, -1, 2 * size - 1, g);
    m *= g;
    c = clip(c, size, g);
    m *= g;
  }
  return c;
}

template <typename T>
void cubic_coeffs(T t, T c[4], T d[4], T d2[4] = nullptr) {
  const T A = T(-0.75);
  const T s0 = t + T(1), s2 = T(1) - t, s3 = T(2) - t;
  c[0] = ((A * s0 - T(5) * A) * s0 + T(8) * A) * s0 - T(4) * A;
  c[1] = ((A + T(2)) * t - (A + T(3))) * t * t + T(1);
  c[2] = ((A + T(2)) * s2 - (A + T(3))) * s2 * s2 + T(1);
  c[3] = ((A * s3 - T(5) * A) * s3 + T(8) * A) * s3 - T(4) * A;
  d[0] = T(3) * A * s0 * s0 - T(10) * A * s0 + T(8) * A;
  d[1] = T(3) * (A + T(2)) * t * t - T(2) * (A + T(3)) * t;
  d[2] = -(T(3) * (A + T(2)) * s2 * s2 - T(2) * (A + T(3)) * s2);
  d[3] = -(T(3) * A * s3 * s3 - T(10) * A * s3 + T(8) * A);
  if (d2) {
    d2[0] = T(6) * A * s0 - T(10) * A;
    d2[1] = T(6) * (A + T(2)) * t - T(2) * (A + T(3));
    d2[2] = T(6) * (A + T(2)) * s2 - T(2) * (A + T(3));
    d2[3] = T(6) * A * s3 - T(10) * A;
  }
}

// Taps of grid point g (nd coordinates x, y[, z]) into an input of extents (D, H, W).
template <typename T, bool H2 = false>
void point_taps(Point<T>& p, const T* g, int nd, int64_t D, int64_t H, int64_t W, const GridOpts& o) {
  p.n = 0;
  const int64_t ext[3] = {W, H, D};
  T c[3] = {0, 0, 0};
  for (int k = 0; k < nd; ++k) c[k] = unnormalize(g[k], ext[k], o.align_corners, p.mult[k]);
  if (o.mode == GridMode::Bicubic) {  // 2-d only; the padding applies to each tap's integer position
    T cx[4], dx[4], cy[4], dy[4], hx[4], hy[4];
    const T fx = std::floor(c[0]), fy = std::floor(c[1]);
    cubic_coeffs(c[0] - fx, cx, dx, H2 ? hx : nullptr);
    cubic_coeffs(c[1] - fy, cy, dy, H2 ? hy : nullptr);
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        T unused = 1;
        const int64_t xi = int64_t(pad_coord(fx - T(1) + T(i), W, o, unused));
        const int64_t yi = int64_t(pad_coord(fy - T(1) + T(j), H, o, unused));
        if (xi < 0 || xi >= W || yi < 0 || yi >= H) continue;
        Tap<T>& tp = p.taps[p.n++];
        tp.off = yi * W + xi, tp.w = cx[i] * cy[j];
        tp.d[0] = dx[i] * cy[j], tp.d[1] = cx[i] * dy[j], tp.d[2] = T(0);
        if constexpr (H2) {
          tp.h[0][0] = hx[i] * cy[j], tp.h[1][1] = cx[i] * hy[j], tp.h[0][1] = tp.h[1][0] = dx[i] * dy[j];
          tp.h[0][2] = tp.h[2][0] = tp.h[1][2] = tp.h[2][1] = tp.h[2][2] = T(0);
        }
      }
    return;
  }
  for (int k = 0; k < nd; ++k) c[k] = pad_coord(c[k], ext[k], o, p.mult[k]);
  if (o.mode == GridMode::Nearest) {
    const int64_t xi = int64_t(std::nearbyint(c[0])), yi = int64_t(std::nearbyint(c[1]));
    const int64_t zi = nd == 3 ? int64_t(std::nearbyint(c[2])) : 0;
    if (xi >= 0 && xi < W && yi >= 0 && yi < H && zi >= 0 && zi < D)
      p.taps[p.n++] = Tap<T>{(zi * H + yi) * W + xi, T(1), {T(0), T(0), T(0)}, {}};
    return;
  }
  // bilinear / trilinear: corners in PyTorch's order (x fastest, then y, then z)
  int64_t lo[3] = {0, 0, 0};
  T f1[3] = {0, 0, 0}, f0[3] = {1, 1, 1};  // weight of the upper / lower corner along each axis
  for (int k = 0; k < nd; ++k) {
    const T fl = std::floor(c[k]);
    lo[k] = int64_t(fl);
    f1[k] = c[k] - fl;
    f0[k] = T(1) - f1[k];
  }
  const int nz = nd == 3 ? 2 : 1;
  for (int dz = 0; dz < nz; ++dz)
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) {
        const int64_t xi = lo[0] + dx, yi = lo[1] + dy, zi = lo[2] + dz;
        if (xi < 0 || xi >= W || yi < 0 || yi >= H || zi < 0 || zi >= D) continue;
        const T wx = dx ? f1[0] : f0[0], wy = dy ? f1[1] : f0[1], wz = nd == 3 ? (dz ? f1[2] : f0[2]) : T(1);
        const T sx = dx ? T(1) : T(-1), sy = dy ? T(1) : T(-1), sz = dz ? T(1) : T(-1);
        Tap<T>& tp = p.taps[p.n++];
        tp.off = (zi * H + yi) * W + xi, tp.w = wx * wy * wz;
        tp.d[0] = sx * wy * wz, tp.d[1] = wx * sy * wz, tp.d[2] = wx * wy * sz;
        if constexpr (H2) {
          const T z1 = nd == 3 ? sz : T(0);
          tp.h[0][0] = tp.h[1][1] = tp.h[2][2] = T(0);
          tp.h[0][1] = tp.h[1][0] = sx * sy * wz;
          tp.h[0][2] = tp.h[2][0] = sx * wy * z1;
          tp.h[1][2] = tp.h[2][1] = wx * sy * z1;
        }
      }
}

void grid_sample(const TensorImpl& out, const TensorImpl& x, const TensorImpl& grid, const GridOpts& o) {
  const int64_t N = x.shape()[0], C = x.shape()[1], D = x.shape()[2], H = x.shape()[3], W = x.shape()[4];
  const int64_t S = grid.shape()[1], nd = grid.shape()[2], plane = D * H * W;
  dispatch_float(x.dtype(), "grid_sample", [&]<typename T>() {
    const T* X = x.data<T>();
    const T* G = grid.data<T>();
    T* O = out.data<T>();
    parallel_for(0, N * S, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, C * 8)), [&](int64_t lo, int64_t hi) {
      Point<T> p;
      for (int64_t q = lo; q < hi; ++q) {
        const int64_t n = q / S, s = q % S;
        point_taps(p, G + q * nd, int(nd), D, H, W, o);
        const T* xn = X + n * C * plane;
        T* on = O + n * C * S + s;
        for (int64_t c = 0; c < C; ++c) {
          const T* xc = xn + c * plane;
          T acc = 0;
          for (int t = 0; t < p.n; ++t) acc += p.taps[t].w * xc[p.taps[t].off];
          on[c * S] = acc;
        }
      }
    });
  });
}

void grid_sample_backward(const TensorImpl* gx, const TensorImpl* ggrid, const TensorImpl& gy, const TensorImpl& x,
                          const TensorImpl& grid, const GridOpts& o) {
  const int64_t N = x.shape()[0], C = x.shape()[1], D = x.shape()[2], H = x.shape()[3], W = x.shape()[4];
  const int64_t S = grid.shape()[1], nd = grid.shape()[2], plane = D * H * W;
  dispatch_float(x.dtype(), "grid_sample_backward", [&]<typename T>() {
    const T* X = x.data<T>();
    const T* G = grid.data<T>();
    const T* GY = gy.data<T>();
    T* GX = gx ? gx->data<T>() : nullptr;
    T* GG = ggrid ? ggrid->data<T>() : nullptr;
    parallel_for(0, N, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, S * C * 8)), [&](int64_t lo, int64_t hi) {
      Point<T> p;
      for (int64_t n = lo; n < hi; ++n)
        for (int64_t s = 0; s < S; ++s) {
          point_taps(p, G + (n * S + s) * nd, int(nd), D, H, W, o);
          T gc[3] = {0, 0, 0};
          for (int64_t c = 0; c < C; ++c) {
            const T go = GY[(n * C + c) * S + s];
            const int64_t base = (n * C + c) * plane;
            for (int t = 0; t < p.n; ++t) {
              const Tap<T>& tp = p.taps[t];
              if (GX) GX[base + tp.off] += tp.w * go;
              if (GG) {
                const T v = X[base + tp.off] * go;
                gc[0] += tp.d[0] * v, gc[1] += tp.d[1] * v, gc[2] += tp.d[2] * v;
              }
            }
          }
          if (GG)
            for (int64_t k = 0; k < nd; ++k) GG[(n * S + s) * nd + k] = gc[k] * p.mult[k];
        }
    });
  });
}

void grid_sample_double_backward(const TensorImpl& dg, const TensorImpl& dx, const TensorImpl& dgrid, const TensorImpl& gy,
                                 const TensorImpl& x, const TensorImpl& grid, const TensorImpl* U, const TensorImpl* V,
                                 const GridOpts& o) {
  const int64_t N = x.shape()[0], C = x.shape()[1], D = x.shape()[2], H = x.shape()[3], W = x.shape()[4];
  const int64_t S = grid.shape()[1], nd = grid.shape()[2], plane = D * H * W;
  dispatch_float(x.dtype(), "grid_sample_double_backward", [&]<typename T>() {
    const T* X = x.data<T>();
    const T* G = grid.data<T>();
    const T* GY = gy.data<T>();
    const T* UU = U ? U->data<T>() : nullptr;
    const T* VV = V ? V->data<T>() : nullptr;
    T* DG = dg.data<T>();
    T* DX = dx.data<T>();
    T* DGR = dgrid.data<T>();
    parallel_for(0, N, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, S * C * 16)), [&](int64_t lo, int64_t hi) {
      Point<T> p;
      T e[16], q[16][3];
      for (int64_t n = lo; n < hi; ++n)
        for (int64_t s = 0; s < S; ++s) {
          point_taps<T, true>(p, G + (n * S + s) * nd, int(nd), D, H, W, o);
          T vm[3] = {0, 0, 0};  // V * mult: the cotangent on the unnormalized coordinates
          if (VV)
            for (int64_t k = 0; k < nd; ++k) vm[k] = VV[(n * S + s) * nd + k] * p.mult[k];
          for (int t = 0; t < p.n; ++t) {
            e[t] = 0;
            for (int64_t k = 0; k < nd; ++k) e[t] += vm[k] * p.taps[t].d[k];
            for (int64_t j = 0; j < nd; ++j) {
              q[t][j] = 0;
              for (int64_t k = 0; k < nd; ++k) q[t][j] += vm[k] * p.taps[t].h[k][j];
            }
          }
          T acc[3] = {0, 0, 0};
          for (int64_t c = 0; c < C; ++c) {
            const T go = GY[(n * C + c) * S + s];
            const int64_t base = (n * C + c) * plane;
            T a = 0;
            for (int t = 0; t < p.n; ++t) {
              const Tap<T>& tp = p.taps[t];
              const T xv = X[base + tp.off], uv = UU ? UU[base + tp.off] : T(0);
              a += tp.w * uv + e[t] * xv;
              DX[base + tp.off] += e[t] * go;
              for (int64_t j = 0; j < nd; ++j) acc[j] += go * (tp.d[j] * uv + q[t][j] * xv);
            }
            DG[(n * C + c) * S + s] = a;
          }
          for (int64_t j = 0; j < nd; ++j) DGR[(n * S + s) * nd + j] = acc[j] * p.mult[j];
        }
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(grid_sample_double_backward_kernel, CPU, &grid_sample_double_backward)
LUCID_REGISTER_KERNEL(grid_sample_kernel, CPU, &grid_sample)
LUCID_REGISTER_KERNEL(grid_sample_backward_kernel, CPU, &grid_sample_backward)

}  // namespace lucid::cpu
