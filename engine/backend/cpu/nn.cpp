// CPU kernels of the neural-network ops (backend/kernels/nn.h): float32 and float64.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/vec_rows.h"
#include "backend/kernels/nn.h"

namespace lucid::cpu {

namespace {

// ---- softmax / log_softmax

template <typename T>
void softmax_rows(T* out, const T* x, int64_t rows, int64_t D, bool log) {
  if constexpr (std::is_same_v<T, float>) {  // the vectorised per-ISA rows (vec_rows.h)
    const auto k = row_kernels().softmax_f32;
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, D)),
                 [&](int64_t lo, int64_t hi) { k(out + lo * D, x + lo * D, hi - lo, D, log); });
    return;
  }
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, D)), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const T* xr = x + r * D;
      T* o = out + r * D;
      T m = -std::numeric_limits<T>::infinity();
      bool nan = false;  // std::max drops NaN: note it in the same pass
      for (int64_t d = 0; d < D; ++d) {
        m = std::max(m, xr[d]);
        nan = nan || std::isnan(xr[d]);
      }
      if (nan) {  // NaN anywhere in the row makes the row NaN
        for (int64_t d = 0; d < D; ++d) o[d] = std::numeric_limits<T>::quiet_NaN();
        continue;
      }
      if (std::isinf(m) && m < 0) m = T(0);  // a row of -inf: exp gives 0s, the log gives -inf/NaN as PyTorch
      double s = 0;
      if (log) {
        T acc = 0;
        for (int64_t d = 0; d < D; ++d) acc += std::exp(xr[d] - m);
        s = double(acc);
        const T lse = m + T(std::log(s));
        for (int64_t d = 0; d < D; ++d) o[d] = xr[d] - lse;
      } else {
        T acc = 0;
        for (int64_t d = 0; d < D; ++d) {
          o[d] = std::exp(xr[d] - m);
          acc += o[d];
        }
        const T inv = T(1) / acc;
        for (int64_t d = 0; d < D; ++d) o[d] *= inv;
      }
    }
  });
}

template <typename T>
void softmax_strided(T* out, const T* x, int64_t outer, int64_t D, int64_t inner, bool log) {
  parallel_for(0, outer, 1, [&](int64_t lo, int64_t hi) {
    std::vector<T> m(static_cast<size_t>(inner)), s(static_cast<size_t>(inner));
    for (int64_t o = lo; o < hi; ++o) {
      const T* xo = x + o * D * inner;
      T* oo = out + o * D * inner;
      std::fill(m.begin(), m.end(), -std::numeric_limits<T>::infinity());
      std::fill(s.begin(), s.end(), T(0));
      for (int64_t d = 0; d < D; ++d)
        for (int64_t i = 0; i < inner; ++i) m[i] = std::max(m[i], xo[d * inner + i]);
      for (int64_t i = 0; i < inner; ++i)
        if (std::isinf(m[i]) && m[i] < 0) m[i] = T(0);
      for (int64_t d = 0; d < D; ++d)
        for (int64_t i = 0; i < inner; ++i) {
          const T e = std::exp(xo[d * inner + i] - m[i]);
          s[i] += e;
          if (!log) oo[d * inner + i] = e;
        }
      for (int64_t i = 0; i < inner; ++i) s[i] = log ? m[i] + std::log(s[i]) : T(1) / s[i];
      for (int64_t d = 0; d < D; ++d)
        for (int64_t i = 0; i < inner; ++i) {
          const T v = xo[d * inner + i];
          oo[d * inner + i] = std::isnan(v) ? v : (log ? v - s[i] : oo[d * inner + i] * s[i]);
        }
      // a NaN anywhere in a column poisons the column
      for (int64_t i = 0; i < inner; ++i)
        for (int64_t d = 0; d < D; ++d)
          if (std::isnan(xo[d * inner + i])) {
            for (int64_t e = 0; e < D; ++e) oo[e * inner + i] = std::numeric_limits<T>::quiet_NaN();
            break;
          }
    }
  });
}

void softmax(const TensorImpl& out, const TensorImpl& x, int64_t outer, int64_t D, int64_t inner, bool log) {
  dispatch_float(x.dtype(), log ? "log_softmax" : "softmax", [&]<typename T>() {
    if (inner == 1) softmax_rows<T>(out.data<T>(), x.data<T>(), outer, D, log);
    else softmax_strided<T>(out.data<T>(), x.data<T>(), outer, D, inner, log);
  });
}

// ---- NLL loss

void check_targets(const int64_t* t, int64_t N, int64_t C, int64_t ignore_index) {
  for (int64_t i = 0; i < N; ++i)
    LUCID_CHECK(t[i] == ignore_index || (t[i] >= 0 && t[i] < C), Index,
                "[nll_loss] target " << t[i] << " at position " << i << " is out of bounds for " << C << " classes");
}

void nll(const TensorImpl& out, const TensorImpl& wsum, const TensorImpl& logp, const TensorImpl& target,
         const TensorImpl* weight, int64_t ignore_index) {
  const int64_t N = logp.shape()[0], C = logp.shape()[1];
  const int64_t* t = target.data<int64_t>();
  check_targets(t, N, C, ignore_index);
  dispatch_float(logp.dtype(), "nll_loss", [&]<typename T>() {
    const T* lp = logp.data<T>();
    const T* w = weight ? weight->data<T>() : nullptr;
    T* o = out.data<T>();
    T* ws = wsum.data<T>();
    for (int64_t i = 0; i < N; ++i) {
      if (t[i] == ignore_index) {
        o[i] = T(0);
        ws[i] = T(0);
        continue;
      }
      const T wi = w ? w[t[i]] : T(1);
      o[i] = -wi * lp[i * C + t[i]];
      ws[i] = wi;
    }
  });
}

void nll_backward(const TensorImpl& grad, const TensorImpl& g, const TensorImpl& target, const TensorImpl* weight,
                  int64_t ignore_index, double scale) {
  const int64_t N = grad.shape()[0], C = grad.shape()[1];
  const int64_t* t = target.data<int64_t>();
  check_targets(t, N, C, ignore_index);
  const bool scalar_g = g.numel() == 1;
  dispatch_float(grad.dtype(), "nll_loss_backward", [&]<typename T>() {
    T* gr = grad.data<T>();
    const T* w = weight ? weight->data<T>() : nullptr;
    const T* gp = g.data<T>();
    const int64_t gs = scalar_g ? 0 : g.strides()[0];
    for (int64_t i = 0; i < N; ++i) {
      if (t[i] == ignore_index) continue;
      const T wi = w ? w[t[i]] : T(1);
      gr[i * C + t[i]] = -wi * gp[i * gs] * T(scale);
    }
  });
}


// ---- normalisation

void layer_norm(const TensorImpl& y, const TensorImpl& mean, const TensorImpl& rstd, const TensorImpl& x,
                const TensorImpl* w, const TensorImpl* b, double eps) {
  const int64_t R = x.shape()[0], D = x.shape()[1];
  dispatch_float(x.dtype(), "layer_norm", [&]<typename T>() {
    const T* X = x.data<T>();
    T* Y = y.data<T>();
    T* MU = mean.data<T>();
    T* RS = rstd.data<T>();
    const T* W = w ? w->data<T>() : nullptr;
    const T* B = b ? b->data<T>() : nullptr;
    if constexpr (std::is_same_v<T, float>) {  // the vectorised per-ISA rows (vec_rows.h)
      const auto k = row_kernels().layer_norm_f32;
      parallel_for(0, R, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, D)), [&](int64_t lo, int64_t hi) {
        k(Y + lo * D, MU + lo, RS + lo, X + lo * D, W, B, hi - lo, D, eps);
      });
      return;
    }
    parallel_for(0, R, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, D)), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const T* xr = X + r * D;
        double s = 0;
        for (int64_t d = 0; d < D; ++d) s += double(xr[d]);
        const double mu = D ? s / double(D) : 0.0;
        double ss = 0;
        for (int64_t d = 0; d < D; ++d) {
          const double c = double(xr[d]) - mu;
          ss += c * c;
        }
        const double rs = 1.0 / std::sqrt((D ? ss / double(D) : 0.0) + eps);
        MU[r] = T(mu);
        RS[r] = T(rs);
        const T m = T(mu), q = T(rs);
        T* yr = Y + r * D;
        if (W && B) for (int64_t d = 0; d < D; ++d) yr[d] = (xr[d] - m) * q * W[d] + B[d];
        else if (W) for (int64_t d = 0; d < D; ++d) yr[d] = (xr[d] - m) * q * W[d];
        else if (B) for (int64_t d = 0; d < D; ++d) yr[d] = (xr[d] - m) * q + B[d];
        else for (int64_t d = 0; d < D; ++d) yr[d] = (xr[d] - m) * q;
      }
    });
  });
}

void batch_norm(const TensorImpl& y, const TensorImpl& mean, const TensorImpl& rstd, const TensorImpl* var,
                const TensorImpl& x, const TensorImpl* w, const TensorImpl* b, double eps, bool stats_given) {
  const int64_t N = x.shape()[0], C = x.shape()[1], S = x.shape()[2];
  dispatch_float(x.dtype(), "batch_norm", [&]<typename T>() {
    const T* X = x.data<T>();
    T* Y = y.data<T>();
    T* MU = mean.data<T>();
    T* RS = rstd.data<T>();
    T* V = var ? var->data<T>() : nullptr;
    const T* W = w ? w->data<T>() : nullptr;
    const T* B = b ? b->data<T>() : nullptr;
    if (S < 16) {  // few values per (n, c) (BatchNorm1d): column sums down the rows, runs of C*S contiguous
      const int64_t CS = C * S;
      parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * S)), [&](int64_t lo, int64_t hi) {
        const int64_t j0 = lo * S, len = (hi - lo) * S;
        std::vector<double> acc(static_cast<size_t>(len), 0.0), col(static_cast<size_t>(len), 0.0);
        if (!stats_given) {
          const double cnt = double(N * S);
          for (int64_t n = 0; n < N; ++n) {
            const T* xp = X + n * CS + j0;
            for (int64_t j = 0; j < len; ++j) acc[j] += double(xp[j]);
          }
          for (int64_t c = lo; c < hi; ++c) {
            double sum = 0;
            for (int64_t k = 0; k < S; ++k) sum += acc[(c - lo) * S + k];
            for (int64_t k = 0; k < S; ++k) col[(c - lo) * S + k] = cnt ? sum / cnt : 0.0;
          }
          std::fill(acc.begin(), acc.end(), 0.0);
          for (int64_t n = 0; n < N; ++n) {  // squared deviations from the double mean
            const T* xp = X + n * CS + j0;
            for (int64_t j = 0; j < len; ++j) {
              const double d = double(xp[j]) - col[j];
              acc[j] += d * d;
            }
          }
          for (int64_t c = lo; c < hi; ++c) {
            double ss = 0;
            for (int64_t k = 0; k < S; ++k) ss += acc[(c - lo) * S + k];
            const double v = cnt ? ss / cnt : 0.0;
            MU[c] = T(col[(c - lo) * S]);
            RS[c] = T(1.0 / std::sqrt(v + eps));
            if (V) V[c] = T(v);
          }
        }
        std::vector<T> sc(static_cast<size_t>(len)), sh(static_cast<size_t>(len));
        for (int64_t c = lo; c < hi; ++c) {
          const T m = MU[c], q = RS[c];
          const T scale = W ? q * W[c] : q, shift = (B ? B[c] : T(0)) - m * scale;
          for (int64_t k = 0; k < S; ++k) {
            sc[(c - lo) * S + k] = scale;
            sh[(c - lo) * S + k] = shift;
          }
        }
        for (int64_t n = 0; n < N; ++n) {
          const T* xp = X + n * CS + j0;
          T* yp = Y + n * CS + j0;
          for (int64_t j = 0; j < len; ++j) yp[j] = xp[j] * sc[j] + sh[j];
        }
      });
      return;
    }
    if constexpr (std::is_same_v<T, float>) {  // rows of S: the vectorised per-ISA loops (vec_rows.h)
      {
        const RowKernels& k = row_kernels();
        parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * S)), [&](int64_t lo, int64_t hi) {
          for (int64_t c = lo; c < hi; ++c) {
            if (!stats_given) {
              double mu = 0, v = 0;
              k.bn_stats_f32(X + c * S, N, S, C * S, &mu, &v);
              MU[c] = T(mu);
              RS[c] = T(1.0 / std::sqrt(v + eps));
              if (V) V[c] = T(v);
            }
            const T m = MU[c], q = RS[c];
            const T scale = W ? q * W[c] : q, shift = (B ? B[c] : T(0)) - m * scale;
            k.bn_apply_f32(Y + c * S, X + c * S, N, S, C * S, scale, shift);
          }
        });
        return;
      }
    }
    parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * S)), [&](int64_t lo, int64_t hi) {
      for (int64_t c = lo; c < hi; ++c) {
        if (!stats_given) {
          double s = 0;
          for (int64_t n = 0; n < N; ++n) {
            const T* xp = X + (n * C + c) * S;
            for (int64_t i = 0; i < S; ++i) s += double(xp[i]);
          }
          const double cnt = double(N * S), mu = cnt ? s / cnt : 0.0;
          double ss = 0;
          for (int64_t n = 0; n < N; ++n) {
            const T* xp = X + (n * C + c) * S;
            for (int64_t i = 0; i < S; ++i) {
              const double d = double(xp[i]) - mu;
              ss += d * d;
            }
          }
          const double v = cnt ? ss / cnt : 0.0;
          MU[c] = T(mu);
          RS[c] = T(1.0 / std::sqrt(v + eps));
          if (V) V[c] = T(v);
        }
        const T m = MU[c], q = RS[c];
        const T scale = W ? q * W[c] : q, shift = (B ? B[c] : T(0)) - m * scale;
        for (int64_t n = 0; n < N; ++n) {
          const T* xp = X + (n * C + c) * S;
          T* yp = Y + (n * C + c) * S;
          for (int64_t i = 0; i < S; ++i) yp[i] = xp[i] * scale + shift;
        }
      }
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(layer_norm_kernel, CPU, &layer_norm)
LUCID_REGISTER_KERNEL(batch_norm_kernel, CPU, &batch_norm)

LUCID_REGISTER_KERNEL(softmax_kernel, CPU, &softmax)
LUCID_REGISTER_KERNEL(nll_kernel, CPU, &nll)
LUCID_REGISTER_KERNEL(nll_backward_kernel, CPU, &nll_backward)

}  // namespace lucid::cpu
