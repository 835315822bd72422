// CPU kernels of the margin losses (backend/kernels/loss_margin.h): one pass per sample, samples in
// parallel; float32 and float64.
#include <algorithm>
#include <cstdint>
#include <vector>

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

// One sample of the multilabel margin loss: with G null the loss, else the gradient row scaled by gn.
template <typename T>
T ml_row(const T* r, const int64_t* tr, int64_t C, std::vector<char>& is_t, T* G, T gn) {
  int64_t k = 0;
  std::fill(is_t.begin(), is_t.end(), 0);
  while (k < C && tr[k] >= 0) is_t[size_t(tr[k++])] = 1;
  const T c = gn / T(C);
  if (G) std::fill(G, G + C, T(0));
  T s = 0;
  for (int64_t d = 0; d < k; ++d) {
    const int64_t j = tr[d];
    const T xj = r[j];
    for (int64_t i = 0; i < C; ++i) {
      if (is_t[size_t(i)]) continue;
      const T z = T(1) - xj + r[i];
      if (z > T(0)) {
        if (G) { G[i] += c; G[j] -= c; }
        else s += z;
      }
    }
  }
  return s / T(C);
}

template <typename T>
void ml_run(const TensorImpl* gx, const TensorImpl* g, const TensorImpl* out, const TensorImpl& x,
            const TensorImpl& t) {
  const int64_t N = x.shape()[0], C = x.shape()[1];
  const T* xp = static_cast<const T*>(x.data_ptr());
  const int64_t* tp = static_cast<const int64_t*>(t.data_ptr());
  const T* gp = g ? static_cast<const T*>(g->data_ptr()) : nullptr;
  T* G = gx ? static_cast<T*>(gx->data_ptr()) : nullptr;
  T* o = out ? static_cast<T*>(out->data_ptr()) : nullptr;
  parallel_for(0, N, 1 + kGrainSize / (C * C + 1), [&](int64_t lo, int64_t hi) {
    std::vector<char> is_t(static_cast<size_t>(C));
    for (int64_t n = lo; n < hi; ++n) {
      const T v = ml_row<T>(xp + n * C, tp + n * C, C, is_t, G ? G + n * C : nullptr, gp ? gp[n] : T(1));
      if (o) o[n] = v;
    }
  });
}

void multilabel_margin(const TensorImpl& out, const TensorImpl& x, const TensorImpl& t) {
  if (x.dtype() == Dtype::F64) ml_run<double>(nullptr, nullptr, &out, x, t);
  else ml_run<float>(nullptr, nullptr, &out, x, t);
}

void multilabel_margin_backward(const TensorImpl& gx, const TensorImpl& g, const TensorImpl& x, const TensorImpl& t) {
  if (x.dtype() == Dtype::F64) ml_run<double>(&gx, &g, nullptr, x, t);
  else ml_run<float>(&gx, &g, nullptr, x, t);
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
LUCID_REGISTER_KERNEL(multilabel_margin_kernel, CPU, &multilabel_margin)
LUCID_REGISTER_KERNEL(multilabel_margin_backward_kernel, CPU, &multilabel_margin_backward)

}  // namespace lucid::cpu
