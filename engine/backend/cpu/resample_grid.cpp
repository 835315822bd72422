// CPU kernels of grid sampling (backend/kernels/resample.h): float32 and float64. Each output position
// becomes a short list of taps (input offset, weight, weight's derivative along x / y / z), built with
// PyTorch's GridSampler.h coordinate rules (unnormalize, border clip, reflection, the chain-rule factor
// of each); the forward sums taps over channels, the backward scatters into the input (one batch item
// per task: no write races) and contracts the derivative weights for the grid gradient.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

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

// The grid coordinate in pixels, m its derivative; vec: the vectorised kernel's form (c + 1) * m (- 0.5),
// which its compiler contracts into a fused multiply-add (it decides nearest-neighbour ties).
template <typename T>
T unnormalize(T c, int64_t size, bool ac, T& m, bool vec) {
  if (ac) {
    m = T(size - 1) / T(2);
    return vec ? (c + T(1)) * m : (c + T(1)) / T(2) * T(size - 1);
  }
  m = T(size) / T(2);
  return vec ? std::fma(c + T(1), m, T(-0.5)) : ((c + T(1)) * T(size) - T(1)) / T(2);
}

// Two flavours of PyTorch's padding maths, reproduced with their edge behaviour: 2-d inputs run its
// vectorised CPU kernel (GridSamplerKernel.cpp: NaN clips to 0, reflection by truncated division), 3-d
// inputs its scalar one (GridSampler.h: std::min/max clipping, reflection by fmod and an int flip count).
// Both count the clip borders as out of bounds for the gradient.
template <typename T>
T clip(T in, int64_t size, T& g, bool vec) {
  const T mx = T(size - 1);
  g = (in > T(0) && in < mx) ? T(1) : T(0);
  if (vec) return in > T(0) ? std::min(in, mx) : T(0);
  return std::min(mx, std::max(in, T(0)));
}

// static_cast<int>(floor(v)) as x86 computes it (out-of-range and NaN give INT_MIN).
template <typename T>
int int_floor(T v) {
  const T f = std::floor(v);
  return (f >= T(-2147483648.0) && f < T(2147483648.0)) ? int(f) : INT32_MIN;
}

template <typename T>
T reflect(T in, int64_t size, bool ac, T& g, bool vec) {
  if (vec) {
    const T ts = T(ac ? 2 * (size - 1) : 2 * size);
    if (ts == T(0)) {
      g = 0;
      return 0;
    }
    const T iml = ac ? in : in + T(0.5);
    const bool neg = iml < T(0);
    const T ab = std::abs(iml);
    const T extra = std::fma(-std::trunc(ab / ts), ts, ab);  // contracted there too
    const T refl = ts - extra;
    const bool more = extra > refl;
    g = (more != neg) ? T(-1) : T(1);
    return (more ? refl : extra) - (ac ? T(0) : T(0.5));
  }
  const int64_t twice_low = ac ? 0 : -1, twice_high = ac ? 2 * (size - 1) : 2 * size - 1;
  if (twice_low == twice_high) {
    g = 0;
    return 0;
  }
  const T mn = T(twice_low) / T(2), span = T(twice_high - twice_low) / T(2);
  in = in - mn;
  T sgn = 1;
  if (in < T(0)) sgn = -1, in = -in;
  const T extra = std::fmod(in, span);
  if (int_floor(in / span) % 2 == 0) {
    g = sgn;
    return extra + mn;
  }
  g = -sgn;
  return span - extra + mn;
}

// The padding-mode mapping of an unnormalized coordinate, multiplying m by its derivative.
template <typename T>
T pad_coord(T c, int64_t size, const GridOpts& o, T& m, bool vec) {
  T g = 1;
  if (o.padding == GridPadding::Border) {
    c = clip(c, size, g, vec);
    m *= g;
  } else if (o.padding == GridPadding::Reflection) {
    c = reflect(c, size, o.align_corners, g, vec);
    m *= g;
    c = clip(c, size, g, vec);
    m *= g;
  }
  return c;
}

// An integer tap position from a padded coordinate (out-of-range values land out of bounds, not in UB).
template <typename T>
int64_t to_index(T v) {
  return (v > T(-2) && v < T(9.0e18)) ? int64_t(v) : int64_t(-2);
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

// A point whose interpolation weights are NaN (PyTorch's 2-d kernel multiplies them into its masked taps):
// the forward gives NaN, the backward drops it (its scatters are masked).
template <typename T>
void nan_point(Point<T>& p, bool forward) {
  if (!forward) return;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  p.taps[p.n++] = Tap<T>{0, nan, {nan, nan, nan}, {}};
}

// Taps of grid point g (nd coordinates x, y[, z]) into an input of extents (D, H, W).
template <typename T, bool H2 = false>
void point_taps(Point<T>& p, const T* g, int nd, int64_t D, int64_t H, int64_t W, const GridOpts& o,
                bool forward = false) {
  p.n = 0;
  const bool vec = nd == 2;
  const int64_t ext[3] = {W, H, D};
  T c[3] = {0, 0, 0};
  for (int k = 0; k < nd; ++k) c[k] = unnormalize(g[k], ext[k], o.align_corners, p.mult[k], vec);
  if (o.mode == GridMode::Bicubic) {  // 2-d only; the padding applies to each tap's integer position
    if (!std::isfinite(c[0]) || !std::isfinite(c[1])) return nan_point(p, forward);
    T cx[4], dx[4], cy[4], dy[4], hx[4], hy[4];
    const T fx = std::floor(c[0]), fy = std::floor(c[1]);
    cubic_coeffs(c[0] - fx, cx, dx, H2 ? hx : nullptr);
    cubic_coeffs(c[1] - fy, cy, dy, H2 ? hy : nullptr);
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        T unused = 1;
        const int64_t xi = to_index(pad_coord(fx - T(1) + T(i), W, o, unused, vec));
        const int64_t yi = to_index(pad_coord(fy - T(1) + T(j), H, o, unused, vec));
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
  for (int k = 0; k < nd; ++k) c[k] = pad_coord(c[k], ext[k], o, p.mult[k], vec);
  if (o.mode == GridMode::Nearest) {
    const int64_t xi = to_index(std::nearbyint(c[0])), yi = to_index(std::nearbyint(c[1]));
    const int64_t zi = nd == 3 ? to_index(std::nearbyint(c[2])) : 0;
    if (xi >= 0 && xi < W && yi >= 0 && yi < H && zi >= 0 && zi < D)
      p.taps[p.n++] = Tap<T>{(zi * H + yi) * W + xi, T(1), {T(0), T(0), T(0)}, {}};
    return;
  }
  // bilinear / trilinear: corners in PyTorch's order (x fastest, then y, then z)
  if (vec && (!std::isfinite(c[0]) || !std::isfinite(c[1]))) return nan_point(p, forward);
  int64_t lo[3] = {0, 0, 0};
  T f1[3] = {0, 0, 0}, f0[3] = {1, 1, 1};  // weight of the upper / lower corner along each axis
  for (int k = 0; k < nd; ++k) {
    const T fl = std::floor(c[k]);
    lo[k] = to_index(fl);
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

int taps_per_point(const GridOpts& o, int64_t nd) {
  if (o.mode == GridMode::Nearest) return 1;
  if (o.mode == GridMode::Bicubic) return 16;
  return nd == 3 ? 8 : 4;
}

// The taps of every grid point of batch item n, K per point (missing taps: offset 0, weight 0); with
// derivatives (times the coordinate factor) when d is given.
template <typename T>
void build_table(int64_t n, int64_t S, int64_t nd, int K, const T* G, int64_t D, int64_t H, int64_t W, const GridOpts& o,
                 int64_t* off, T* w, T* d, bool forward) {
  parallel_for(0, S, std::max<int64_t>(1, kGrainSize / (K * 8)), [&](int64_t lo, int64_t hi) {
    Point<T> p;
    for (int64_t s = lo; s < hi; ++s) {
      point_taps(p, G + (n * S + s) * nd, int(nd), D, H, W, o, forward);
      for (int t = 0; t < K; ++t) {
        const bool ok = t < p.n;
        off[s * K + t] = ok ? p.taps[t].off : 0;
        w[s * K + t] = ok ? p.taps[t].w : T(0);
        if (d)
          for (int64_t k = 0; k < nd; ++k) d[(s * K + t) * nd + k] = ok ? p.taps[t].d[k] * p.mult[k] : T(0);
      }
    }
  });
}

template <typename T, int K>
void sample_row(T* oc, const T* xc, const int64_t* op, const T* wp, int64_t S) {
  for (int64_t s = 0; s < S; ++s) {
    T acc = 0;
    for (int t = 0; t < K; ++t) acc += wp[s * K + t] * xc[op[s * K + t]];
    oc[s] = acc;
  }
}

// acc (hi - lo, nd) += the grid-gradient terms of one channel for points [lo, hi) (KK / ND fixed, or 0:
// read from the table's shape through nd_rt / k_rt).
template <typename T, int KK, int ND>
void grid_grad_chunk(T* acc, const T* xc, const T* gc, const int64_t* op, const T* dp, int64_t lo, int64_t hi,
                     int k_rt = 0, int nd_rt = 0) {
  const int K = KK ? KK : k_rt, nd = ND ? ND : nd_rt;
  for (int64_t s = lo; s < hi; ++s) {
    const T go = gc[s];
    T a[3] = {0, 0, 0};
    for (int t = 0; t < K; ++t) {
      const T v = xc[op[s * K + t]] * go;
      for (int k = 0; k < nd; ++k) a[k] += dp[(s * K + t) * nd + k] * v;
    }
    for (int k = 0; k < nd; ++k) acc[(s - lo) * nd + k] += a[k];
  }
}

// One batch item at a time (the tap table is built once per item and shared by its channels); items run
// in parallel when there are enough of them, channels otherwise (nested parallel_for runs inline).
template <typename F>
void over_items(int64_t N, F&& f) {
  if (N >= 2 * get_num_threads()) parallel_for(0, N, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t n = lo; n < hi; ++n) f(n);
    });
  else
    for (int64_t n = 0; n < N; ++n) f(n);
}

void grid_sample(const TensorImpl& out, const TensorImpl& x, const TensorImpl& grid, const GridOpts& o) {
  const int64_t N = x.shape()[0], C = x.shape()[1], D = x.shape()[2], H = x.shape()[3], W = x.shape()[4];
  const int64_t S = grid.shape()[1], nd = grid.shape()[2], plane = D * H * W;
  const int K = taps_per_point(o, nd);
  dispatch_float(x.dtype(), "grid_sample", [&]<typename T>() {
    const T* X = x.data<T>();
    const T* G = grid.data<T>();
    T* O = out.data<T>();
    over_items(N, [&](int64_t n) {
      std::vector<int64_t> off(size_t(S * K));
      std::vector<T> w(size_t(S * K));
      build_table<T>(n, S, nd, K, G, D, H, W, o, off.data(), w.data(), nullptr, true);
      const int64_t* op = off.data();
      const T* wp = w.data();
      parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, S * K)), [&](int64_t lo, int64_t hi) {
        for (int64_t c = lo; c < hi; ++c) {
          const T* xc = X + (n * C + c) * plane;
          T* oc = O + (n * C + c) * S;
          switch (K) {
            case 1: sample_row<T, 1>(oc, xc, op, wp, S); break;
            case 4: sample_row<T, 4>(oc, xc, op, wp, S); break;
            case 8: sample_row<T, 8>(oc, xc, op, wp, S); break;
            default: sample_row<T, 16>(oc, xc, op, wp, S);
          }
        }
      });
    });
  });
}

void grid_sample_backward(const TensorImpl* gx, const TensorImpl* ggrid, const TensorImpl& gy, const TensorImpl& x,
                          const TensorImpl& grid, const GridOpts& o) {
  const int64_t N = x.shape()[0], C = x.shape()[1], D = x.shape()[2], H = x.shape()[3], W = x.shape()[4];
  const int64_t S = grid.shape()[1], nd = grid.shape()[2], plane = D * H * W;
  const int K = taps_per_point(o, nd);
  dispatch_float(x.dtype(), "grid_sample_backward", [&]<typename T>() {
    const T* X = x.data<T>();
    const T* G = grid.data<T>();
    const T* GY = gy.data<T>();
    T* GX = gx ? gx->data<T>() : nullptr;
    T* GG = ggrid ? ggrid->data<T>() : nullptr;
    over_items(N, [&](int64_t n) {
      std::vector<int64_t> off(size_t(S * K));
      std::vector<T> w(size_t(S * K)), d(GG ? size_t(S * K * nd) : 0);
      build_table<T>(n, S, nd, K, G, D, H, W, o, off.data(), w.data(), GG ? d.data() : nullptr, false);
      const int64_t* op = off.data();
      const T* wp = w.data();
      if (GX)
        parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, S * K)), [&](int64_t lo, int64_t hi) {
          for (int64_t c = lo; c < hi; ++c) {
            T* xc = GX + (n * C + c) * plane;
            const T* gc = GY + (n * C + c) * S;
            for (int64_t s = 0; s < S; ++s)
              for (int t = 0; t < K; ++t) xc[op[s * K + t]] += wp[s * K + t] * gc[s];
          }
        });
      if (GG && o.mode == GridMode::Nearest) {  // piecewise constant in the grid
        std::fill(GG + n * S * nd, GG + (n + 1) * S * nd, T(0));
      } else if (GG) {
        const T* dp = d.data();
        // chunks of points, channels outer: contiguous reads of the output gradient and of each plane
        parallel_for(0, S, std::max<int64_t>(64, kGrainSize / std::max<int64_t>(1, C * K)), [&](int64_t lo, int64_t hi) {
          std::vector<T> acc(size_t((hi - lo) * nd), T(0));
          auto run = [&]<int KK, int ND>() {
            for (int64_t c = 0; c < C; ++c)
              grid_grad_chunk<T, KK, ND>(acc.data(), X + (n * C + c) * plane, GY + (n * C + c) * S, op, dp, lo, hi, K,
                                         int(nd));
          };
          if (K == 4 && nd == 2) run.template operator()<4, 2>();
          else if (K == 16 && nd == 2) run.template operator()<16, 2>();
          else if (K == 8 && nd == 3) run.template operator()<8, 3>();
          else run.template operator()<0, 0>();
          std::copy(acc.begin(), acc.end(), GG + (n * S + lo) * nd);
        });
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
