// CPU kernels of separable interpolation (backend/kernels/resample.h): float32, float64 (and uint8 for the
// nearest modes). The forward runs one pass per axis, innermost first: a tap gather along W into a row
// buffer, then whole-row weighted sums along H and D (contiguous, vectorised). It computes exactly
// sum_d w_d (sum_h w_h (sum_w w_w x)), PyTorch's order. The backward runs the adjoint passes in reverse
// order, one plane per task (no write races).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/resample.h"

namespace lucid::cpu {

namespace {

template <typename T>
struct AxisT {
  int64_t in, out, K;
  bool identity;
  bool unit = false;  // one tap of weight 1 per output (nearest): a plain gather / row copy
  std::vector<int64_t> idx;
  std::vector<T> w;
};

template <typename T>
AxisT<T> typed(const ResampleAxis& a) {
  AxisT<T> r{a.in, a.out, a.K, a.in == a.out && a.K == 1, false, a.idx, {}};
  r.w.resize(a.w.size());
  r.unit = a.K == 1;
  for (size_t i = 0; i < a.w.size(); ++i) {
    r.w[i] = T(a.w[i]);
    if (a.K == 1) r.identity = r.identity && a.idx[i] == int64_t(i) && a.w[i] == 1.0;
    r.unit = r.unit && a.w[i] == 1.0;
  }
  return r;
}

// float32 / float64, and uint8 for the nearest modes (one tap of weight 1: a copy).
template <typename F>
void dispatch_interp(Dtype d, F&& f) {
  if (d == Dtype::U8) f.template operator()<uint8_t>();
  else dispatch_float(d, "interpolate", std::forward<F>(f));
}

int64_t grain_for(int64_t per_plane) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, per_plane)); }

// rows (R, in) -> (R, out) along the last axis.
template <typename T, int K>
void gather_rows(T* dst, const T* src, int64_t R, const AxisT<T>& a) {
  const int64_t k = K > 0 ? K : a.K;
  const int64_t* ix = a.idx.data();
  const T* w = a.w.data();
  for (int64_t r = 0; r < R; ++r) {
    const T* s = src + r * a.in;
    T* d = dst + r * a.out;
    for (int64_t o = 0; o < a.out; ++o) {
      T acc = 0;
      for (int64_t t = 0; t < k; ++t) acc += w[o * k + t] * s[ix[o * k + t]];
      d[o] = acc;
    }
  }
}

template <typename T>
void gather_last(T* dst, const T* src, int64_t R, const AxisT<T>& a) {
  if (a.unit) {
    const int64_t* ix = a.idx.data();
    for (int64_t r = 0; r < R; ++r) {
      const T* s = src + r * a.in;
      T* d = dst + r * a.out;
      for (int64_t o = 0; o < a.out; ++o) d[o] = s[ix[o]];
    }
    return;
  }
  switch (a.K) {
    case 1: gather_rows<T, 1>(dst, src, R, a); break;
    case 2: gather_rows<T, 2>(dst, src, R, a); break;
    case 4: gather_rows<T, 4>(dst, src, R, a); break;
    default: gather_rows<T, 0>(dst, src, R, a);
  }
}

// (B, in, L) -> (B, out, L) along the middle axis: whole rows of length L combined.
// Columns [l0, l1) of each row only (so a plane can be split across threads without write races).
template <typename T>
void combine_rows(T* dst, const T* src, int64_t B, int64_t L, const AxisT<T>& a, int64_t l0, int64_t l1) {
  for (int64_t b = 0; b < B; ++b) {
    const T* s = src + b * a.in * L + l0;
    T* d = dst + b * a.out * L + l0;
    const int64_t n = l1 - l0;
    for (int64_t o = 0; o < a.out; ++o) {
      T* dr = d + o * L;
      const T* r0 = s + a.idx[size_t(o * a.K)] * L;
      const T w0 = a.w[size_t(o * a.K)];
      if (a.unit) {
        std::memcpy(dr, r0, size_t(n) * sizeof(T));
        continue;
      }
      for (int64_t l = 0; l < n; ++l) dr[l] = w0 * r0[l];
      for (int64_t t = 1; t < a.K; ++t) {
        const T* rt = s + a.idx[size_t(o * a.K + t)] * L;
        const T wt = a.w[size_t(o * a.K + t)];
        for (int64_t l = 0; l < n; ++l) dr[l] += wt * rt[l];
      }
    }
  }
}

// The adjoint of combine_rows: dst (B, in, L) zeroed accumulates src (B, out, L).
template <typename T>
void combine_rows_adj(T* dst, const T* src, int64_t B, int64_t L, const AxisT<T>& a, int64_t l0, int64_t l1) {
  for (int64_t b = 0; b < B; ++b) {
    T* d = dst + b * a.in * L + l0;
    const T* s = src + b * a.out * L + l0;
    for (int64_t o = 0; o < a.out; ++o) {
      const T* sr = s + o * L;
      for (int64_t t = 0; t < a.K; ++t) {
        T* dr = d + a.idx[size_t(o * a.K + t)] * L;
        const T wt = a.w[size_t(o * a.K + t)];
        for (int64_t l = 0; l < l1 - l0; ++l) dr[l] += wt * sr[l];
      }
    }
  }
}

// Runs f(lo, hi) over [0, n): split across threads when `inner` (a plane split into columns or rows),
// inline otherwise (planes already run in parallel).
template <typename F>
void split(bool inner, int64_t n, int64_t cost_per_item, F&& f) {
  if (inner) parallel_for(0, n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, cost_per_item)), f);
  else f(0, n);
}

// The adjoint of gather_last: dst (R, in) zeroed accumulates src (R, out).
template <typename T>
void gather_last_adj(T* dst, const T* src, int64_t R, const AxisT<T>& a) {
  for (int64_t r = 0; r < R; ++r) {
    T* d = dst + r * a.in;
    const T* s = src + r * a.out;
    for (int64_t o = 0; o < a.out; ++o)
      for (int64_t t = 0; t < a.K; ++t) d[a.idx[size_t(o * a.K + t)]] += a.w[size_t(o * a.K + t)] * s[o];
  }
}

void interp(const TensorImpl& out, const TensorImpl& x, const ResampleGeom& g) {
  const int64_t P = x.shape()[0];
  dispatch_interp(x.dtype(), [&]<typename T>() {
    const AxisT<T> ad = typed<T>(g.ax[0]), ah = typed<T>(g.ax[1]), aw = typed<T>(g.ax[2]);
    const int64_t D = ad.in, H = ah.in, W = aw.in, OD = ad.out, OH = ah.out, OW = aw.out;
    const int64_t plane = D * H * W, L = OD * OH * OW;
    const T* X = x.data<T>();
    T* O = out.data<T>();
    const int64_t work = D * H * OW * aw.K + D * OH * OW * ah.K + L * ad.K;
    auto planes = [&](int64_t lo, int64_t hi, bool inner) {
      std::vector<T> t1(ah.identity && ad.identity ? 0 : size_t(D * H * OW));
      std::vector<T> t2(ad.identity ? 0 : size_t(D * OH * OW));
      for (int64_t p = lo; p < hi; ++p) {
        T* o = O + p * L;
        const T* xp = X + p * plane;
        T* w_out = (ah.identity && ad.identity) ? o : t1.data();
        if (aw.identity) std::memcpy(w_out, xp, size_t(plane) * sizeof(T));
        else split(inner, D * H, OW * aw.K, [&](int64_t r0, int64_t r1) {
            gather_last<T>(w_out + r0 * OW, xp + r0 * W, r1 - r0, aw);
          });
        if (ah.identity && ad.identity) continue;
        T* h_out = ad.identity ? o : t2.data();
        if (ah.identity) std::memcpy(h_out, t1.data(), size_t(D * OH * OW) * sizeof(T));
        else split(inner, OW, D * OH * ah.K, [&](int64_t l0, int64_t l1) {
            combine_rows<T>(h_out, t1.data(), D, OW, ah, l0, l1);
          });
        if (!ad.identity) split(inner, OH * OW, OD * ad.K, [&](int64_t l0, int64_t l1) {
            combine_rows<T>(o, t2.data(), 1, OH * OW, ad, l0, l1);
          });
      }
    };
    if (P < get_num_threads()) planes(0, P, true);
    else parallel_for(0, P, grain_for(work), [&](int64_t lo, int64_t hi) { planes(lo, hi, false); });
  });
}

void interp_backward(const TensorImpl& gx, const TensorImpl& gy, const ResampleGeom& g) {
  const int64_t P = gx.shape()[0];
  dispatch_float(gx.dtype(), "interpolate_backward", [&]<typename T>() {
    const AxisT<T> ad = typed<T>(g.ax[0]), ah = typed<T>(g.ax[1]), aw = typed<T>(g.ax[2]);
    const int64_t D = ad.in, H = ah.in, W = aw.in, OD = ad.out, OH = ah.out, OW = aw.out;
    const int64_t plane = D * H * W, L = OD * OH * OW;
    T* GX = gx.data<T>();
    const T* G = gy.data<T>();
    const int64_t work = D * H * OW * aw.K + D * OH * OW * ah.K + L * ad.K;
    auto planes = [&](int64_t lo, int64_t hi, bool inner) {
      std::vector<T> t2(size_t(D * OH * OW)), t1(size_t(D * H * OW));
      for (int64_t p = lo; p < hi; ++p) {
        const T* gp = G + p * L;
        const T* a2 = gp;  // (D, OH, OW)
        if (!ad.identity) {
          std::fill(t2.begin(), t2.end(), T(0));
          split(inner, OH * OW, OD * ad.K, [&](int64_t l0, int64_t l1) {
            combine_rows_adj<T>(t2.data(), gp, 1, OH * OW, ad, l0, l1);
          });
          a2 = t2.data();
        }
        const T* a1 = a2;  // (D, H, OW)
        if (!ah.identity) {
          std::fill(t1.begin(), t1.end(), T(0));
          split(inner, OW, D * OH * ah.K, [&](int64_t l0, int64_t l1) {
            combine_rows_adj<T>(t1.data(), a2, D, OW, ah, l0, l1);
          });
          a1 = t1.data();
        }
        T* gxp = GX + p * plane;
        if (aw.identity) {
          for (int64_t i = 0; i < plane; ++i) gxp[i] += a1[i];
        } else {
          split(inner, D * H, OW * aw.K, [&](int64_t r0, int64_t r1) {
            gather_last_adj<T>(gxp + r0 * W, a1 + r0 * OW, r1 - r0, aw);
          });
        }
      }
    };
    if (P < get_num_threads()) planes(0, P, true);
    else parallel_for(0, P, grain_for(work), [&](int64_t lo, int64_t hi) { planes(lo, hi, false); });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(resample_interp_kernel, CPU, &interp)
LUCID_REGISTER_KERNEL(resample_interp_backward_kernel, CPU, &interp_backward)

}  // namespace lucid::cpu
