#pragma once
// The pointwise losses of lucid.nn.functional (mse, l1, smooth_l1, huber, binary_cross_entropy,
// binary_cross_entropy_with_logits) as one family of fused elementwise engine ops.
//
// loss_elementwise computes L(x, t) per element; its vjp is loss_derivative (g * D_ij L, an engine
// op over the same kernel) whose own vjp is loss_derivative at the next order, so second
// derivatives in both input and target are exact. float16/bfloat16 compute in float32.
#include <optional>
#include <string>

#include "backend/kernels/loss.h"
#include "tensor/tensor_impl.h"

namespace lucid {

const char* loss_name(LossOp op);

// L(x, t) per element; x and t have one shape and dtype (floating).
Tensor loss_elementwise(LossOp op, const Tensor& x, const Tensor& t, const LossParams& p);
// g * d^(i+j) L / dx^i dt^j (x, t, g of one shape).
Tensor loss_derivative(LossOp op, const Tensor& g, const Tensor& x, const Tensor& t, const LossParams& p, int i, int j);

// The loss of input against target: the two broadcast (PyTorch's rule), the per-element loss
// times weight (when given, broadcast), then reduction "none" | "mean" | "sum".
Tensor pointwise_loss(LossOp op, const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                      const std::string& reduction, const LossParams& p);

}  // namespace lucid

namespace lucid {

// The CTC loss. log_probs (T, N, C) or unbatched (T, C); targets (N, S) padded, or 1-D concatenated
// (sum of target_lengths), or (S,) unbatched; input_lengths / target_lengths int64 (N,) (or 0-d
// unbatched). reduction "none" (per sample), "sum", or "mean" (each loss divided by its target length,
// then the batch mean). zero_infinity zeroes infinite losses and their gradients. The gradient is
// PyTorch's (it assumes normalised log-probabilities); double backward is not implemented. CPU only.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, const std::string& reduction, bool zero_infinity);

}  // namespace lucid
