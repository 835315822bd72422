#pragma once
// Convolutions of any spatial rank (1, 2, 3): F.conv1d/2d/3d and F.conv_transpose1d/2d/3d.
// Three fused engine ops underneath (ops/nn_conv.cpp): the convolution, the transposed convolution
// (its adjoint in the input) and the weight gradient; the vjp of each is written with the other two,
// so gradients of any order exist. nn.h keeps the older 2-d entry points (conv2d, unfold2d, ...).
#include <optional>
#include <string>
#include <vector>

#include "tensor/tensor_impl.h"

namespace lucid {

using IntList = std::vector<int64_t>;

// x (N, C, *in) or unbatched (C, *in); weight (OC, C/groups, *k) with nd = weight.dim() - 2 spatial
// dims; stride/padding/dilation have nd entries each.
Tensor convolution(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias, int64_t nd,
                   const IntList& stride, const IntList& padding, const IntList& dilation, int64_t groups);
// padding = "same" (stride 1 only; an odd total puts the extra element at the end, as PyTorch) or "valid".
Tensor convolution(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias, int64_t nd,
                   const IntList& stride, const std::string& padding, const IntList& dilation, int64_t groups);
// x (N, C, *in) or (C, *in); weight (C, OC/groups, *k) -> (N, OC, *out) with
// out = (in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1.
Tensor conv_transpose(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias, int64_t nd,
                      const IntList& stride, const IntList& padding, const IntList& output_padding, int64_t groups,
                      const IntList& dilation);

}  // namespace lucid
