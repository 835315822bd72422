#pragma once
// Kernels of the margin losses (ops/loss_margin.h): fused per-sample forward and backward.
// x (N, C) contiguous float32/float64; t int64 (N,) contiguous (validated class indices);
// w (C,) of x's dtype or null; g and out contiguous.
#include <cstdint>

#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// out (N,): sum over j != y of w[y] * max(0, margin - x[y] + x[j])^p / C (p is 1 or 2).
LUCID_DECLARE_KERNEL(multi_margin_kernel, void (*)(const TensorImpl& out, const TensorImpl& x, const TensorImpl& t,
                                                   const TensorImpl* w, int p, double margin))
// gx (N, C) = g[n] * d out[n] / d x[n, :].
LUCID_DECLARE_KERNEL(multi_margin_backward_kernel,
                     void (*)(const TensorImpl& gx, const TensorImpl& g, const TensorImpl& x, const TensorImpl& t,
                              const TensorImpl* w, int p, double margin))

// Multilabel: t int64 (N, C), sample n's target classes are t[n, :k) before its first -1.
// out (N,): sum over target slots j and non-target classes c of max(0, 1 - x[j] + x[c]) / C.
LUCID_DECLARE_KERNEL(multilabel_margin_kernel, void (*)(const TensorImpl& out, const TensorImpl& x, const TensorImpl& t))
// gx (N, C) = g[n] * d out[n] / d x[n, :].
LUCID_DECLARE_KERNEL(multilabel_margin_backward_kernel,
                     void (*)(const TensorImpl& gx, const TensorImpl& g, const TensorImpl& x, const TensorImpl& t))

}  // namespace lucid
