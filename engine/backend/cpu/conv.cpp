// CPU kernels of the convolution ops (backend/kernels/conv.h), float32 and float64.
// float32 on AVX-512 with unit width stride runs direct: the GEMM (backend/cpu/conv_gemm.cpp) reads
// a zero-bordered copy of each sample through a table of row offsets, so there is no im2col copy,
// and the transposed convolution with unit strides runs as a convolution (flipped kernel). Otherwise
// a convolution runs per sample and per tile of output lines: vol2col of the tile into a per-thread
// scratch (C*K, Lt) that stays in L2, then one GEMM per group (the AVX-512 one for float32, else
// OpenBLAS) writing straight into the sample's (OC, L) output rows, so there is no permute copy.
// With at least as many samples as threads, threads take whole samples (OpenBLAS runs single-threaded
// inside the parallel region); otherwise samples run one after another with OpenBLAS's own threads.
#include <cblas.h>

#include <cstring>
#include <memory>
#include <vector>

#include "backend/cpu/conv_gemm.h"
#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/conv.h"

namespace lucid::cpu {

namespace {

template <typename T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb,
          T beta, T* C, int64_t ldc) {
  const CBLAS_TRANSPOSE a = ta ? CblasTrans : CblasNoTrans, b = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, a, b, int(M), int(N), int(K), 1.0f, A, int(lda), B, int(ldb), beta, C, int(ldc));
  else
    cblas_dgemm(CblasRowMajor, a, b, int(M), int(N), int(K), 1.0, A, int(lda), B, int(ldb), beta, C, int(ldc));
}

// C (M x N, ldc) = / += A B (+ bias per row): the in-place AVX-512 GEMM for float32 where it runs,
// else BLAS. A is (M x K) row-major, or its transpose stored (K x M) when a_trans; B is (K x N).
template <typename T>
void gemm_nn(bool a_trans, int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
             int64_t ldc, bool accumulate, const T* bias) {
  if constexpr (std::is_same_v<T, float>) {
    // single-threaded: inside the threads' own samples, or with one thread (else BLAS's threads)
    if (conv_gemm_available() && (in_parallel_region() || get_num_threads() == 1)) {
      conv_sgemm(M, N, K, A, lda, a_trans, B, ldb, C, ldc, accumulate, bias);
      return;
    }
  }
  gemm<T>(a_trans, false, M, N, K, A, lda, B, ldb, accumulate ? T(1) : T(0), C, ldc);
  if (bias)
    for (int64_t m = 0; m < M; ++m) {
      T* __restrict__ r = C + m * ldc;
      const T v = bias[m];
      for (int64_t n = 0; n < N; ++n) r[n] += v;
    }
}

// The output positions ow in [lo, hi) whose input column ow*s + off falls inside [0, W).
inline void valid_range(int64_t off, int64_t s, int64_t W, int64_t OW, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = W - 1 - off >= 0 ? (W - 1 - off) / s + 1 : 0;
  lo = std::min(lo, OW);
  hi = std::max(lo, std::min(hi, OW));
}

inline bool is_identity(const ConvGeom& g) {
  for (int i = 0; i < 3; ++i)
    if (g.k[i] != 1 || g.s[i] != 1 || g.p[i] != 0) return false;
  return true;
}

// One row (channel plane, kernel offset kk) of cols over the output lines [r0, r1) (a line is one
// (od, oh) pair, OW positions): row[(r - r0) * OW * ls + ow * ls]. plane points at x[n, c]; xs are
// its (d, h, w) strides.
template <typename T>
void vol2col_row(T* row, int64_t ls, const T* plane, const int64_t* xs, const ConvGeom& g, int64_t kk, int64_t r0,
                 int64_t r1) {
  const int64_t kd = kk / (g.k[1] * g.k[2]), ki = (kk / g.k[2]) % g.k[1], kj = kk % g.k[2];
  const int64_t OH = g.out[1], OW = g.out[2];
  const int64_t offw = kj * g.d[2] - g.p[2];
  int64_t lo, hi;
  valid_range(offw, g.s[2], g.in[2], OW, lo, hi);
  const bool fast = ls == 1 && g.s[2] == 1 && xs[2] == 1;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t od = r / OH, oh = r % OH;
    const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
    T* orow = row + (r - r0) * OW * ls;
    const int64_t ih = oh * g.s[1] - g.p[1] + ki * g.d[1];
    if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
      for (int64_t ow = 0; ow < OW; ++ow) orow[ow * ls] = T(0);
      continue;
    }
    const T* xrow = plane + id * xs[0] + ih * xs[1];
    for (int64_t ow = 0; ow < lo; ++ow) orow[ow * ls] = T(0);
    if (fast) {
      if (hi > lo) std::memcpy(orow + lo, xrow + lo + offw, size_t(hi - lo) * sizeof(T));
    } else {
      for (int64_t ow = lo; ow < hi; ++ow) orow[ow * ls] = xrow[(ow * g.s[2] + offw) * xs[2]];
    }
    for (int64_t ow = hi; ow < OW; ++ow) orow[ow * ls] = T(0);
  }
}

// The adjoint of vol2col_row into a contiguous plane.
template <typename T>
void col2vol_row(T* plane, const T* row, int64_t ls, const ConvGeom& g, int64_t kk, int64_t r0, int64_t r1) {
  const int64_t kd = kk / (g.k[1] * g.k[2]), ki = (kk / g.k[2]) % g.k[1], kj = kk % g.k[2];
  const int64_t OH = g.out[1], OW = g.out[2], H = g.in[1], W = g.in[2];
  const int64_t offw = kj * g.d[2] - g.p[2];
  int64_t lo, hi;
  valid_range(offw, g.s[2], W, OW, lo, hi);
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t od = r / OH, oh = r % OH;
    const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
    const int64_t ih = oh * g.s[1] - g.p[1] + ki * g.d[1];
    if (id < 0 || id >= g.in[0] || ih < 0 || ih >= H) continue;
    const T* crow = row + (r - r0) * OW * ls;
    T* xrow = plane + (id * H + ih) * W;
    if (ls == 1 && g.s[2] == 1) {
      T* __restrict__ xo = xrow + offw;
      const T* __restrict__ co = crow;
      for (int64_t ow = lo; ow < hi; ++ow) xo[ow] += co[ow];
    } else {
      for (int64_t ow = lo; ow < hi; ++ow) xrow[ow * g.s[2] + offw] += crow[ow * ls];
    }
  }
}

// A contiguous sample (C, *in) into cols (C*K, (r1 - r0) * OW) for the output lines [r0, r1), and
// back (x zeroed by the caller).
template <typename T>
void vol2col_lines(T* cols, const T* x, int64_t C, const ConvGeom& g, int64_t r0, int64_t r1) {
  if constexpr (std::is_same_v<T, float>) {
    if (g.s[2] == 1 && conv_gemm_available()) return conv_vol2col_f32(cols, x, C, g, r0, r1);
  }
  const int64_t K = g.k_numel(), Lt = (r1 - r0) * g.out[2], IN = g.in_numel();
  const int64_t xs[3] = {g.in[1] * g.in[2], g.in[2], 1};
  for (int64_t c = 0; c < C; ++c)
    for (int64_t kk = 0; kk < K; ++kk) vol2col_row(cols + (c * K + kk) * Lt, 1, x + c * IN, xs, g, kk, r0, r1);
}

template <typename T>
void col2vol_lines(T* x, const T* cols, int64_t C, const ConvGeom& g, int64_t r0, int64_t r1) {
  const int64_t K = g.k_numel(), Lt = (r1 - r0) * g.out[2], IN = g.in_numel();
  for (int64_t c = 0; c < C; ++c)
    for (int64_t kk = 0; kk < K; ++kk) col2vol_row(x + c * IN, cols + (c * K + kk) * Lt, 1, g, kk, r0, r1);
}

// Output lines per tile: the (C*K, lines*OW) cols tile and OpenBLAS's packed copy of it stay in L2.
inline int64_t lines_per_tile(const ConvGeom& g, int64_t rows, size_t elem) {
  constexpr int64_t kTileBytes = 512 * 1024;
  const int64_t line = std::max<int64_t>(1, rows * g.out[2] * int64_t(elem));
  return std::max<int64_t>(1, kTileBytes / line);
}

template <typename T>
std::unique_ptr<T[]> scratch(int64_t n) {
  return std::unique_ptr<T[]>(n > 0 ? new T[size_t(n)] : nullptr);
}

// Runs f(n, scratch) for every sample: whole samples per thread when there are enough of them.
template <typename T, typename F>
void for_samples(int64_t N, int64_t scratch_size, F&& f) {
  const int nt = get_num_threads();
  if (nt > 1 && N >= nt && !in_parallel_region()) {
    parallel_for(0, N, 1, [&](int64_t lo, int64_t hi) {
      auto s = scratch<T>(scratch_size);
      for (int64_t n = lo; n < hi; ++n) f(n, s.get());
    });
  } else {
    auto s = scratch<T>(scratch_size);
    for (int64_t n = 0; n < N; ++n) f(n, s.get());
  }
}

template <typename T>
void add_bias(T* y, const T* b, int64_t OC, int64_t L) {
  for (int64_t o = 0; o < OC; ++o) {
    T* __restrict__ r = y + o * L;
    const T v = b[o];
    for (int64_t l = 0; l < L; ++l) r[l] += v;
  }
}

// ---- F.unfold / F.fold on strided tensors

void vol2col(const TensorImpl& cols, const TensorImpl& x, const ConvGeom& g) {
  const int64_t N = x.shape()[0], C = x.shape()[1], K = g.k_numel(), L = g.out_numel();
  const int nd = int(x.dim()) - 2;
  int64_t xs[3] = {0, 0, 0};
  for (int i = 0; i < nd; ++i) xs[3 - nd + i] = x.strides()[size_t(2 + i)];
  const auto& cs = cols.strides();
  dispatch_float(x.dtype(), "vol2col", [&]<typename T>() {
    const T* X = x.data<T>();
    T* O = cols.data<T>();
    parallel_for(0, N * C * K, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, L)), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const int64_t n = r / (C * K), ck = r % (C * K);
        vol2col_row(O + n * cs[0] + ck * cs[1], cs[2], X + n * x.strides()[0] + (ck / K) * x.strides()[1], xs, g,
                    ck % K, 0, g.out[0] * g.out[1]);
      }
    });
  });
}

void col2vol(const TensorImpl& x, const TensorImpl& cols, const ConvGeom& g) {
  const int64_t N = x.shape()[0], C = x.shape()[1], K = g.k_numel(), L = g.out_numel(), IN = g.in_numel();
  const auto& cs = cols.strides();
  dispatch_float(x.dtype(), "col2vol", [&]<typename T>() {
    T* X = x.data<T>();
    const T* Cp = cols.data<T>();
    // each (n, c) plane is written by its own rows only: no races
    parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, K * L)), [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) {
        const int64_t n = p / C, c = p % C;
        for (int64_t kk = 0; kk < K; ++kk)
          col2vol_row(X + p * IN, Cp + n * cs[0] + (c * K + kk) * cs[1], cs[2], g, kk, 0, g.out[0] * g.out[1]);
      }
    });
  });
}

// ---- the convolution GEMMs, per sample and per tile of output lines

// The direct path (float32, AVX-512, width stride 1, rows of at least 16 outputs): the GEMM reads
// the padded sample through a table of row offsets instead of an im2col copy.
// Narrower rows fold each (depth) plane into one line over the padded width (the columns between
// rows computed and dropped), which needs unit height stride.
constexpr int64_t kDirectMinWidth = 16;
int64_t padded_width(const ConvGeom& g) { return g.in[2] + 2 * g.p[2]; }
bool folds(const ConvGeom& g) { return g.out[2] < kDirectMinWidth; }
bool direct_ok(const ConvGeom& g) {
  if (!conv_gemm_available() || g.s[2] != 1) return false;
  return !folds(g) || (g.s[1] == 1 && (g.out[1] - 1) * padded_width(g) + g.out[2] >= kDirectMinWidth);
}

// The implicit im2col of the direct path: a sample copied inside a zero border (when there is
// padding), with row offsets off[c*K + kk] and output-line offsets base[line] into it.
struct DirectPlan {
  int64_t C, P, Hp, Wp;
  bool padded;
  std::vector<int64_t> off, base;

  DirectPlan(const ConvGeom& g, int64_t C_) : C(C_) {
    const int64_t K = g.k_numel(), R = g.out[0] * g.out[1], Dp = g.in[0] + 2 * g.p[0];
    Hp = g.in[1] + 2 * g.p[1];
    Wp = g.in[2] + 2 * g.p[2];
    P = Dp * Hp * Wp;
    padded = g.p[0] || g.p[1] || g.p[2];
    off.resize(size_t(C * K));
    base.resize(size_t(R));
    for (int64_t c = 0; c < C; ++c)
      for (int64_t kk = 0; kk < K; ++kk) {
        const int64_t kd = kk / (g.k[1] * g.k[2]), ki = (kk / g.k[2]) % g.k[1], kj = kk % g.k[2];
        off[size_t(c * K + kk)] = c * P + (kd * g.d[0] * Hp + ki * g.d[1]) * Wp + kj * g.d[2];
      }
    for (int64_t r = 0; r < R; ++r) base[size_t(r)] = ((r / g.out[1]) * g.s[0] * Hp + (r % g.out[1]) * g.s[1]) * Wp;
  }
  int64_t scratch_size() const { return padded ? C * P : 0; }
  // the sample as the offsets read it: x itself, or its copy in s
  const float* sample(const float* x, float* s, const ConvGeom& g) const {
    if (!padded) return x;
    std::memset(s, 0, size_t(C * P) * sizeof(float));
    for (int64_t c = 0; c < C; ++c)
      for (int64_t d = 0; d < g.in[0]; ++d)
        for (int64_t h = 0; h < g.in[1]; ++h)
          std::memcpy(s + c * P + ((d + g.p[0]) * Hp + h + g.p[1]) * Wp + g.p[2],
                      x + (c * g.in[0] + d) * g.in[1] * g.in[2] + h * g.in[2], size_t(g.in[2]) * sizeof(float));
    return s;
  }
};

// y (N, OC, *out) = conv(x (N, C, *in), w (OC, C/groups, *k)) + bias, all contiguous float32.
void conv_direct(float* Y, const float* X, const float* Wt, const float* B, int64_t N, int64_t C, int64_t OC,
                 int64_t groups, const ConvGeom& g) {
  const int64_t K = g.k_numel(), L = g.out_numel(), IN = g.in_numel(), OW = g.out[2], R = g.out[0] * g.out[1];
  const int64_t Cg = C / groups, OCg = OC / groups, CKg = Cg * K;
  const DirectPlan plan(g, C);
  if (folds(g)) {
    // one line per depth plane, OWv = (OH - 1) * Wp + OW positions, into t (OC, OD, OWv), then the
    // valid columns into y
    const int64_t OD = g.out[0], OH = g.out[1], Wp = padded_width(g), OWv = (OH - 1) * Wp + OW, LT = OD * OWv;
    std::vector<int64_t> base(static_cast<size_t>(OD));
    for (int64_t od = 0; od < OD; ++od) base[size_t(od)] = od * g.s[0] * plan.Hp * Wp;
    const int64_t ps = plan.scratch_size();
    for_samples<float>(N, ps + OC * LT, [&](int64_t n, float* s) {
      const float* xn = plan.sample(X + n * C * IN, s, g);
      float* t = s + ps;
      // fewer samples than threads: the threads split the output channels (blocks of 8)
      const int64_t blocks = (OCg + 7) / 8;
      const int64_t grain = in_parallel_region() ? blocks : std::max<int64_t>(1, blocks / get_num_threads());
      for (int64_t gi = 0; gi < groups; ++gi)
        parallel_for(0, blocks, grain, [&](int64_t lo, int64_t hi) {
          const int64_t m0 = gi * OCg + lo * 8, m1 = gi * OCg + std::min(OCg, hi * 8);
          conv_direct_f32(m1 - m0, CKg, Wt + m0 * CKg, CKg, xn, plan.off.data() + gi * CKg, base.data(), OD, OWv,
                          t + m0 * LT, LT, B ? B + m0 : nullptr);
        });
      float* yn = Y + n * OC * L;
      for (int64_t o = 0; o < OC; ++o)
        for (int64_t od = 0; od < OD; ++od)
          for (int64_t oh = 0; oh < OH; ++oh)
            std::memcpy(yn + (o * OD + od) * OH * OW + oh * OW, t + o * LT + od * OWv + oh * Wp,
                        size_t(OW) * sizeof(float));
    });
    return;
  }
  for_samples<float>(N, plan.scratch_size(), [&](int64_t n, float* s) {
    const float* xn = plan.sample(X + n * C * IN, s, g);
    float* yn = Y + n * OC * L;
    // fewer samples than threads: the threads split the sample's output lines
    const int64_t grain = in_parallel_region() ? R : std::max<int64_t>(1, R / get_num_threads());
    parallel_for(0, R, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t gi = 0; gi < groups; ++gi)
        conv_direct_f32(OCg, CKg, Wt + gi * OCg * CKg, CKg, xn, plan.off.data() + gi * CKg, plan.base.data() + lo,
                        hi - lo, OW, yn + gi * OCg * L + lo * OW, L, B ? B + gi * OCg : nullptr);
    });
  });
}

// The transposed convolution with unit strides as a convolution: x padded by d(k-1) - p, the kernel
// flipped and its channel dims swapped. False (nothing done) where that does not apply.
bool conv_transpose_direct(float* Y, const float* X, const float* Wt, const float* B, int64_t N, int64_t C,
                           int64_t OC, int64_t groups, const ConvGeom& g) {
  ConvGeom f = g;
  for (int i = 0; i < 3; ++i) {
    const int64_t pp = g.d[i] * (g.k[i] - 1) - g.p[i];
    if (g.s[i] != 1 || pp < 0 || g.in[i] != g.out[i] + 2 * pp - g.d[i] * (g.k[i] - 1)) return false;
    f.in[i] = g.out[i];
    f.out[i] = g.in[i];
    f.p[i] = pp;
  }
  if (!direct_ok(f)) return false;
  const int64_t K = g.k_numel(), Cg = C / groups, OCg = OC / groups;
  std::vector<float> wf(size_t(OC * Cg * K));  // wf[gi*OCg + o, c, kk] = w[gi*Cg + c, o, K-1-kk]
  for (int64_t gi = 0; gi < groups; ++gi)
    for (int64_t c = 0; c < Cg; ++c)
      for (int64_t o = 0; o < OCg; ++o)
        for (int64_t kk = 0; kk < K; ++kk)
          wf[size_t(((gi * OCg + o) * Cg + c) * K + kk)] = Wt[((gi * Cg + c) * OCg + o) * K + (K - 1 - kk)];
  conv_direct(Y, X, wf.data(), B, N, C, OC, groups, f);
  return true;
}

void conv(const TensorImpl& y, const TensorImpl& x, const TensorImpl& w, const TensorImpl* bias, const ConvGeom& g,
          int64_t groups) {
  const int64_t N = x.shape()[0], C = x.shape()[1], OC = y.shape()[1];
  const int64_t K = g.k_numel(), L = g.out_numel(), IN = g.in_numel(), OW = g.out[2], R = g.out[0] * g.out[1];
  const int64_t Cg = C / groups, OCg = OC / groups, CKg = Cg * K;
  const bool id = is_identity(g);
  const int64_t tile = lines_per_tile(g, C * K, x.element_size());
  if (x.dtype() == Dtype::F32 && !id && direct_ok(g))
    return conv_direct(y.data<float>(), x.data<float>(), w.data<float>(), bias ? bias->data<float>() : nullptr, N, C,
                       OC, groups, g);
  dispatch_float(x.dtype(), "conv", [&]<typename T>() {
    const T* X = x.data<T>();
    const T* Wp = w.data<T>();
    const T* B = bias ? bias->data<T>() : nullptr;
    T* Y = y.data<T>();
    for_samples<T>(N, id ? 0 : C * K * std::min(tile, R) * OW, [&](int64_t n, T* s) {
      const T* xn = X + n * C * IN;
      T* yn = Y + n * OC * L;
      if (id) {
        for (int64_t gi = 0; gi < groups; ++gi)
          gemm_nn<T>(false, OCg, L, CKg, Wp + gi * OCg * CKg, CKg, xn + gi * CKg * L, L, yn + gi * OCg * L, L, false,
                     B ? B + gi * OCg : nullptr);
      } else {
        for (int64_t r0 = 0; r0 < R; r0 += tile) {
          const int64_t r1 = std::min(R, r0 + tile), Lt = (r1 - r0) * OW;
          vol2col_lines(s, xn, C, g, r0, r1);
          for (int64_t gi = 0; gi < groups; ++gi)
            gemm_nn<T>(false, OCg, Lt, CKg, Wp + gi * OCg * CKg, CKg, s + gi * CKg * Lt, Lt,
                       yn + gi * OCg * L + r0 * OW, L, false, B ? B + gi * OCg : nullptr);
        }
      }
    });
  });
}

void conv_transpose(const TensorImpl& y, const TensorImpl& x, const TensorImpl& w, const TensorImpl* bias,
                    const ConvGeom& g, int64_t groups) {
  const int64_t N = x.shape()[0], C = x.shape()[1], OC = y.shape()[1];
  const int64_t K = g.k_numel(), L = g.out_numel(), IN = g.in_numel(), OW = g.out[2], R = g.out[0] * g.out[1];
  const int64_t Cg = C / groups, OCg = OC / groups, OCKg = OCg * K;
  const bool id = is_identity(g);
  const int64_t tile = lines_per_tile(g, OC * K, x.element_size());
  if (x.dtype() == Dtype::F32 && !id &&
      conv_transpose_direct(y.data<float>(), x.data<float>(), w.data<float>(), bias ? bias->data<float>() : nullptr, N,
                            C, OC, groups, g))
    return;
  dispatch_float(x.dtype(), "conv_transpose", [&]<typename T>() {
    const T* X = x.data<T>();
    const T* Wp = w.data<T>();
    const T* B = bias ? bias->data<T>() : nullptr;
    T* Y = y.data<T>();
    for_samples<T>(N, id ? 0 : OC * K * std::min(tile, R) * OW, [&](int64_t n, T* s) {
      const T* xn = X + n * C * L;
      T* yn = Y + n * OC * IN;
      if (id) {
        for (int64_t gi = 0; gi < groups; ++gi)
          gemm_nn<T>(true, OCKg, L, Cg, Wp + gi * Cg * OCKg, OCKg, xn + gi * Cg * L, L, yn + gi * OCKg * L, L, false,
                     nullptr);
      } else {
        std::memset(yn, 0, size_t(OC * IN) * sizeof(T));
        for (int64_t r0 = 0; r0 < R; r0 += tile) {
          const int64_t r1 = std::min(R, r0 + tile), Lt = (r1 - r0) * OW;
          for (int64_t gi = 0; gi < groups; ++gi)
            gemm_nn<T>(true, OCKg, Lt, Cg, Wp + gi * Cg * OCKg, OCKg, xn + gi * Cg * L + r0 * OW, L, s + gi * OCKg * Lt,
                       Lt, false, nullptr);
          col2vol_lines(yn, s, OC, g, r0, r1);
        }
      }
      if (B) add_bias(yn, B, OC, IN);
    });
  });
}

// dst (cols x rows) = src (rows x cols)^T, in cache-sized blocks.
void transpose(float* dst, const float* src, int64_t rows, int64_t cols) {
  constexpr int64_t b = 16;
  for (int64_t i0 = 0; i0 < rows; i0 += b)
    for (int64_t j0 = 0; j0 < cols; j0 += b)
      for (int64_t i = i0; i < std::min(rows, i0 + b); ++i)
        for (int64_t j = j0; j < std::min(cols, j0 + b); ++j) dst[j * rows + i] = src[i * cols + j];
}

// The in-place float32 GEMM computes gw^T (A*K, B) per group, += cols (A*K, Lt) gy^T (Lt, B), with
// gy's tile transposed (small); BLAS computes gw (B, A*K) += gy cols^T directly.
void conv_weight(const TensorImpl& gw, const TensorImpl& a, const TensorImpl& b, const ConvGeom& g, int64_t groups) {
  const int64_t N = a.shape()[0], A = a.shape()[1], Bc = b.shape()[1];
  const int64_t K = g.k_numel(), L = g.out_numel(), IN = g.in_numel(), OW = g.out[2], R = g.out[0] * g.out[1];
  const int64_t Ag = A / groups, Bg = Bc / groups, AKg = Ag * K, WN = Bc * AKg;
  const bool id = is_identity(g);
  const int64_t tile = std::min(R, lines_per_tile(g, A * K, a.element_size()));
  dispatch_float(a.dtype(), "conv_weight", [&]<typename T>() {
    const T* Ap = a.data<T>();
    const T* Bp = b.data<T>();
    T* GW = gw.data<T>();
    // partial sums per chunk of samples, added up at the end
    const int nt = get_num_threads();
    const int64_t chunks = (nt > 1 && N >= nt && !in_parallel_region()) ? nt : 1;
    const bool own =
        std::is_same_v<T, float> && conv_gemm_available() && (chunks > 1 || nt == 1 || in_parallel_region());
    const int64_t nbuf = own ? chunks : chunks - 1;
    std::vector<T> partial(size_t(nbuf * WN));
    std::unique_ptr<DirectPlan> plan(own && !id ? new DirectPlan(g, A) : nullptr);
    auto run = [&](int64_t ci) {
      const int64_t lo = N * ci / chunks, hi = N * (ci + 1) / chunks;
      T* acc = own ? partial.data() + ci * WN : ci == 0 ? GW : partial.data() + (ci - 1) * WN;
      std::memset(acc, 0, size_t(WN) * sizeof(T));
      if constexpr (std::is_same_v<T, float>) {
        if (own && !id) {  // direct: gw^T += (implicit cols) gy^T, gy transposed per sample
          auto s = scratch<float>(plan->scratch_size());
          auto bt = scratch<float>(L * Bc);
          for (int64_t n = lo; n < hi; ++n) {
            const float* xp = plan->sample(Ap + n * A * IN, s.get(), g);
            transpose(bt.get(), Bp + n * Bc * L, Bc, L);
            for (int64_t gi = 0; gi < groups; ++gi)
              conv_wgrad_direct_f32(AKg, Bg, xp, plan->off.data() + gi * AKg, plan->base.data(), R, OW, g.s[2],
                                    bt.get() + gi * Bg, Bc, acc + gi * AKg * Bg, Bg);
          }
          return;
        }
      }
      auto s = scratch<T>(id ? 0 : A * K * tile * OW);
      auto bt = scratch<T>(own ? tile * OW * Bc : 0);
      for (int64_t n = lo; n < hi; ++n) {
        const T* an = Ap + n * A * IN;
        const T* bn = Bp + n * Bc * L;
        for (int64_t r0 = 0; r0 < R; r0 += tile) {
          const int64_t r1 = std::min(R, r0 + tile), Lt = (r1 - r0) * OW;
          const T* cols = id ? an + r0 * OW : s.get();
          const int64_t ldc = id ? L : Lt;
          if (!id) vol2col_lines(s.get(), an, A, g, r0, r1);
          if constexpr (std::is_same_v<T, float>) {
            if (own) {
              for (int64_t o = 0; o < Bc; ++o)
                for (int64_t l = 0; l < Lt; ++l) bt[size_t(l * Bc + o)] = bn[o * L + r0 * OW + l];
              for (int64_t gi = 0; gi < groups; ++gi)
                conv_sgemm(AKg, Bg, Lt, cols + gi * AKg * ldc, ldc, false, bt.get() + gi * Bg, Bc,
                           acc + gi * AKg * Bg, Bg, true, nullptr);
              continue;
            }
          }
          for (int64_t gi = 0; gi < groups; ++gi)
            gemm<T>(false, true, Bg, AKg, Lt, bn + gi * Bg * L + r0 * OW, L, cols + gi * AKg * ldc, ldc, T(1),
                    acc + gi * Bg * AKg, AKg);
        }
      }
    };
    if (chunks > 1) {
      parallel_for(0, chunks, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t ci = lo; ci < hi; ++ci) run(ci);
      });
    } else {
      run(0);
    }
    if (own) {  // GW[gi, o, ak] = sum over chunks of acc^T[gi, ak, o]
      for (int64_t gi = 0; gi < groups; ++gi)
        for (int64_t o = 0; o < Bg; ++o)
          for (int64_t ak = 0; ak < AKg; ++ak) {
            T v = 0;
            for (int64_t ci = 0; ci < chunks; ++ci) v += partial[size_t(ci * WN + gi * AKg * Bg + ak * Bg + o)];
            GW[(gi * Bg + o) * AKg + ak] = v;
          }
    } else {
      for (int64_t ci = 1; ci < chunks; ++ci) {
        const T* p = partial.data() + (ci - 1) * WN;
        for (int64_t i = 0; i < WN; ++i) GW[i] += p[i];
      }
    }
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(vol2col_kernel, CPU, &vol2col)
LUCID_REGISTER_KERNEL(col2vol_kernel, CPU, &col2vol)
LUCID_REGISTER_KERNEL(conv_kernel, CPU, &conv)
LUCID_REGISTER_KERNEL(conv_transpose_kernel, CPU, &conv_transpose)
LUCID_REGISTER_KERNEL(conv_weight_kernel, CPU, &conv_weight)

}  // namespace lucid::cpu
