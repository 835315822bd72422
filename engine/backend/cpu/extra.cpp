// CPU kernels of lucid's own fused layers (backend/kernels/extra.h): RoPE (angles in float64, one
// cos/sin table shared by every row when positions are implicit) and the fused linear epilogue
// (bias + activation in one pass over the GEMM output). parallel_for over rows.
#include <cmath>
#include <vector>

#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/extra.h"

namespace lucid::cpu {

namespace {

void rope(const TensorImpl& out, const TensorImpl& x, const TensorImpl* pos, int64_t T, double base, bool interleaved,
          double sign) {
  dispatch_float(x.dtype(), "rope", [&]<typename S>() {
    const int64_t D = x.shape().back(), H = D / 2, R = x.numel() / D;
    std::vector<double> inv_freq(H);
    for (int64_t i = 0; i < H; ++i) inv_freq[i] = std::pow(base, -2.0 * double(i) / double(D));
    std::vector<S> ctab, stab;  // (T, H) when positions are implicit
    if (!pos) {
      ctab.resize(T * H);
      stab.resize(T * H);
      parallel_for(0, T, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(H, 1) / 8), [&](int64_t lo, int64_t hi) {
        for (int64_t t = lo; t < hi; ++t)
          for (int64_t i = 0; i < H; ++i) {
            const double th = double(t) * inv_freq[i];
            ctab[t * H + i] = S(std::cos(th));
            stab[t * H + i] = S(sign * std::sin(th));
          }
      });
    }
    const S* X = x.data<S>();
    S* O = out.data<S>();
    const double* P = pos ? pos->data<double>() : nullptr;
    parallel_for(0, R, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(D, 1)), [&](int64_t lo, int64_t hi) {
      std::vector<S> cb(H), sb(H);
      for (int64_t r = lo; r < hi; ++r) {
        const S* c;
        const S* s;
        if (P) {
          const double p = P[r];
          for (int64_t i = 0; i < H; ++i) {
            const double th = p * inv_freq[i];
            cb[i] = S(std::cos(th));
            sb[i] = S(sign * std::sin(th));
          }
          c = cb.data();
          s = sb.data();
        } else {
          c = ctab.data() + (r % T) * H;
          s = stab.data() + (r % T) * H;
        }
        const S* __restrict xr = X + r * D;
        S* __restrict o = O + r * D;
        if (interleaved) {
          for (int64_t i = 0; i < H; ++i) {
            const S a = xr[2 * i], b = xr[2 * i + 1];
            o[2 * i] = a * c[i] - b * s[i];
            o[2 * i + 1] = a * s[i] + b * c[i];
          }
        } else {
          for (int64_t i = 0; i < H; ++i) {
            const S a = xr[i], b = xr[i + H];
            o[i] = a * c[i] - b * s[i];
            o[i + H] = a * s[i] + b * c[i];
          }
        }
      }
    });
  });
}

template <typename S>
inline S act_value(LinearAct act, S v) {
  switch (act) {
    case LinearAct::Relu: return v < S(0) ? S(0) : v;  // NaN passes through, as torch.relu
    case LinearAct::Gelu: return S(0.5) * v * (S(1) + std::erf(v * S(M_SQRT1_2)));
    default: {
      const S k = S(0.7978845608028654);  // sqrt(2 / pi)
      return S(0.5) * v * (S(1) + std::tanh(k * (v + S(0.044715) * v * v * v)));
    }
  }
}

void linear_act_epilogue(LinearAct act, const TensorImpl& y, const TensorImpl& z, const TensorImpl* bias) {
  dispatch_float(z.dtype(), "linear_act", [&]<typename S>() {
    const int64_t N = z.shape().back(), M = N ? z.numel() / N : 0;
    S* Z = z.data<S>();
    S* Y = y.data<S>();
    const S* B = bias ? bias->data<S>() : nullptr;
    parallel_for(0, M, std::max<int64_t>(1, kGrainSize / 8 / std::max<int64_t>(N, 1)), [&](int64_t lo, int64_t hi) {
      for (int64_t m = lo; m < hi; ++m) {
        S* __restrict zr = Z + m * N;
        S* yr = Y + m * N;
        if (B)
          for (int64_t n = 0; n < N; ++n) zr[n] += B[n];
        if (act == LinearAct::Relu)
          for (int64_t n = 0; n < N; ++n) yr[n] = zr[n] < S(0) ? S(0) : zr[n];
        else
          for (int64_t n = 0; n < N; ++n) yr[n] = act_value(act, zr[n]);
      }
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(rope_kernel, CPU, rope)
LUCID_REGISTER_KERNEL(linear_act_epilogue_kernel, CPU, linear_act_epilogue)

}  // namespace lucid::cpu
