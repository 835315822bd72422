// searchsorted on the CPU: PyTorch's bisection (the same probes, so the same answer even where NaNs
// break the order), run for a group of queries in lockstep with the updates selected without
// branches: each step's loads of the group are independent, so their cache misses overlap, and a
// random query costs no mispredicted branches. Reads the boundaries in place (no copy).
#include <algorithm>
#include <bit>
#include <type_traits>

#include "backend/cpu/loops.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/sorting.h"

namespace lucid::cpu {

namespace {

constexpr int kGroup = 8;          // queries searched together
constexpr int64_t kGrain = 256;    // queries per thread below which one thread searches

template <typename T, bool RIGHT>
void search_group(const T* const* seq, const int64_t* const* so, int64_t m, const T* v, int g, int64_t* res) {
  using K = typename OpMath<T>::type;
  int64_t lo[kGroup], hi[kGroup];
  K val[kGroup];
  for (int q = 0; q < g; ++q) {
    lo[q] = 0;
    hi[q] = m;
    val[q] = K(v[q]);
  }
  // The loop `while (lo < hi)` runs at most bit_width(m) times: a window of s leaves at most s / 2.
  const int steps = int(std::bit_width(uint64_t(m)));
  for (int s = 0; s < steps; ++s) {
    for (int q = 0; q < g; ++q) {
      const int64_t mid = lo[q] + ((hi[q] - lo[q]) >> 1);
      const bool active = lo[q] < hi[q];
      const int64_t at = mid < m ? mid : m - 1;  // a finished query reads in bounds and changes nothing
      const K x = K(so ? seq[q][so[q][at]] : seq[q][at]);
      // PyTorch's comparisons: a NaN value lands past every element
      const bool go = RIGHT ? !(x > val[q]) : !(x >= val[q]);
      // lo = mid + 1 or hi = mid, by masks (a compiler's conditional here becomes a branch)
      const int64_t right_mask = -int64_t(active & go), left_mask = -int64_t(active & !go);
      lo[q] += (mid + 1 - lo[q]) & right_mask;
      hi[q] += (mid - hi[q]) & left_mask;
    }
  }
  for (int q = 0; q < g; ++q) res[q] = lo[q];
}

template <typename T, bool RIGHT>
void search_all(const TensorImpl& out, const TensorImpl& sorted, const TensorImpl& values, const TensorImpl* sorter) {
  const int64_t nv = values.numel();
  const int64_t m = sorted.shape().back();
  const int64_t inner = values.dim() ? values.shape().back() : 1;
  const bool batched = sorted.dim() > 1;
  const T* s = sorted.data<T>();
  const T* v = values.data<T>();
  const int64_t* so = sorter ? sorter->data<int64_t>() : nullptr;
  const bool i32 = out.dtype() == Dtype::I32;
  parallel_for(0, nv, kGrain, [&](int64_t b, int64_t e) {
    const T* seq[kGroup];
    const int64_t* sor[kGroup];
    int64_t res[kGroup];
    for (int64_t i = b; i < e; i += kGroup) {
      const int g = int(std::min<int64_t>(kGroup, e - i));
      for (int q = 0; q < g; ++q) {
        const int64_t row = batched ? (i + q) / inner : 0;
        seq[q] = s + row * m;
        sor[q] = so ? so + row * m : nullptr;
      }
      if (m == 0) {
        for (int q = 0; q < g; ++q) res[q] = 0;
      } else {
        search_group<T, RIGHT>(seq, so ? sor : nullptr, m, v + i, g, res);
      }
      if (i32) {
        for (int q = 0; q < g; ++q) out.data<int32_t>()[i + q] = int32_t(res[q]);
      } else {
        for (int q = 0; q < g; ++q) out.data<int64_t>()[i + q] = res[q];
      }
    }
  });
}

void searchsorted(const TensorImpl& out, const TensorImpl& sorted, const TensorImpl& values, const TensorImpl* sorter,
                  bool right) {
  if (values.numel() == 0) return;
  dispatch_dtype(values.dtype(), [&]<typename T>() {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, c64> || std::is_same_v<T, c128>) {
      LUCID_FAIL(NotImplemented, "[searchsorted] is not implemented for " << dtype_name(values.dtype()) << " tensors");
    } else {
      if (right) search_all<T, true>(out, sorted, values, sorter);
      else search_all<T, false>(out, sorted, values, sorter);
    }
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(searchsorted_kernel, CPU, searchsorted)

}  // namespace lucid::cpu
