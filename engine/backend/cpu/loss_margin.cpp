// CPU kernels of the margin losses (backend/kernels/loss_margin.h): one pass per sample, samples in
// parallel; float32 and float64.
#include <cstdint>

#include "backend/cpu/parallel.h"
#include "backend/kernels/loss_margin.h"

namespace lucid::cpu {

namespace {

template <typename T>
void mm_forward(const TensorImpl& out, const TensorImpl& x, const TensorImpl& t, const TensorImpl* w, int p,
                double margin) {
  const int64_t N = x.shape()[0], C = x.shape()[1];
  const T* xp = static_cast<const T*>(x.data_ptr());
  const int64_t* tp = static_cast<const int64_t*>(t.data_ptr());
  const T* wp = w ? static_cast<const T*>(w->data_ptr()) : nullptr;
  T* o = static_cast<T*>(out.data_ptr());
  const T m = T(margin);
  parallel_for(0, N, 1 + kGrainSize / (C + 1), [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n) {
      const T* r = xp + n * C;
      const int64_t y = tp[n];
      const T xy = r[y];
      T s = 0;
      for (int64_t j = 0; j < C; ++j) {
        if (j == y) continue;
        const T z = m - xy + r[j];
        if (z > T(0)) s += p == 1 ? z : z * z;
      }
      o[n] = s * (wp ? wp[y] : T(1)) / T(C);
    }
  });
}

template <typename T>
void mm_backward(const TensorImpl& gx, const TensorImpl& g, const TensorImpl& x, const TensorImpl& t,
                 const TensorImpl* w, int p, double margin) {
  const int64_t N = x.shape()[0], C = x.shape()[1];
  const T* xp = static_cast<const T*>(x.data_ptr());
  const T* gp = static_cast<const T*>(g.data_ptr());
  const int64_t* tp = static_cast<const int64_t*>(t.data_ptr());
  const T* wp = w ? static_cast<const T*>(w->data_ptr()) : nullptr;
  T* o = static_cast<T*>(gx.data_ptr());
  const T m = T(margin);
  parallel_for(0, N, 1 + kGrainSize / (C + 1), [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n) {
      const T* r = xp + n * C;
      T* q = o + n * C;
      const int64_t y = tp[n];
      const T xy = r[y];
      const T c = gp[n] * (wp ? wp[y] : T(1)) / T(C);
      T s = 0;
      for (int64_t j = 0; j < C; ++j) {
        const T z = m - xy + r[j];
        const T d = (j != y && z > T(0)) ? (p == 1 ? c : T(2) * c * z) : T(0);
        q[j] = d;
        s += d;
      }
      q[y] = -s;
    }
  });
}

void multi_margin(const TensorImpl& out, const TensorImpl& x, const TensorImpl& t, const TensorImpl* w, int p,
                  double margin) {
  if (x.dtype() == Dtype::F64) mm_forward<double>(out, x, t, w, p, margin);
  else mm_forward<float>(out, x, t, w, p, margin);
}

void multi_margin_backward(const TensorImpl& gx, const TensorImpl& g, const TensorImpl& x, const TensorImpl& t,
                           const TensorImpl* w, int p, double margin) {
  if (x.dtype() == Dtype::F64) mm_backward<double>(gx, g, x, t, w, p, margin);
  else mm_backward<float>(gx, g, x, t, w, p, margin);
}

}  // namespace

LUCID_REGISTER_KERNEL(multi_margin_kernel, CPU, &multi_margin)
LUCID_REGISTER_KERNEL(multi_margin_backward_kernel, CPU, &multi_margin_backward)

}  // namespace lucid::cpu
