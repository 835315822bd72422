// CPU kernels of lucid's own fused layers (backend/kernels/extra.h): RoPE (angles in float64, one
// cos/sin table over the distinct positions, shared by the rows that use them) and the fused linear
// epilogue (bias + relu in one pass over the GEMM output). parallel_for over rows.
#include <cmath>
#include <vector>

#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/extra.h"

namespace lucid::cpu {

namespace {

void rope(const TensorImpl& out, const TensorImpl& x, const TensorImpl* pos, const TensorImpl* idx, int64_t T,
          double base, bool interleaved, double sign) {
  dispatch_float(x.dtype(), "rope", [&]<typename S>() {
    const int64_t D = x.shape().back(), H = D / 2, R = x.numel() / D;
    const int64_t P = pos ? pos->numel() : T;
    std::vector<double> inv_freq(H);
    for (int64_t i = 0; i < H; ++i) inv_freq[i] = std::pow(base, -2.0 * double(i) / double(D));
    // cos/sin of every distinct position, angles in float64
    std::vector<S> ctab(P * H), stab(P * H);
    const double* PV = pos ? pos->data<double>() : nullptr;
    parallel_for(0, P, std::max<int64_t>(1, kGrainSize / 16 / std::max<int64_t>(H, 1)), [&](int64_t lo, int64_t hi) {
      for (int64_t t = lo; t < hi; ++t) {
        const double p = PV ? PV[t] : double(t);
        for (int64_t i = 0; i < H; ++i) {
          const double th = p * inv_freq[i];
          ctab[t * H + i] = S(std::cos(th));
          stab[t * H + i] = S(sign * std::sin(th));
        }
      }
    });
    const S* X = x.data<S>();
    S* O = out.data<S>();
    const int64_t* I = idx ? idx->data<int64_t>() : nullptr;
    parallel_for(0, R, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(D, 1)), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const int64_t row = I ? I[r] : r % T;
        const S* __restrict c = ctab.data() + row * H;
        const S* __restrict s = stab.data() + row * H;
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

void linear_act_epilogue(LinearAct act, const TensorImpl& z, const TensorImpl* bias) {
  dispatch_float(z.dtype(), "linear_act", [&]<typename S>() {
    const int64_t N = z.shape().back(), M = N ? z.numel() / N : 0;
    S* Z = z.data<S>();
    const S* B = bias ? bias->data<S>() : nullptr;
    parallel_for(0, M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(N, 1)), [&](int64_t lo, int64_t hi) {
      for (int64_t m = lo; m < hi; ++m) {
        S* __restrict zr = Z + m * N;
        if (B && act == LinearAct::Relu)
          for (int64_t n = 0; n < N; ++n) {
            const S v = zr[n] + B[n];
            zr[n] = v < S(0) ? S(0) : v;  // NaN passes through, as torch.relu
          }
        else if (B)
          for (int64_t n = 0; n < N; ++n) zr[n] += B[n];
        else if (act == LinearAct::Relu)
          for (int64_t n = 0; n < N; ++n) zr[n] = zr[n] < S(0) ? S(0) : zr[n];
      }
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(rope_kernel, CPU, rope)
LUCID_REGISTER_KERNEL(linear_act_epilogue_kernel, CPU, linear_act_epilogue)

}  // namespace lucid::cpu
