#pragma once
// Kernels of the pointwise losses (ops/loss.h): one fused elementwise kernel per loss computing
// either the per-element loss L(x, t) or g * d^(i+j) L / dx^i dt^j (i + j <= 2), so the backward
// and the backward's own vjp are the same kernel at higher orders. float32 and float64; any strides.
#include <cstdint>

#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

enum class LossOp : uint8_t {
  Mse,             // (x - t)^2
  L1,              // |x - t|
  SmoothL1,        // a: beta
  Huber,           // a: delta
  Bce,             // -(t log x + (1 - t) log(1 - x)), logs clamped at -100
  BceWithLogits,   // (1 - t) x + log(1 + exp(-x)), stable form
  SoftMargin,      // log(1 + exp(-t x)), stable form
};

struct LossParams {
  double a = 0;
};

// i == j == 0: out = L(x, t) (g unused, may be null); otherwise out = g * D_ij L(x, t).
// out, g, x and t have one shape.
LUCID_DECLARE_KERNEL(loss_kernel, void (*)(LossOp op, const LossParams& p, int i, int j, const TensorImpl& out,
                                           const TensorImpl* g, const TensorImpl& x, const TensorImpl& t))

}  // namespace lucid

namespace lucid {

// CTC (connectionist temporal classification). lp: (T, N, C) log-probabilities, contiguous;
// targets: int64 flat labels, sample n's at [offsets[n], offsets[n] + target_lengths[n]);
// offsets, input_lengths, target_lengths: int64 (N,), contiguous, validated by the caller.
// Forward: nll (N,) = -log p(target | input) (inf when impossible).
LUCID_DECLARE_KERNEL(ctc_loss_kernel, void (*)(const TensorImpl& nll, const TensorImpl& lp, const TensorImpl& targets,
                                               const TensorImpl& offsets, const TensorImpl& input_lengths,
                                               const TensorImpl& target_lengths, int64_t blank))
// Backward (PyTorch's formula): grad (T, N, C) = (exp(lp) - exp(log(sum alpha beta over the
// positions of c) + nll - lp)) * g[n] for t < input_length, 0 after; samples of infinite nll get zeros
// when zero_infinity.
LUCID_DECLARE_KERNEL(ctc_loss_backward_kernel,
                     void (*)(const TensorImpl& grad, const TensorImpl& g, const TensorImpl& lp,
                              const TensorImpl& targets, const TensorImpl& offsets, const TensorImpl& input_lengths,
                              const TensorImpl& target_lengths, const TensorImpl& nll, int64_t blank,
                              bool zero_infinity))

}  // namespace lucid
