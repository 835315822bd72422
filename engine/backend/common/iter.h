#pragma once
// Strided iteration over N operands of one shape (broadcast inputs carry stride 0), with
// dimension coalescing. Host code builds an Iter; CPU kernels walk it directly (for_range), CUDA
// kernels receive its coalesced shape and byte strides by value.
#include <algorithm>
#include <array>
#include <cstdint>

#include "core/error.h"
#include "tensor/tensor_impl.h"

namespace lucid {

constexpr int kMaxIterDims = 16;

template <int N>
struct Iter {
  int ndim = 0;                                  // after coalescing; dim 0 is the innermost
  int64_t numel = 0;
  int64_t shape[kMaxIterDims] = {};
  int64_t strides[N][kMaxIterDims] = {};         // bytes
  char* base[N] = {};
  bool contiguous = false;                       // every operand dense, same layout: one flat run

  // ops[0] is the output. All operands must have ops[0]'s shape (inputs expanded beforehand).
  static Iter make(const std::array<const TensorImpl*, N>& ops) {
    Iter it;
    const TensorImpl& out = *ops[0];
    const int64_t nd = out.dim();
    LUCID_CHECK(nd <= kMaxIterDims, NotImplemented, "tensors of rank above " << kMaxIterDims << " are not supported");
    it.numel = out.numel();
    bool all_contig = true;
    for (int k = 0; k < N; ++k) {
      it.base[k] = static_cast<char*>(ops[k]->data_ptr());
      all_contig = all_contig && ops[k]->is_contiguous() && ops[k]->shape() == out.shape();
    }
    if (all_contig || nd == 0) {
      it.ndim = 1;
      it.shape[0] = it.numel;
      for (int k = 0; k < N; ++k) it.strides[k][0] = ops[k]->element_size();
      it.contiguous = true;
      return it;
    }
    // Reverse to innermost-first, dropping size-1 dims.
    int d = 0;
    for (int64_t i = nd - 1; i >= 0; --i) {
      if (out.shape()[i] == 1) continue;
      it.shape[d] = out.shape()[i];
      for (int k = 0; k < N; ++k) it.strides[k][d] = ops[k]->strides()[i] * ops[k]->element_size();
      ++d;
    }
    if (d == 0) { it.shape[0] = 1; for (int k = 0; k < N; ++k) it.strides[k][0] = ops[k]->element_size(); d = 1; }
    // Coalesce dim j+1 into j when every operand steps through them as one.
    int w = 0;
    for (int j = 1; j < d; ++j) {
      bool ok = true;
      for (int k = 0; k < N; ++k) ok = ok && it.strides[k][j] == it.strides[k][w] * it.shape[w];
      if (ok) {
        it.shape[w] *= it.shape[j];
      } else {
        ++w;
        it.shape[w] = it.shape[j];
        for (int k = 0; k < N; ++k) it.strides[k][w] = it.strides[k][j];
      }
    }
    it.ndim = w + 1;
    bool flat = it.ndim == 1;
    for (int k = 0; k < N && flat; ++k) flat = it.strides[k][0] == ops[k]->element_size();
    it.contiguous = flat;
    return it;
  }

  // Calls f(ptrs, inner_strides, n) for runs along dim 0 covering linear indices [begin, end).
  template <typename F>
  void for_range(int64_t begin, int64_t end, F&& f) const {
    if (begin >= end) return;
    int64_t idx[kMaxIterDims] = {};
    int64_t rem = begin;
    for (int j = 0; j < ndim; ++j) { idx[j] = rem % shape[j]; rem /= shape[j]; }
    char* ptr[N];
    int64_t inner[N];
    for (int k = 0; k < N; ++k) {
      ptr[k] = base[k];
      for (int j = 0; j < ndim; ++j) ptr[k] += idx[j] * strides[k][j];
      inner[k] = strides[k][0];
    }
    int64_t pos = begin;
    while (true) {
      const int64_t n = std::min(shape[0] - idx[0], end - pos);
      f(ptr, inner, n);
      pos += n;
      if (pos >= end) break;
      for (int k = 0; k < N; ++k) ptr[k] -= idx[0] * strides[k][0];  // back to the run's start
      idx[0] = 0;
      for (int j = 1; j < ndim; ++j) {  // carry into the outer dims
        ++idx[j];
        for (int k = 0; k < N; ++k) ptr[k] += strides[k][j];
        if (idx[j] < shape[j]) break;
        for (int k = 0; k < N; ++k) ptr[k] -= shape[j] * strides[k][j];
        idx[j] = 0;
      }
    }
  }
};

}  // namespace lucid
