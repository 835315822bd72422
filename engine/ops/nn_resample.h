#pragma once
// Resampling ops (ops/nn_resample*.cpp): interpolation with PyTorch's upsampling rules and grid sampling.
#include <cstdint>
#include <vector>

#include "backend/kernels/resample.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// The *AA modes are PyTorch's antialiased (separable, support widened by the downscale factor, weights
// normalized) bilinear / bicubic (Keys a = -0.5) / lanczos (a = 3) filters, 2-d only.
// NearestIdx is nearest with PyTorch's nearest_idx shortcuts (out == in: identity, out == 2 * in: halving,
// whatever the scale), which its 2-d nearest kernel applies.
enum class InterpMode : int {
  Nearest = 0, NearestExact = 1, Linear = 2, Cubic = 3, LinearAA = 4, CubicAA = 5, LanczosAA = 6, NearestIdx = 7
};

// x (N, C, *spatial) with nd = 1..3 spatial dims resampled to `size` (nd positive extents). scales holds
// the user's scale factors (nd entries, <= 0 for none) or is empty; they set the source-index step as in
// PyTorch's upsample_* ops (1 / scale when given, in / out otherwise). Cubic needs nd == 2.
Tensor interpolate(const Tensor& x, int nd, std::vector<int64_t> size, std::vector<double> scales, InterpMode mode,
                   bool align_corners);

// x (N, C, H, W) with grid (N, Ho, Wo, 2), or x (N, C, D, H, W) with grid (N, Do, Ho, Wo, 3) (bilinear and
// nearest only): PyTorch's grid_sampler, gradients to both.
Tensor grid_sample(const Tensor& x, const Tensor& grid, GridMode mode, GridPadding padding, bool align_corners);

}  // namespace lucid
