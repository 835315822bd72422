#pragma once
// The margin losses of lucid.nn.functional as fused engine ops (one pass per sample).
// lucid.nn.functional validates the arguments (shapes, target range, p) before calling these.
#include <optional>
#include <string>

#include "tensor/tensor_impl.h"

namespace lucid {

// x (N, C) floating, t int64 (N,) in [0, C), weight (C,) or none (not differentiated), p 1 or 2;
// reduction "none" (per sample, (N,)) | "mean" | "sum". Node MultiMarginLossBackward0, whose vjp
// is the fused backward kernel; that op's own vjp is written in lucid ops (double backward).
Tensor multi_margin_loss(const Tensor& x, const Tensor& t, int p, double margin, const std::optional<Tensor>& weight,
                         const std::string& reduction);

// x (N, C) floating, t int64 (N, C) of classes in [-1, C) (each row's targets end at its first -1);
// reduction as above. Node MultilabelMarginLossBackward0 (fused backward kernel; the loss is
// piecewise linear, so the backward's own vjp is zero in x and the unit gradient in g).
Tensor multilabel_margin_loss(const Tensor& x, const Tensor& t, const std::string& reduction);

}  // namespace lucid
