#pragma once
// Kernels of the resampling ops (ops/nn_resample*.cpp): separable interpolation over up to three spatial
// dims driven by per-axis tap tables (nearest, linear, cubic: PyTorch's source-index rules are applied
// when the tables are built), and grid sampling (bilinear / nearest / bicubic, three padding modes).
#include <cstdint>
#include <vector>

#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// One spatial axis of an interpolation: output position o reads the K input positions idx[o*K + k]
// with weights w[o*K + k] (weights computed in the input's precision, stored exactly as double).
struct ResampleAxis {
  int64_t in = 1, out = 1, K = 1;
  std::vector<int64_t> idx;
  std::vector<double> w;
};
struct ResampleGeom {
  ResampleAxis ax[3];  // D, H, W (leading axes of extent 1 for 1-d / 2-d inputs)
};

// x (P, D, H, W) contiguous -> out (P, OD, OH, OW) contiguous: out = sum of w_d * w_h * w_w * x over taps.
LUCID_DECLARE_KERNEL(resample_interp_kernel, void (*)(const TensorImpl& out, const TensorImpl& x, const ResampleGeom& g))
// The adjoint: gx (P, D, H, W) contiguous zeroed accumulates g (P, OD, OH, OW) contiguous.
LUCID_DECLARE_KERNEL(resample_interp_backward_kernel,
                     void (*)(const TensorImpl& gx, const TensorImpl& g, const ResampleGeom& geo))

enum class GridMode : int { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class GridPadding : int { Zeros = 0, Border = 1, Reflection = 2 };
struct GridOpts {
  GridMode mode = GridMode::Bilinear;
  GridPadding padding = GridPadding::Zeros;
  bool align_corners = false;
};

// x (N, C, D, H, W) contiguous (D = 1 for 4-d inputs), grid (N, S, nd) contiguous of x's dtype with nd = 2
// (x, y) or 3 (x, y, z); out (N, C, S) contiguous.
LUCID_DECLARE_KERNEL(grid_sample_kernel, void (*)(const TensorImpl& out, const TensorImpl& x, const TensorImpl& grid,
                                                  const GridOpts& o))
// Gradients of grid_sample for the output gradient g (N, C, S) contiguous: gx (N, C, D, H, W) contiguous
// zeroed accumulates; ggrid (N, S, nd) contiguous is written. Either may be null (not wanted).
LUCID_DECLARE_KERNEL(grid_sample_backward_kernel,
                     void (*)(const TensorImpl* gx, const TensorImpl* ggrid, const TensorImpl& g, const TensorImpl& x,
                              const TensorImpl& grid, const GridOpts& o))

// The vjp of grid_sample_backward_kernel (double backward): for the cotangents U of gx (N, C, D, H, W) and V
// of ggrid (N, S, nd) (either may be null: zero), writes dg (N, C, S) and dgrid (N, S, nd) and accumulates
// into dx (N, C, D, H, W) zeroed; all contiguous.
LUCID_DECLARE_KERNEL(grid_sample_double_backward_kernel,
                     void (*)(const TensorImpl& dg, const TensorImpl& dx, const TensorImpl& dgrid, const TensorImpl& g,
                              const TensorImpl& x, const TensorImpl& grid, const TensorImpl* U, const TensorImpl* V,
                              const GridOpts& o))

}  // namespace lucid
