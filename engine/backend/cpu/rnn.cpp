// CPU kernels of the fused recurrent cells (backend/kernels/rnn.h): one pass over each batch row,
// branch-free inner loops over the hidden units (the compiler vectorises them), parallel_for over
// the batch for large cells. float32 uses the Cephes-style exp/tanh of backend/cpu/activation.cpp
// (copied: those live in that file's anonymous namespace); float64 uses libm.
#include <cmath>
#include <cstring>
#include <limits>

#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/vmath.h"
#include "backend/kernels/rnn.h"

namespace lucid::cpu {

namespace {

using namespace vmath;

template <typename T>
inline T m_tanh(T x) { if constexpr (std::is_same_v<T, float>) return vtanh(x); else return std::tanh(x); }
template <typename T>
inline T m_sigmoid(T x) {
  if constexpr (std::is_same_v<T, float>) return 1.0f / (1.0f + vexp(-x));
  else return T(1) / (T(1) + std::exp(-x));
}

// Rows per chunk so that a chunk holds about kGrainSize / 2 hidden units' work.
int64_t row_grain(int64_t H) { return std::max<int64_t>(1, kGrainSize / 2 / std::max<int64_t>(1, H)); }

// One batch row per call: restrict pointers, everything inlined (flatten), and one clone per ISA level
// so the loops over hidden units vectorise at the widest width the CPU has (as activation.cpp's).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LUCID_RNN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), flatten))
#else
#define LUCID_RNN_CLONES __attribute__((flatten))
#endif

// Gate pre-activation j of a row: gates + bias (the bias, of G elements, is shared by every row).
template <bool Bias, typename T>
inline T pre(const T* __restrict g, const T* __restrict b, int64_t j) {
  if constexpr (Bias) return g[j] + b[j];
  else return g[j];
}

template <bool Bias, typename T>
LUCID_RNN_CLONES void lstm_row(T* __restrict ho, T* __restrict co, const T* __restrict a, const T* __restrict d,
                               const T* __restrict ba, const T* __restrict bd, const T* __restrict cp, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    const T i = m_sigmoid(pre<Bias>(a, ba, j) + pre<Bias>(d, bd, j));
    const T f = m_sigmoid(pre<Bias>(a, ba, H + j) + pre<Bias>(d, bd, H + j));
    const T g = m_tanh(pre<Bias>(a, ba, 2 * H + j) + pre<Bias>(d, bd, 2 * H + j));
    const T o = m_sigmoid(pre<Bias>(a, ba, 3 * H + j) + pre<Bias>(d, bd, 3 * H + j));
    const T cn = f * cp[j] + i * g;
    co[j] = cn;
    ho[j] = o * m_tanh(cn);
  }
}

// The gates are recomputed from the saved pre-activations (no workspace to allocate and write in
// the forward: its memory traffic cost more than the few exps).
template <bool Bias, typename T>
LUCID_RNN_CLONES void lstm_backward_row(T* __restrict dg, T* __restrict dcp, const T* __restrict gdh,
                                        const T* __restrict gdc, const T* __restrict a, const T* __restrict d,
                                        const T* __restrict ba, const T* __restrict bd, const T* __restrict cp,
                                        const T* __restrict cn, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    const T i = m_sigmoid(pre<Bias>(a, ba, j) + pre<Bias>(d, bd, j));
    const T f = m_sigmoid(pre<Bias>(a, ba, H + j) + pre<Bias>(d, bd, H + j));
    const T g = m_tanh(pre<Bias>(a, ba, 2 * H + j) + pre<Bias>(d, bd, 2 * H + j));
    const T o = m_sigmoid(pre<Bias>(a, ba, 3 * H + j) + pre<Bias>(d, bd, 3 * H + j));
    const T tc = m_tanh(cn[j]);
    const T dcn = gdc[j] + gdh[j] * o * (T(1) - tc * tc);
    dg[j] = dcn * g * i * (T(1) - i);
    dg[H + j] = dcn * cp[j] * f * (T(1) - f);
    dg[2 * H + j] = dcn * i * (T(1) - g * g);
    dg[3 * H + j] = gdh[j] * tc * o * (T(1) - o);
    dcp[j] = dcn * f;
  }
}

template <bool Bias, typename T>
LUCID_RNN_CLONES void gru_row(T* __restrict ho, const T* __restrict a, const T* __restrict d, const T* __restrict ba,
                              const T* __restrict bd, const T* __restrict hp, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    const T r = m_sigmoid(pre<Bias>(a, ba, j) + pre<Bias>(d, bd, j));
    const T z = m_sigmoid(pre<Bias>(a, ba, H + j) + pre<Bias>(d, bd, H + j));
    const T n = m_tanh(pre<Bias>(a, ba, 2 * H + j) + r * pre<Bias>(d, bd, 2 * H + j));
    ho[j] = n + z * (hp[j] - n);
  }
}

template <bool Bias, typename T>
LUCID_RNN_CLONES void gru_backward_row(T* __restrict di, T* __restrict dd, T* __restrict dhp, const T* __restrict g,
                                       const T* __restrict a, const T* __restrict d, const T* __restrict ba,
                                       const T* __restrict bd, const T* __restrict hp, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    const T r = m_sigmoid(pre<Bias>(a, ba, j) + pre<Bias>(d, bd, j));
    const T z = m_sigmoid(pre<Bias>(a, ba, H + j) + pre<Bias>(d, bd, H + j));
    const T hn = pre<Bias>(d, bd, 2 * H + j);
    const T n = m_tanh(pre<Bias>(a, ba, 2 * H + j) + r * hn);
    const T dn = g[j] * (T(1) - z) * (T(1) - n * n);
    const T dz = g[j] * (hp[j] - n) * z * (T(1) - z);
    const T dr = dn * hn * r * (T(1) - r);
    di[j] = dr;
    dd[j] = dr;
    di[H + j] = dz;
    dd[H + j] = dz;
    di[2 * H + j] = dn;
    dd[2 * H + j] = dn * r;
    dhp[j] = g[j] * z;
  }
}

template <bool Bias, typename T>
LUCID_RNN_CLONES void rnn_row(T* __restrict ho, const T* __restrict a, const T* __restrict d, const T* __restrict ba,
                              const T* __restrict bd, int64_t H, bool relu) {
  if (relu) {
    for (int64_t j = 0; j < H; ++j) {
      const T v = pre<Bias>(a, ba, j) + pre<Bias>(d, bd, j);
      ho[j] = v > T(0) ? v : (v != v ? v : T(0));
    }
  } else {
    for (int64_t j = 0; j < H; ++j) ho[j] = m_tanh(pre<Bias>(a, ba, j) + pre<Bias>(d, bd, j));
  }
}

template <typename T>
LUCID_RNN_CLONES void rnn_backward_span(T* __restrict d, const T* __restrict g, const T* __restrict ho, int64_t n,
                                        bool relu) {
  if (relu)
    for (int64_t k = 0; k < n; ++k) d[k] = ho[k] > T(0) ? g[k] : T(0);
  else
    for (int64_t k = 0; k < n; ++k) d[k] = g[k] * (T(1) - ho[k] * ho[k]);
}

// ---- the kernels: one row function over the batch

template <typename T>
const T* ptr(const TensorImpl* t) { return t ? t->data<T>() : nullptr; }

void lstm_cell(const TensorImpl& h_out, const TensorImpl& c_out, const TensorImpl& gi, const TensorImpl& gh,
               const TensorImpl* bi, const TensorImpl* bh, const TensorImpl& c) {
  const int64_t B = c.shape()[0], H = c.shape()[1];
  const int64_t si = gi.strides()[0], sh = gh.strides()[0];
  dispatch_float(c.dtype(), "lstm_cell", [&]<typename T>() {
    const T *GI = gi.data<T>(), *GH = gh.data<T>(), *C = c.data<T>(), *BI = ptr<T>(bi), *BH = ptr<T>(bh);
    T *HO = h_out.data<T>(), *CO = c_out.data<T>();
    parallel_for(0, B, row_grain(H), [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        if (BI) lstm_row<true, T>(HO + b * H, CO + b * H, GI + b * si, GH + b * sh, BI, BH, C + b * H, H);
        else lstm_row<false, T>(HO + b * H, CO + b * H, GI + b * si, GH + b * sh, BI, BH, C + b * H, H);
      }
    });
  });
}

void lstm_cell_backward(const TensorImpl& d_gates, const TensorImpl& dc, const TensorImpl& dh, const TensorImpl& dc_out,
                        const TensorImpl& gi, const TensorImpl& gh, const TensorImpl* bi, const TensorImpl* bh,
                        const TensorImpl& c, const TensorImpl& c_out) {
  const int64_t B = c.shape()[0], H = c.shape()[1];
  const int64_t si = gi.strides()[0], sh = gh.strides()[0];
  dispatch_float(c.dtype(), "lstm_cell_backward", [&]<typename T>() {
    const T *DH = dh.data<T>(), *DCO = dc_out.data<T>(), *GI = gi.data<T>(), *GH = gh.data<T>(), *C = c.data<T>(),
            *CO = c_out.data<T>(), *BI = ptr<T>(bi), *BH = ptr<T>(bh);
    T *DG = d_gates.data<T>(), *DC = dc.data<T>();
    parallel_for(0, B, row_grain(H), [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        if (BI)
          lstm_backward_row<true, T>(DG + b * 4 * H, DC + b * H, DH + b * H, DCO + b * H, GI + b * si, GH + b * sh, BI,
                                     BH, C + b * H, CO + b * H, H);
        else
          lstm_backward_row<false, T>(DG + b * 4 * H, DC + b * H, DH + b * H, DCO + b * H, GI + b * si, GH + b * sh,
                                      BI, BH, C + b * H, CO + b * H, H);
      }
    });
  });
}

void gru_cell(const TensorImpl& h_out, const TensorImpl& gi, const TensorImpl& gh, const TensorImpl* bi,
              const TensorImpl* bh, const TensorImpl& h) {
  const int64_t B = h.shape()[0], H = h.shape()[1];
  const int64_t si = gi.strides()[0], sh = gh.strides()[0];
  dispatch_float(h.dtype(), "gru_cell", [&]<typename T>() {
    const T *GI = gi.data<T>(), *GH = gh.data<T>(), *HP = h.data<T>(), *BI = ptr<T>(bi), *BH = ptr<T>(bh);
    T* HO = h_out.data<T>();
    parallel_for(0, B, row_grain(H), [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        if (BI) gru_row<true, T>(HO + b * H, GI + b * si, GH + b * sh, BI, BH, HP + b * H, H);
        else gru_row<false, T>(HO + b * H, GI + b * si, GH + b * sh, BI, BH, HP + b * H, H);
      }
    });
  });
}

void gru_cell_backward(const TensorImpl& dgi, const TensorImpl& dgh, const TensorImpl& dh, const TensorImpl& dh_out,
                       const TensorImpl& gi, const TensorImpl& gh, const TensorImpl* bi, const TensorImpl* bh,
                       const TensorImpl& h) {
  const int64_t B = h.shape()[0], H = h.shape()[1];
  const int64_t si = gi.strides()[0], sh = gh.strides()[0];
  dispatch_float(h.dtype(), "gru_cell_backward", [&]<typename T>() {
    const T *G = dh_out.data<T>(), *GI = gi.data<T>(), *GH = gh.data<T>(), *HP = h.data<T>(), *BI = ptr<T>(bi),
            *BH = ptr<T>(bh);
    T *DI = dgi.data<T>(), *DG = dgh.data<T>(), *DH = dh.data<T>();
    parallel_for(0, B, row_grain(H), [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        if (BI)
          gru_backward_row<true, T>(DI + b * 3 * H, DG + b * 3 * H, DH + b * H, G + b * H, GI + b * si, GH + b * sh,
                                    BI, BH, HP + b * H, H);
        else
          gru_backward_row<false, T>(DI + b * 3 * H, DG + b * 3 * H, DH + b * H, G + b * H, GI + b * si, GH + b * sh,
                                     BI, BH, HP + b * H, H);
      }
    });
  });
}

void rnn_cell(const TensorImpl& h_out, const TensorImpl& gi, const TensorImpl& gh, const TensorImpl* bi,
              const TensorImpl* bh, bool relu) {
  const int64_t B = h_out.shape()[0], H = h_out.shape()[1];
  const int64_t si = gi.strides()[0], sh = gh.strides()[0];
  dispatch_float(h_out.dtype(), "rnn_cell", [&]<typename T>() {
    const T *GI = gi.data<T>(), *GH = gh.data<T>(), *BI = ptr<T>(bi), *BH = ptr<T>(bh);
    T* HO = h_out.data<T>();
    parallel_for(0, B, row_grain(H), [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        if (BI) rnn_row<true, T>(HO + b * H, GI + b * si, GH + b * sh, BI, BH, H, relu);
        else rnn_row<false, T>(HO + b * H, GI + b * si, GH + b * sh, BI, BH, H, relu);
      }
    });
  });
}

void rnn_cell_backward(const TensorImpl& d_pre, const TensorImpl& dh_out, const TensorImpl& h_out, bool relu) {
  const int64_t n = h_out.numel();
  dispatch_float(h_out.dtype(), "rnn_cell_backward", [&]<typename T>() {
    const T *G = dh_out.data<T>(), *HO = h_out.data<T>();
    T* D = d_pre.data<T>();
    parallel_for(0, n, kGrainSize, [&](int64_t lo, int64_t hi) { rnn_backward_span<T>(D + lo, G + lo, HO + lo, hi - lo, relu); });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(lstm_cell_kernel, CPU, lstm_cell)
LUCID_REGISTER_KERNEL(lstm_cell_backward_kernel, CPU, lstm_cell_backward)
LUCID_REGISTER_KERNEL(gru_cell_kernel, CPU, gru_cell)
LUCID_REGISTER_KERNEL(gru_cell_backward_kernel, CPU, gru_cell_backward)
LUCID_REGISTER_KERNEL(rnn_cell_kernel, CPU, rnn_cell)
LUCID_REGISTER_KERNEL(rnn_cell_backward_kernel, CPU, rnn_cell_backward)

}  // namespace lucid::cpu
