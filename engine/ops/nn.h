#pragma once
// Neural-network ops (lucid.nn.functional's engine side): convolution through im2col + GEMM,
// F.unfold / F.fold, max pooling with indices, softmax / log_softmax, the NLL loss.
#include <array>
#include <optional>
#include <string>
#include <utility>

#include "tensor/tensor_impl.h"

namespace lucid {

using Pair = std::array<int64_t, 2>;

// F.unfold: (N, C, H, W) or (C, H, W) -> (N, C*kh*kw, L), contiguous.
Tensor unfold2d(const Tensor& x, Pair kernel, Pair dilation, Pair padding, Pair stride);
// F.fold: (N, C*kh*kw, L) or (C*kh*kw, L) -> (N, C, H, W), summing overlaps.
Tensor fold2d(const Tensor& cols, Pair output_size, Pair kernel, Pair dilation, Pair padding, Pair stride);

// (N, C, H, W) x (OC, C/groups, kh, kw) [+ bias (OC)] -> (N, OC, OH, OW); unbatched (C, H, W) too.
Tensor conv2d(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias, Pair stride, Pair padding,
              Pair dilation, int64_t groups);
// padding="same" / "valid" resolved to explicit padding (PyTorch's rule; "same" needs stride 1).
Tensor conv2d_padding_mode(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias, Pair stride,
                           const std::string& padding, Pair dilation, int64_t groups);

// (values, int64 indices flat within each H x W plane)
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& x, Pair kernel, Pair stride, Pair padding,
                                                  Pair dilation, bool ceil_mode);
// The gradient of max pooling: zeros of x's shape with g added at the indices.
Tensor max_pool2d_backward(const Tensor& g, const Tensor& indices, const Shape& input_shape);

Tensor softmax(const Tensor& x, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<Dtype> dtype = std::nullopt);

// input (N, C), (N, C, d1, ...) or (C,) of log-probabilities; target int64 (N), (N, d1, ...) or ().
// reduction: "none" | "mean" | "sum".
Tensor nll_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                const std::string& reduction, int64_t ignore_index);

}  // namespace lucid

namespace lucid {

// Layer norm over the trailing dims given by normalized_shape (fused forward; the vjp in lucid ops
// recomputes the statistics under create_graph, so second derivatives are exact).
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps);
// Batch norm of (N, C, *) per channel. training: batch statistics, and the running ones (when given)
// updated in place with `momentum`; otherwise the running statistics normalise.
Tensor batch_norm(const Tensor& x, const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, bool training,
                  double momentum, double eps);

}  // namespace lucid
