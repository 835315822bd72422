// CPU kernels of the CTC loss (backend/kernels/loss.h): the forward (alpha) and backward (beta)
// recursions in log space, one sample per task; float32 and float64.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/cpu/parallel.h"
#include "backend/kernels/loss.h"

namespace lucid::cpu {

namespace {

template <typename T>
inline T lse2(T a, T b) {
  const T m = std::max(a, b);
  if (m == -std::numeric_limits<T>::infinity()) return m;
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}
template <typename T>
inline T lse3(T a, T b, T c) {
  const T m = std::max(a, std::max(b, c));
  if (m == -std::numeric_limits<T>::infinity()) return m;
  return m + std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m));
}

struct Sample {
  const int64_t* tgt;
  int64_t L, Tn;
};

// The extended label l'(s): blank at even s, tgt[s / 2] at odd s.
inline int64_t ext(const Sample& s, int64_t blank, int64_t i) { return (i & 1) ? s.tgt[i / 2] : blank; }

// alpha (Tn x S) in log space; returns nll.
template <typename T>
T alphas(std::vector<T>& a, const T* lp, int64_t N, int64_t C, int64_t n, const Sample& sm, int64_t blank) {
  const T ninf = -std::numeric_limits<T>::infinity();
  const int64_t S = 2 * sm.L + 1, Tn = sm.Tn;
  if (Tn == 0) return sm.L == 0 ? T(0) : std::numeric_limits<T>::infinity();
  a.assign(size_t(Tn * S), ninf);
  auto LP = [&](int64_t t, int64_t c) { return lp[(t * N + n) * C + c]; };
  a[0] = LP(0, blank);
  if (S > 1) a[1] = LP(0, ext(sm, blank, 1));
  for (int64_t t = 1; t < Tn; ++t) {
    const T* prev = a.data() + (t - 1) * S;
    T* cur = a.data() + t * S;
    for (int64_t s = 0; s < S; ++s) {
      const int64_t l = ext(sm, blank, s);
      T v = prev[s];
      if (s >= 1) {
        const T skip = (s >= 2 && l != blank && l != ext(sm, blank, s - 2)) ? prev[s - 2] : ninf;
        v = lse3(v, prev[s - 1], skip);
      }
      cur[s] = v == ninf ? ninf : v + LP(t, l);
    }
  }
  const T* last = a.data() + (Tn - 1) * S;
  const T ll = S > 1 ? lse2(last[S - 1], last[S - 2]) : last[0];
  return -ll;
}

template <typename T>
void forward(const TensorImpl& nll, const TensorImpl& lpt, const TensorImpl& targets, const TensorImpl& offsets,
             const TensorImpl& ilen, const TensorImpl& tlen, int64_t blank) {
  const int64_t N = lpt.shape()[1], C = lpt.shape()[2];
  const T* lp = static_cast<const T*>(lpt.data_ptr());
  const int64_t* tg = static_cast<const int64_t*>(targets.data_ptr());
  const int64_t* off = static_cast<const int64_t*>(offsets.data_ptr());
  const int64_t* il = static_cast<const int64_t*>(ilen.data_ptr());
  const int64_t* tl = static_cast<const int64_t*>(tlen.data_ptr());
  T* out = static_cast<T*>(nll.data_ptr());
  parallel_for(0, N, 1, [&](int64_t lo, int64_t hi) {
    std::vector<T> a;
    for (int64_t n = lo; n < hi; ++n) out[n] = alphas<T>(a, lp, N, C, n, {tg + off[n], tl[n], il[n]}, blank);
  });
}

template <typename T>
void backward(const TensorImpl& grad, const TensorImpl& gt, const TensorImpl& lpt, const TensorImpl& targets,
              const TensorImpl& offsets, const TensorImpl& ilen, const TensorImpl& tlen, const TensorImpl& nllt,
              int64_t blank, bool zero_infinity) {
  const int64_t T_ = lpt.shape()[0], N = lpt.shape()[1], C = lpt.shape()[2];
  const T* lp = static_cast<const T*>(lpt.data_ptr());
  const T* g = static_cast<const T*>(gt.data_ptr());
  const T* nllp = static_cast<const T*>(nllt.data_ptr());
  const int64_t* tg = static_cast<const int64_t*>(targets.data_ptr());
  const int64_t* off = static_cast<const int64_t*>(offsets.data_ptr());
  const int64_t* il = static_cast<const int64_t*>(ilen.data_ptr());
  const int64_t* tl = static_cast<const int64_t*>(tlen.data_ptr());
  T* gr = static_cast<T*>(grad.data_ptr());
  const T ninf = -std::numeric_limits<T>::infinity();
  parallel_for(0, N, 1, [&](int64_t lo, int64_t hi) {
    std::vector<T> a, b;
    std::vector<T> lcab(static_cast<size_t>(C));
    for (int64_t n = lo; n < hi; ++n) {
      const Sample sm{tg + off[n], tl[n], il[n]};
      const int64_t S = 2 * sm.L + 1, Tn = sm.Tn;
      auto LP = [&](int64_t t, int64_t c) { return lp[(t * N + n) * C + c]; };
      auto GR = [&](int64_t t, int64_t c) -> T& { return gr[(t * N + n) * C + c]; };
      for (int64_t t = Tn; t < T_; ++t)
        for (int64_t c = 0; c < C; ++c) GR(t, c) = T(0);
      const T nll = nllp[n];
      if (Tn == 0) continue;
      if (zero_infinity && std::isinf(nll)) {
        for (int64_t t = 0; t < Tn; ++t)
          for (int64_t c = 0; c < C; ++c) GR(t, c) = T(0);
        continue;
      }
      alphas<T>(a, lp, N, C, n, sm, blank);
      b.assign(size_t(Tn * S), ninf);
      T* lastb = b.data() + (Tn - 1) * S;
      lastb[S - 1] = LP(Tn - 1, ext(sm, blank, S - 1));
      if (S > 1) lastb[S - 2] = LP(Tn - 1, ext(sm, blank, S - 2));
      for (int64_t t = Tn - 2; t >= 0; --t) {
        const T* nxt = b.data() + (t + 1) * S;
        T* cur = b.data() + t * S;
        for (int64_t s = 0; s < S; ++s) {
          const int64_t l = ext(sm, blank, s);
          T v = nxt[s];
          if (s + 1 < S) {
            const T skip = (s + 2 < S && l != blank && l != ext(sm, blank, s + 2)) ? nxt[s + 2] : ninf;
            v = lse3(v, nxt[s + 1], skip);
          }
          cur[s] = v == ninf ? ninf : v + LP(t, l);
        }
      }
      const T gn = g[n];
      for (int64_t t = 0; t < Tn; ++t) {
        std::fill(lcab.begin(), lcab.end(), ninf);
        const T* at = a.data() + t * S;
        const T* bt = b.data() + t * S;
        for (int64_t s = 0; s < S; ++s) {
          const int64_t l = ext(sm, blank, s);
          lcab[size_t(l)] = lse2(lcab[size_t(l)], at[s] + bt[s]);
        }
        for (int64_t c = 0; c < C; ++c) {
          const T l = LP(t, c);
          GR(t, c) = (std::exp(l) - std::exp(lcab[size_t(c)] + nll - l)) * gn;
        }
      }
    }
  });
}

void ctc_fwd(const TensorImpl& nll, const TensorImpl& lp, const TensorImpl& targets, const TensorImpl& offsets,
             const TensorImpl& ilen, const TensorImpl& tlen, int64_t blank) {
  if (lp.dtype() == Dtype::F64) forward<double>(nll, lp, targets, offsets, ilen, tlen, blank);
  else forward<float>(nll, lp, targets, offsets, ilen, tlen, blank);
}

void ctc_bwd(const TensorImpl& grad, const TensorImpl& g, const TensorImpl& lp, const TensorImpl& targets,
             const TensorImpl& offsets, const TensorImpl& ilen, const TensorImpl& tlen, const TensorImpl& nll,
             int64_t blank, bool zero_infinity) {
  if (lp.dtype() == Dtype::F64) backward<double>(grad, g, lp, targets, offsets, ilen, tlen, nll, blank, zero_infinity);
  else backward<float>(grad, g, lp, targets, offsets, ilen, tlen, nll, blank, zero_infinity);
}

}  // namespace

LUCID_REGISTER_KERNEL(ctc_loss_kernel, CPU, &ctc_fwd)
LUCID_REGISTER_KERNEL(ctc_loss_backward_kernel, CPU, &ctc_bwd)

}  // namespace lucid::cpu
