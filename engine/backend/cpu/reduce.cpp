// CPU reductions (mirrors cuda/reduce.cu).
#include <vector>

#include "backend/common/iter.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/reduce_plan.h"
#include "backend/cpu/vec_rows.h"
#include "backend/kernels/reduce.h"

namespace lucid::cpu {

namespace {

struct Acc {
  double re = 0, im = 0;
  int64_t i = 0;
  void add(const Acc& o) { re += o.re; im += o.im; i += o.i; }
};

// Sums linear positions [b, e) of the reduced sub-space starting at base.
void sum_range(const ReducePlan& p, const char* base, int64_t b, int64_t e, SumLoop loop, Acc* acc) {
  int64_t idx[16] = {};
  int64_t rem = b;
  const char* ptr = base;
  for (int j = 0; j < p.nd; ++j) { idx[j] = rem % p.shape[j]; rem /= p.shape[j]; ptr += idx[j] * p.stride[j]; }
  int64_t pos = b;
  while (pos < e) {
    const int64_t n = std::min(p.shape[0] - idx[0], e - pos);
    loop(ptr, p.stride[0], n, &acc->re, &acc->im, &acc->i);
    pos += n;
    if (pos >= e) break;
    ptr -= idx[0] * p.stride[0];
    idx[0] = 0;
    for (int j = 1; j < p.nd; ++j) {
      ++idx[j];
      ptr += p.stride[j];
      if (idx[j] < p.shape[j]) break;
      ptr -= p.shape[j] * p.stride[j];
      idx[j] = 0;
    }
  }
}

void store(const TensorImpl& out, int64_t o, Dtype in_dtype, const Acc& a, double div) {
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    T* dst = out.data<T>() + o;
    if (is_complex(in_dtype)) *dst = convert<T>(c128(a.re / div, a.im / div));
    else if (is_floating(in_dtype)) *dst = convert<T>(a.re / div);
    else *dst = convert<T>(a.i);
  });
}

// Reductions over outer dims (e.g. sum(dim=0) of a row-major matrix): the output's last dim is
// contiguous in the input, so accumulate whole rows into a buffer instead of striding down columns.
// float32, one output row of K <= 4096: fixed groups of 64 reduced rows (the same on any thread
// count, so results don't depend on it), each summed into its own K doubles while streaming
// contiguous memory (threads split the groups), then the groups added in order.
bool sum_row_groups_f32(const TensorImpl& out, const TensorImpl& in, int64_t K, const std::vector<int64_t>& offsets,
                        double div) {
  constexpr int64_t kG = 64;
  const int64_t count = int64_t(offsets.size()), groups = (count + kG - 1) / kG;
  if (K > 4096 || groups < 4) return false;
  std::vector<double> part(size_t(groups * K), 0.0);
  const float* base = in.data<float>();
  const auto cols = row_kernels().sum_cols_f32;
  parallel_for(0, groups, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t g = lo; g < hi; ++g) {
      double* acc = part.data() + g * K;
      for (int64_t c = g * kG; c < std::min(count, (g + 1) * kG); ++c) cols(acc, base + offsets[size_t(c)], K);
    }
  });
  float* o = out.data<float>();
  for (int64_t k = 0; k < K; ++k) {
    double t = 0;
    for (int64_t g = 0; g < groups; ++g) t += part[size_t(g * K + k)];
    o[k] = float(t / div);
  }
  return true;
}

template <typename T>
void sum_rows(const TensorImpl& out, const TensorImpl& in, int nreduce, const std::vector<int64_t>& offsets, double div) {
  using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
  const int nouter = int(in.dim()) - nreduce;
  const int64_t K = in.shape()[size_t(nouter - 1)];
  const int64_t rest = out.numel() / K;
  if constexpr (std::is_same_v<T, float>) {
    if (rest == 1 && sum_row_groups_f32(out, in, K, offsets, div)) return;
  }
  constexpr int64_t kBlock = 512;
  const int64_t kblocks = (K + kBlock - 1) / kBlock;
  const T* base = in.data<T>();
  parallel_for(0, rest * kblocks, 1, [&](int64_t lo, int64_t hi) {
    Acc acc[kBlock];
    for (int64_t w = lo; w < hi; ++w) {
      const int64_t o2 = w / kblocks, k0 = (w % kblocks) * kBlock, kn = std::min(kBlock, K - k0);
      // element offset of (o2, k0) in `in`
      int64_t off = k0;
      int64_t rem = o2;
      for (int d = nouter - 2; d >= 0; --d) {
        off += (rem % in.shape()[size_t(d)]) * in.strides()[size_t(d)];
        rem /= in.shape()[size_t(d)];
      }
      for (int64_t k = 0; k < kn; ++k) acc[k] = 0;
      const T* p0 = base + off;
      if constexpr (std::is_same_v<T, float>) {  // the vectorised per-ISA column step (vec_rows.h)
        const auto cols = row_kernels().sum_cols_f32;
        for (int64_t r : offsets) cols(acc, p0 + r, kn);
      } else {
        for (int64_t r : offsets) {
          const T* p = p0 + r;
          for (int64_t k = 0; k < kn; ++k) acc[k] += Acc(typename OpMath<T>::type(p[k]));
        }
      }
      T* o = out.data<T>() + o2 * K + k0;
      if constexpr (std::is_same_v<T, bool>) {
        for (int64_t k = 0; k < kn; ++k) o[k] = acc[k] != 0;
      } else {
        for (int64_t k = 0; k < kn; ++k) {
          if constexpr (std::is_integral_v<T>) o[k] = T(acc[k]);
          else o[k] = T(typename OpMath<T>::type(acc[k] / div));
        }
      }
    }
  });
}

bool try_sum_rows(const TensorImpl& out, const TensorImpl& in, int nreduce, const ReducePlan& plan, double div) {
  const int nouter = int(in.dim()) - nreduce;
  if (nouter < 1 || in.strides()[size_t(nouter - 1)] != 1 || in.shape()[size_t(nouter - 1)] < 16) return false;
  if (out.dtype() != in.dtype() || is_complex(in.dtype()) || in.dtype() == Dtype::Bool) return false;
  if (plan.count > (int64_t(1) << 22)) return false;
  // Element offsets of every reduced position (plan strides are in bytes).
  std::vector<int64_t> offsets;
  offsets.reserve(size_t(plan.count));
  const int64_t isz = in.element_size();
  std::vector<int64_t> idx(size_t(plan.nd), 0);
  for (int64_t c = 0; c < plan.count; ++c) {
    int64_t off = 0;
    for (int j = 0; j < plan.nd; ++j) off += idx[size_t(j)] * plan.stride[j];
    offsets.push_back(off / isz);
    for (int j = 0; j < plan.nd; ++j) {
      if (++idx[size_t(j)] < plan.shape[j]) break;
      idx[size_t(j)] = 0;
    }
  }
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    if constexpr (!std::is_same_v<T, c64> && !std::is_same_v<T, c128>) sum_rows<T>(out, in, nreduce, offsets, div);
  });
  return true;
}

void sum(const TensorImpl& out, const TensorImpl& in, int nreduce, double div) {
  const SumLoop loop = sum_loop_for(in.dtype());
  const ReducePlan plan = make_plan(in, nreduce);
  const int64_t outer = out.numel();
  if (outer == 0) return;
  const int64_t isz = in.element_size();
  const int nouter = int(in.dim()) - nreduce;
  if (plan.count == 0) {  // an empty reduction sums to zero
    for (int64_t o = 0; o < outer; ++o) store(out, o, in.dtype(), Acc{}, div);
    return;
  }
  if (outer > 1 && try_sum_rows(out, in, nreduce, plan, div)) return;
  if (outer > 1 && in.is_contiguous() && out.is_contiguous()) {
    // Whole contiguous rows (e.g. sum(dim=-1)): row o starts at o * count, no index arithmetic.
    const char* base = static_cast<const char*>(in.data_ptr());
    const int64_t row_bytes = plan.count * isz;
    parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / plan.count), [&](int64_t b, int64_t e) {
      if (out.dtype() == Dtype::F32 && in.dtype() == Dtype::F32) {
        float* o = out.data<float>();
        for (int64_t r = b; r < e; ++r) {
          Acc a;
          loop(base + r * row_bytes, isz, plan.count, &a.re, &a.im, &a.i);
          o[r] = float(a.re / div);
        }
        return;
      }
      for (int64_t r = b; r < e; ++r) {
        Acc a;
        loop(base + r * row_bytes, isz, plan.count, &a.re, &a.im, &a.i);
        store(out, r, in.dtype(), a, div);
      }
    });
    return;
  }
  auto outer_base = [&](int64_t o) {
    const char* ptr = static_cast<const char*>(in.data_ptr());
    for (int d = nouter - 1; d >= 0; --d) {
      const int64_t sz = in.shape()[d];
      ptr += (o % sz) * in.strides()[d] * isz;
      o /= sz;
    }
    return ptr;
  };
  if (outer == 1) {
    // One output: split the reduction itself, combine partials in order.
    const int nt = get_num_threads();
    const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(nt, plan.count / kGrainSize));
    std::vector<Acc> parts(static_cast<size_t>(chunks));
    const int64_t per = (plan.count + chunks - 1) / chunks;
    const char* base = outer_base(0);
    parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c)
        sum_range(plan, base, c * per, std::min(plan.count, (c + 1) * per), loop, &parts[size_t(c)]);
    });
    Acc total;
    for (auto& p : parts) total.add(p);
    store(out, 0, in.dtype(), total, div);
    return;
  }
  parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, plan.count)), [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      Acc a;
      sum_range(plan, outer_base(o), 0, plan.count, loop, &a);
      store(out, o, in.dtype(), a, div);
    }
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(sum_kernel, CPU, &sum)

}  // namespace lucid::cpu
