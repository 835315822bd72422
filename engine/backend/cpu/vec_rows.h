#pragma once
// Vectorised float32 row kernels (softmax, layer_norm, log-sum-exp, max/min with index, column
// reductions), built once per ISA from isa_rows.cpp like the loops of loops.h, chosen at run time.
#include <cstdint>

#include "backend/cpu/isa.h"

namespace lucid::cpu {

struct RowKernels {
  // rows x D, contiguous: softmax (log: log_softmax) of each row; a NaN anywhere makes its row NaN.
  void (*softmax_f32)(float* out, const float* x, int64_t rows, int64_t D, bool log);
  // rows x D, contiguous; w and b may be null. mean and rstd get one value per row.
  void (*layer_norm_f32)(float* y, float* mean, float* rstd, const float* x, const float* w, const float* b,
                         int64_t rows, int64_t D, double eps);
  // One contiguous run: its max m and sum of exp(x - m) (m finite; returns false, touching
  // nothing, if the run holds a NaN or an infinite max: the caller takes its exact path).
  bool (*lse_f32)(const float* x, int64_t n, float* m, double* s);
  // One contiguous run (n >= 1): its max (want_max) or min, NaN if any; with idx, the position of
  // the first extreme (of the first NaN if any).
  float (*extreme_f32)(const float* x, int64_t n, bool want_max, int64_t* idx);
  // One contiguous run (n >= 1): its min and max in one pass, both NaN if it holds a NaN.
  void (*minmax_f32)(const float* x, int64_t n, float* mn, float* mx);
  // One contiguous run (n >= 1): its running max (want_max) or min in v and the running extreme's
  // index in ix (cummax/cummin with PyTorch's NaN and tie rule).
  void (*cumext_f32)(const float* x, int64_t n, bool want_max, float* v, int64_t* ix);
  // One contiguous run, 1 <= k <= n (k small): its k largest (largest) or smallest values in order and
  // their positions, in the total order of sorting (NaN above every number, equal keys by position);
  // false (v, ix unspecified) when the run costs too many insertions (a rising run): sort it instead.
  bool (*topk_f32)(const float* x, int64_t n, int64_t k, bool largest, float* v, int64_t* ix);
  // Column step of an outer-dim max/min: for j < k, when acc[j] is not NaN and p[j] is NaN or
  // better, acc[j] = p[j] and (idx non-null) idx[j] = c.
  void (*extreme_cols_f32)(float* acc, int32_t* idx, const float* p, int64_t k, int32_t c, bool want_max);
  // One contiguous run: the sum of (x - c)^2 (float lanes in blocks of 1024, totals in double).
  double (*sqdev_sum_f32)(const float* x, int64_t n, float c);
  // One contiguous run: the product of its values, in double lanes.
  double (*prod_f32)(const float* x, int64_t n);
  // o[i] = x[i] with NaN -> nan, +inf -> pos, -inf -> neg (nan_to_num); o may equal x.
  void (*nan_to_num_f32)(float* o, const float* x, int64_t n, float nan, float pos, float neg);
  // o[i] = x[i] rounded half to even at a decimal scale: nearbyint(x * s) / s, or with div_first
  // nearbyint(x / s) * s (negative decimals); o may equal x.
  void (*round_scaled_f32)(float* o, const float* x, int64_t n, float s, bool div_first);
  // acc[j] += double(p[j]) for j < k.
  void (*sum_cols_f32)(double* acc, const float* p, int64_t k);
  // o[i] = gelu(x[i]) (erf form) / silu(x[i]) for i < n; o may equal x.
  void (*gelu_f32)(float* o, const float* x, int64_t n);
  void (*silu_f32)(float* o, const float* x, int64_t n);
  // o[i] = g[i * gs] * gelu'(x[i]) (erf form) for i < n, gs 0 (a broadcast gradient) or 1; o may equal g or x.
  void (*gelu_backward_f32)(float* o, const float* g, int64_t gs, const float* x, int64_t n);
  // Batch-norm statistics of one channel: N rows of S values, `stride` apart: the mean, and the
  // biased variance (squared deviations from the float mean, corrected for its rounding).
  void (*bn_stats_f32)(const float* x, int64_t N, int64_t S, int64_t stride, double* mean, double* var);
  // y = x * scale + shift over the same N rows of S (y with the same layout as x).
  void (*bn_apply_f32)(float* y, const float* x, int64_t N, int64_t S, int64_t stride, float scale, float shift);
  // A 16 x 16 tile of 4-byte elements transposed: d + j * dj + 4 i <- s + i * si + 4 j (strides in bytes).
  // AVX-512 only (in registers); null on the other ISAs.
  void (*transpose16_b32)(char* d, int64_t dj, const char* s, int64_t si);
};

void register_row_kernels(Isa isa, const RowKernels& k);
const RowKernels& row_kernels();

}  // namespace lucid::cpu
