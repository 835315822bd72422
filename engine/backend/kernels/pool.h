#pragma once
// Kernels of the generic pooling ops (ops/nn_pool2.cpp): max / average pooling over up to three spatial
// dims with per-output window tables, so the same kernels serve fixed windows (kernel/stride/padding/
// dilation/ceil_mode) and adaptive windows (PyTorch's floor/ceil start/end formulas).
#include <array>
#include <memory>
#include <vector>

#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// Window table of one spatial axis: for each output position o, the first valid input position
// begin[o], the number of valid taps taps[o] (spaced `step` apart, all inside [0, in)), and span[o], the
// window extent counted by count_include_pad (clipped to in + padding).
struct PoolAxis {
  int64_t in = 1, out = 1, step = 1;
  std::vector<int64_t> begin, taps, span;
};
struct PoolGeom {
  PoolAxis ax[3];  // D, H, W (leading axes of extent 1 for 1-d / 2-d pooling)
};

// x (P, D, H, W) contiguous; out/indices (P, OD, OH, OW) contiguous. indices are flat d*H*W + h*W + w
// within each plane (PyTorch's); NaN propagates; an empty window writes -inf and index -1.
LUCID_DECLARE_KERNEL(pool_max_kernel, void (*)(const TensorImpl& out, const TensorImpl& indices, const TensorImpl& x,
                                               const PoolGeom& g))
// Average over each window: sum / divisor where divisor = divisor_override if > 0, else the product of
// spans (count_include_pad) or of valid taps. An empty window writes 0.
LUCID_DECLARE_KERNEL(pool_avg_kernel, void (*)(const TensorImpl& out, const TensorImpl& x, const PoolGeom& g,
                                               bool count_include_pad, int64_t divisor_override))
// The adjoint of pool_avg_kernel: gx (P, D, H, W) contiguous zeroed accumulates g (P, OD, OH, OW) contiguous.
LUCID_DECLARE_KERNEL(pool_avg_backward_kernel, void (*)(const TensorImpl& gx, const TensorImpl& g, const PoolGeom& geo,
                                                        bool count_include_pad, int64_t divisor_override))

// Fractional max pooling (Graham): x (P, D, H, W) contiguous, samples (P, 3) contiguous of x's dtype (the
// per-plane random offsets for D, H, W; D's unused for 2-d), kernel (kd, kh, kw); out/indices (P, OD, OH,
// OW) contiguous. Window starts follow PyTorch's generate_intervals, computed in x's precision.
LUCID_DECLARE_KERNEL(pool_fractional_max_kernel, void (*)(const TensorImpl& out, const TensorImpl& indices,
                                                          const TensorImpl& x, const TensorImpl& samples,
                                                          const std::array<int64_t, 3>& kernel))

}  // namespace lucid
