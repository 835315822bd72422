#pragma once
// Kernels of the neural-network ops (ops/nn_*.cpp; convolution's are in kernels/conv.h):
// max pooling with indices and its backward, softmax/log_softmax over rows, the NLL loss.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// Geometry of a 2-D sliding window (kernel, stride, padding, dilation) over an H x W plane.
struct Window2d {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t oh, ow;  // output extent
};

// out/indices (N, C, OH, OW) contiguous, x (N, C, H, W) any strides; indices are flat h*W + w within
// the plane (PyTorch's); padding never wins; NaN propagates.
LUCID_DECLARE_KERNEL(max_pool2d_kernel, void (*)(const TensorImpl& out, const TensorImpl& indices,
                                                 const TensorImpl& x, const Window2d& w))
// grad_x (N, C, H, W) contiguous, written whole (no need to zero it): grad_x[n, c] = 0, then
// grad_x[n, c].flat[indices[n, c, o]] += g[n, c, o].
LUCID_DECLARE_KERNEL(max_pool2d_backward_kernel, void (*)(const TensorImpl& grad_x, const TensorImpl& g,
                                                          const TensorImpl& indices))
// Softmax (log = false) or log-softmax over the middle dim of a contiguous (outer, D, inner) array.
LUCID_DECLARE_KERNEL(softmax_kernel, void (*)(const TensorImpl& out, const TensorImpl& x, int64_t outer, int64_t D,
                                              int64_t inner, bool log))
// NLL over rows of logp (N, C) contiguous, target (N,) int64, weight (C,) or empty:
// per-sample loss out[i] = -w[t_i] * logp[i, t_i] (0 where t_i == ignore_index) and wsum[i] = w[t_i]
// (0 when ignored). Targets outside [0, C) other than ignore_index raise IndexError.
LUCID_DECLARE_KERNEL(nll_kernel, void (*)(const TensorImpl& out, const TensorImpl& wsum, const TensorImpl& logp,
                                          const TensorImpl& target, const TensorImpl* weight, int64_t ignore_index))
// The adjoint of nll_kernel's loss: grad (N, C) contiguous zeroed; grad[i, t_i] = -w[t_i] * g[i] * scale.
LUCID_DECLARE_KERNEL(nll_backward_kernel, void (*)(const TensorImpl& grad, const TensorImpl& g, const TensorImpl& target,
                                                   const TensorImpl* weight, int64_t ignore_index, double scale))

}  // namespace lucid

namespace lucid {

// Layer norm over rows of a contiguous (R, D) x: mean/rstd (R) out, y = (x - mean) * rstd * w + b
// (w, b of D elements, contiguous, or null).
LUCID_DECLARE_KERNEL(layer_norm_kernel, void (*)(const TensorImpl& y, const TensorImpl& mean, const TensorImpl& rstd,
                                                 const TensorImpl& x, const TensorImpl* w, const TensorImpl* b,
                                                 double eps))
// Batch norm over a contiguous (N, C, S) x, per channel. With stats_given, mean and rstd (C) are
// inputs; otherwise the kernel writes the batch mean, rstd = 1/sqrt(biased var + eps) and var
// (biased, for the running statistics) into them.
LUCID_DECLARE_KERNEL(batch_norm_kernel, void (*)(const TensorImpl& y, const TensorImpl& mean, const TensorImpl& rstd,
                                                 const TensorImpl* var, const TensorImpl& x, const TensorImpl* w,
                                                 const TensorImpl* b, double eps, bool stats_given))

}  // namespace lucid
