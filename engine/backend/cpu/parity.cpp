// CPU kernels of the API-parity task's fused ops (backend/kernels/parity.h): embedding_bag, float32/float64.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/parity.h"

namespace lucid::cpu {

namespace {

void embedding_bag(const TensorImpl& out, const TensorImpl* argmax, const TensorImpl& weight, const TensorImpl& indices,
                   const int64_t* bounds, int64_t B, const TensorImpl* psw, EmbeddingBagMode mode, int64_t pad) {
  const int64_t D = weight.shape()[1];
  const int64_t* idx = indices.data<int64_t>();
  int64_t* A = argmax ? argmax->data<int64_t>() : nullptr;
  // one bag per task; a grain of bags covering ~kGrainSize touched elements
  const int64_t M = bounds[B] - bounds[0];
  const int64_t per_bag = std::max<int64_t>(1, (M / std::max<int64_t>(1, B) + 1) * D);
  dispatch_float(weight.dtype(), "embedding_bag", [&]<typename T>() {
    const T* W = weight.data<T>();
    const T* P = psw ? psw->data<T>() : nullptr;
    T* O = out.data<T>();
    parallel_for(0, B, std::max<int64_t>(1, kGrainSize / per_bag), [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        T* o = O + b * D;
        std::fill(o, o + D, T(0));
        const int64_t s = bounds[b], e = bounds[b + 1];
        if (mode == EmbeddingBagMode::Max) {
          int64_t* a = A + b * D;
          std::fill(a, a + D, int64_t(-1));
          bool first = true;
          for (int64_t i = s; i < e; ++i) {
            const int64_t r = idx[i];
            if (r == pad) continue;
            const T* w = W + r * D;
            if (first) {
              std::memcpy(o, w, size_t(D) * sizeof(T));
              std::fill(a, a + D, r);
              first = false;
              continue;
            }
            for (int64_t d = 0; d < D; ++d)
              if (w[d] > o[d]) o[d] = w[d], a[d] = r;
          }
          continue;
        }
        int64_t count = 0;
        for (int64_t i = s; i < e; ++i) {
          const int64_t r = idx[i];
          if (r == pad) continue;
          ++count;
          const T* w = W + r * D;
          if (P) {
            const T p = P[i];
            for (int64_t d = 0; d < D; ++d) o[d] += p * w[d];
          } else {
            for (int64_t d = 0; d < D; ++d) o[d] += w[d];
          }
        }
        if (mode == EmbeddingBagMode::Mean && count > 1) {
          const T c = T(count);
          for (int64_t d = 0; d < D; ++d) o[d] /= c;
        }
      }
    });
  });
}

void embedding_bag_backward(const TensorImpl& gw, const TensorImpl& g, const TensorImpl& rows, const TensorImpl& bags,
                            const TensorImpl* scale) {
  const int64_t V = gw.shape()[0], D = gw.shape()[1], K = rows.numel();
  const int64_t* R = rows.data<int64_t>();
  const int64_t* Bg = bags.data<int64_t>();
  dispatch_float(gw.dtype(), "embedding_bag_backward", [&]<typename T>() {
    T* GW = gw.data<T>();
    const T* G = g.data<T>();
    const T* S = scale ? scale->data<T>() : nullptr;
    std::fill(GW, GW + V * D, T(0));
    // threads own column ranges, so no two write the same element; entries run in order (deterministic sums)
    const int64_t cols = std::max<int64_t>(1, std::min<int64_t>(D, 16));
    const int64_t chunks = (D + cols - 1) / cols;
    parallel_for(0, chunks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, K * cols)), [&](int64_t lo, int64_t hi) {
      const int64_t d0 = lo * cols, d1 = std::min(D, hi * cols);
      for (int64_t k = 0; k < K; ++k) {
        T* dst = GW + R[k] * D;
        const T* src = G + Bg[k] * D;
        if (S) {
          const T s = S[k];
          for (int64_t d = d0; d < d1; ++d) dst[d] += src[d] * s;
        } else {
          for (int64_t d = d0; d < d1; ++d) dst[d] += src[d];
        }
      }
    });
  });
}

void rms_norm(const TensorImpl& y, const TensorImpl& rstd, const TensorImpl& x, const TensorImpl* w, double eps) {
  const int64_t R = x.shape()[0], D = x.shape()[1];
  dispatch_float(x.dtype(), "rms_norm", [&]<typename T>() {
    const T* X = x.data<T>();
    T* Y = y.data<T>();
    T* RS = rstd.data<T>();
    const T* W = w ? w->data<T>() : nullptr;
    parallel_for(0, R, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, D)), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const T* xr = X + r * D;
        double ss = 0;
        for (int64_t d = 0; d < D; ++d) ss += double(xr[d]) * double(xr[d]);
        const T q = T(1.0 / std::sqrt((D ? ss / double(D) : 0.0) + eps));
        RS[r] = q;
        T* yr = Y + r * D;
        if (W) for (int64_t d = 0; d < D; ++d) yr[d] = xr[d] * q * W[d];
        else for (int64_t d = 0; d < D; ++d) yr[d] = xr[d] * q;
      }
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(embedding_bag_kernel, CPU, &embedding_bag)
LUCID_REGISTER_KERNEL(rms_norm_kernel, CPU, &rms_norm)
LUCID_REGISTER_KERNEL(embedding_bag_backward_kernel, CPU, &embedding_bag_backward)

}  // namespace lucid::cpu
