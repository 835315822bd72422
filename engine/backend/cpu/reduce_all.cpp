// Single-pass whole-tensor reductions of contiguous float32 tensors (kernels/reduce_all.h): the
// vectorised per-ISA rows (vec_rows.h) over fixed chunks in parallel, the chunks combined in order
// (so the result does not depend on the thread count).
#include <limits>
#include <vector>

#include "backend/cpu/parallel.h"
#include "backend/cpu/vec_rows.h"
#include "backend/kernels/reduce_all.h"

namespace lucid::cpu {

namespace {

constexpr int64_t kChunk = 1 << 16;

bool minmax_all(const TensorImpl& in, const TensorImpl& mn, const TensorImpl& mx) {
  if (in.dtype() != Dtype::F32 || !in.is_contiguous() || in.numel() == 0) return false;
  const float* x = static_cast<const float*>(in.data_ptr());
  const int64_t n = in.numel();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<float> lo(static_cast<size_t>(chunks)), hi(static_cast<size_t>(chunks));
  const auto row = row_kernels().minmax_f32;
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const int64_t s = c * kChunk;
      row(x + s, n - s < kChunk ? n - s : kChunk, &lo[size_t(c)], &hi[size_t(c)]);
    }
  });
  float l = lo[0], h = hi[0];
  for (size_t c = 1; c < lo.size(); ++c) {  // a NaN chunk (NaN in both) wins and stays
    if (l != l || lo[c] != lo[c]) {
      l = h = std::numeric_limits<float>::quiet_NaN();
      break;
    }
    l = lo[c] < l ? lo[c] : l;
    h = hi[c] > h ? hi[c] : h;
  }
  *static_cast<float*>(mn.data_ptr()) = l;
  *static_cast<float*>(mx.data_ptr()) = h;
  return true;
}

bool sqdev_all(const TensorImpl& in, double c, double* ss) {
  if (in.dtype() != Dtype::F32 || !in.is_contiguous()) return false;
  const float* x = static_cast<const float*>(in.data_ptr());
  const int64_t n = in.numel();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<double> part(static_cast<size_t>(chunks));
  const auto row = row_kernels().sqdev_sum_f32;
  const float cf = float(c);
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const int64_t s = k * kChunk;
      part[size_t(k)] = row(x + s, n - s < kChunk ? n - s : kChunk, cf);
    }
  });
  double t = 0.0;
  for (double v : part) t += v;
  *ss = t;
  return true;
}

}  // namespace

LUCID_REGISTER_KERNEL(minmax_all_kernel, CPU, &minmax_all)
LUCID_REGISTER_KERNEL(sqdev_all_kernel, CPU, &sqdev_all)

}  // namespace lucid::cpu
