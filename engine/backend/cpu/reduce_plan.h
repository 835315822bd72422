#pragma once
// The reduced sub-space of a permuted input (reduced dims last): its dims coalesced innermost
// first, with byte strides, and helpers to walk it in row-major order. Shared by the sum kernel
// (reduce.cpp) and the generic reduction (reduce_ops.cpp).
#include <algorithm>
#include <cstdint>

#include "backend/common/iter.h"
#include "tensor/tensor_impl.h"

namespace lucid::cpu {

struct ReducePlan {
  int nd = 0;
  int64_t shape[kMaxIterDims], stride[kMaxIterDims];
  int64_t count = 1;
};

inline ReducePlan make_plan(const TensorImpl& in, int nreduce, const char* op = "sum") {
  ReducePlan p;
  const int64_t isz = in.element_size();
  for (int64_t d = in.dim() - 1; d >= in.dim() - nreduce; --d) {
    if (in.shape()[d] == 1) continue;
    const int64_t s = in.strides()[d] * isz;
    if (p.nd > 0 && s == p.stride[p.nd - 1] * p.shape[p.nd - 1]) {
      p.shape[p.nd - 1] *= in.shape()[d];
    } else {
      LUCID_CHECK(p.nd < kMaxIterDims, NotImplemented,
                  "[" << op << "] reducing over more than " << kMaxIterDims << " non-mergeable dims is not supported");
      p.shape[p.nd] = in.shape()[d];
      p.stride[p.nd] = s;
      ++p.nd;
    }
    p.count *= in.shape()[d];
  }
  if (p.nd == 0) { p.shape[0] = 1; p.stride[0] = isz; p.nd = 1; }
  return p;
}

// Calls f(ptr, byte_stride, n, pos) for the runs covering linear positions [b, e) of the reduced
// sub-space starting at base (pos: the linear position of the run's first element).
template <typename F>
void walk_plan(const ReducePlan& p, const char* base, int64_t b, int64_t e, F&& f) {
  if (b >= e) return;
  int64_t idx[kMaxIterDims] = {};
  int64_t rem = b;
  const char* ptr = base;
  for (int j = 0; j < p.nd; ++j) { idx[j] = rem % p.shape[j]; rem /= p.shape[j]; ptr += idx[j] * p.stride[j]; }
  int64_t pos = b;
  while (pos < e) {
    const int64_t n = std::min(p.shape[0] - idx[0], e - pos);
    f(ptr, p.stride[0], n, pos);
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

// Address of output `o`'s first reduced element: o decomposed over in's leading (kept) dims.
inline const char* outer_base(const TensorImpl& in, int nouter, int64_t o) {
  const char* ptr = static_cast<const char*>(in.data_ptr());
  const int64_t isz = in.element_size();
  for (int d = nouter - 1; d >= 0; --d) {
    const int64_t sz = in.shape()[size_t(d)];
    ptr += (o % sz) * in.strides()[size_t(d)] * isz;
    o /= sz;
  }
  return ptr;
}

}  // namespace lucid::cpu
