#pragma once
// Sorting, selection, searching and counting kernels. Inputs may be strided (any layout); outputs
// are freshly allocated and contiguous. "Along dim" kernels treat every index tuple of the other
// dims as one row. Ordering everywhere is PyTorch's: NaN sorts above +inf; ties keep index order
// (a total order on (value, index)), so results are deterministic.
#include <cstdint>

#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// values/indices: in's shape. A stable sort of each row.
LUCID_DECLARE_KERNEL(sort_kernel, void (*)(const TensorImpl& values, const TensorImpl& indices, const TensorImpl& in,
                                           int64_t dim, bool descending))
// values/indices: in's shape with size k along dim; the k largest (smallest) in sorted order.
LUCID_DECLARE_KERNEL(topk_kernel, void (*)(const TensorImpl& values, const TensorImpl& indices, const TensorImpl& in,
                                           int64_t dim, int64_t k, bool largest))

enum class SelectMode : uint8_t { Kth, Median, NanMedian };
// values/indices: in's shape without dim. Kth: the k-th smallest (0-based); Median: the lower median
// (NaN when the row holds one); NanMedian: the lower median of the non-NaN values.
LUCID_DECLARE_KERNEL(select_kernel, void (*)(const TensorImpl& values, const TensorImpl& indices, const TensorImpl& in,
                                             int64_t dim, int64_t k, SelectMode mode))
// values/indices: in's shape without dim. The most frequent value (the smallest on ties) and the
// last index where it occurs.
LUCID_DECLARE_KERNEL(mode_kernel, void (*)(const TensorImpl& values, const TensorImpl& indices, const TensorImpl& in,
                                           int64_t dim))

// out (int32/int64): values' shape. `sorted` is 1-D or has values' leading dims; `sorter` (int64,
// sorted's shape) or null. values and sorted share one dtype; all contiguous.
LUCID_DECLARE_KERNEL(searchsorted_kernel, void (*)(const TensorImpl& out, const TensorImpl& sorted, const TensorImpl& values,
                                                   const TensorImpl* sorter, bool right))

// hist (contiguous, in's dtype): counts of in's elements in `hist.numel()` equal bins over [lo, hi],
// PyTorch's histc arithmetic: bin = int((x - lo) * bins / (hi - lo)) in in's dtype, hi in the last bin.
LUCID_DECLARE_KERNEL(histc_kernel, void (*)(const TensorImpl& hist, const TensorImpl& in, double lo, double hi))
// hist (contiguous, float): counts (weighted) of in's elements in the bins given by the sorted
// `edges` (edges.numel() - 1 bins, the last one closed); elements outside, and NaN, are dropped.
// in, weight and edges are contiguous.
LUCID_DECLARE_KERNEL(histogram_edges_kernel, void (*)(const TensorImpl& hist, const TensorImpl& in, const TensorImpl* weight,
                                                      const TensorImpl& edges))
// out: zero-filled by the kernel, out[in[i]] += weight[i] (or 1). in: non-negative integers.
LUCID_DECLARE_KERNEL(bincount_kernel, void (*)(const TensorImpl& out, const TensorImpl& in, const TensorImpl* weight))
// unique over the rows of a contiguous (n, m) tensor (m = 1: elements). Rows are sorted
// lexicographically first unless `consecutive`. Outputs have data-dependent sizes, so the kernel
// allocates them: values (u, m), inverse (n,) int64: each row's run, counts (u,) int64.
LUCID_DECLARE_KERNEL(unique_kernel, void (*)(const TensorImpl& in, bool consecutive, Tensor* values, Tensor* inverse,
                                             Tensor* counts))
// out (bool, contiguous): elements' shape; true where the element occurs in `test` (both contiguous,
// one dtype; NaN matches nothing).
LUCID_DECLARE_KERNEL(isin_kernel, void (*)(const TensorImpl& out, const TensorImpl& elements, const TensorImpl& test,
                                           bool invert))

enum class QuantileInterp : uint8_t { Linear, Lower, Higher, Midpoint, Nearest };
// sorted: contiguous (rows, n), each row sorted ascending (NaN last), n >= 1. q: nq probabilities.
// out/weight (sorted's dtype) and lo/hi (int64), all contiguous (nq, rows): out = lerp(sorted[lo],
// sorted[hi], weight), PyTorch's ranks (computed in the input's dtype).
LUCID_DECLARE_KERNEL(quantile_kernel, void (*)(const TensorImpl& out, const TensorImpl& lo, const TensorImpl& hi,
                                               const TensorImpl& weight, const TensorImpl& sorted, const double* q,
                                               int64_t nq, QuantileInterp interp, bool ignore_nan))

}  // namespace lucid
